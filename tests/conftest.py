"""Suite-wide setup: tests and the servers they start see the documented defaults, whatever the machine sets."""

from __future__ import annotations

import os

for name in [n for n in os.environ if n.startswith("MAZZIERE_")]:
    del os.environ[name]
