"""``mazziere serve`` as a later build would run it, for the rolling-deploy test (tests/host/test_rolling_deploy.py):
the same CLI, but the host writes one new optional field where replicas of the old build read it.

- Every table it opens keeps an extra key in its settings (``"felt": "verde"`` in the stored row's JSON).
- Every step it notifies carries a ``:felt=verde`` field after ``table_id:seq``.

An old replica beside it must read both as it reads its own (the expand step of a store change: docs/operations.md,
"The store across a rolling deploy"). Run as ``python tests/host/newer_build.py serve``; the changes are made as
the module is imported (tests/host/warm_start.py imports it so).
"""

from __future__ import annotations

import json
import sys

from mazziere.services.cli import main
from mazziere.services.host import settings
from mazziere.services.host.store import postgres

NEW_FIELD = ("felt", "verde")
"""The optional field this build adds, by name and value."""


def encode_with_new_field(self: settings.Settings) -> bytes:
    """The settings as the old build writes them, and the new key."""
    kept = json.loads(ORIGINAL_ENCODE(self))
    kept[NEW_FIELD[0]] = NEW_FIELD[1]
    return json.dumps(kept).encode()


ORIGINAL_ENCODE = settings.Settings.encode
settings.Settings.encode = encode_with_new_field  # type: ignore[method-assign]
# The payload, "table_id:seq", with the new field appended by the server itself.
postgres.NOTIFY = f"SELECT pg_notify(%s, %s || ':{NEW_FIELD[0]}={NEW_FIELD[1]}')"

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
