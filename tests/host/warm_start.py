"""``mazziere serve`` started ahead, as a rolling deploy starts a new pod before it stops an old one: it loads the
server (with ``newer``, as the newer build of tests/host/newer_build.py), touches the file named by
``WARM_START_LOADED``, then waits for a line on its standard input before it runs the CLI, which binds the ports an
old process may hold until then. Run from the repository root: ``python -m tests.host.warm_start [newer] serve``."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

from mazziere.services.cli import main

if __name__ == "__main__":
    arguments = sys.argv[1:]
    if arguments[:1] == ["newer"]:
        importlib.import_module("tests.host.newer_build")  # its changes are made as it is imported
        arguments = arguments[1:]
    Path(os.environ["WARM_START_LOADED"]).touch()
    sys.stdin.readline()
    sys.exit(main(arguments))
