"""``python -m mazziere.services.cli``: the ``mazziere`` command."""

from mazziere.services.cli import main

raise SystemExit(main())
