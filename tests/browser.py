"""Chromium (Debian's, driven by Playwright) for every test that needs a browser: one per test module.

A plugin of the root conftest, so that the web table's tests and the rolling-deploy tests share one fixture.
Playwright's sync API runs one instance per process (a second fails to start) and keeps an event loop running
while it is open, in which ``asyncio.run`` refuses to start: so it is opened for a module and closed after it, and
the asyncio tests of later modules run as they would alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install '.[dev]')")
    if not CHROMIUM.exists():
        pytest.skip(f"no browser at {CHROMIUM}: `make test` installs Debian's chromium with apt when run as root")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()
