"""The sealing key the embedded default keeps beside its store, at start: never silently replaced while the store
holds tables sealed under it, and refused, with one ``startup_failed`` line that says what to do, when it is
missing, empty, malformed, open to other users, or another store's."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from structlog.testing import capture_logs

from mazziere.services.app import KEY_FILE, make_keyring
from mazziere.services.config import Config
from mazziere.services.host.store import Step, TableRecord
from mazziere.services.host.store.sqlite import SqliteStore
from mazziere.services.table.keyfile import KeyFileError
from mazziere.services.table.sealing import Keyring, new_key_entry
from tests.ports import free_port
from tests.service.test_keys import fragments
from tests.service.test_process import ROOT

FRESH = "MAZZIERE_NEW_SEAL_KEY=true"


def embedded(data: Path, **changes: object) -> Config:
    """The embedded default's configuration: no keys configured, the store in ``data``."""
    return replace(Config(data_dir=str(data)), **changes)  # type: ignore[arg-type]


def store_a_table(data: Path, keyring: Keyring, table_id: str = "t_1") -> None:
    """The store in ``data`` keeps one table more, sealed under ``keyring``."""
    store = SqliteStore(data / "tables.db")

    async def put() -> None:
        token = keyring.seal(b"a state", table_id, 0)
        record = TableRecord(table_id=table_id, game="trentuno", token=token, seq=0, seat_keys=(), settings=b"{}")
        await store.create(record, Step(0, b"", {}))
        await store.aclose()

    asyncio.run(put())


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    """A data directory whose store holds a table sealed under the key the server made there on its first start."""
    first = make_keyring(embedded(tmp_path), keep_in=tmp_path)
    store_a_table(tmp_path, first)
    yield tmp_path


def start(data: Path, **changes: object) -> Keyring:
    """The keys ``mazziere serve`` reads at start (the store open, as it is then)."""
    config = embedded(data, **changes)
    store = SqliteStore(data / "tables.db")
    try:
        return make_keyring(config, keep_in=data, store=store)
    finally:
        asyncio.run(store.aclose())


def refusal(data: Path, **changes: object) -> str:
    with pytest.raises(KeyFileError) as refused:
        start(data, **changes)
    return str(refused.value)


def test_a_store_with_tables_and_no_key_file_refuses_to_start_and_makes_no_key(data: Path) -> None:
    kept = (data / KEY_FILE).read_text()
    (data / KEY_FILE).unlink()
    message = refusal(data)
    assert "is missing" in message and "Restore" in message and FRESH in message
    assert not (data / KEY_FILE).exists()  # nothing made: restoring the file brings the tables back
    (data / KEY_FILE).write_text(kept)
    (data / KEY_FILE).chmod(0o600)
    assert start(data).primary == kept.split(":")[0]


def test_a_fresh_start_on_purpose_makes_a_new_key_and_says_so(data: Path) -> None:
    old = (data / KEY_FILE).read_text().split(":")[0]
    (data / KEY_FILE).unlink()
    with capture_logs() as logs:
        new = start(data, new_seal_key=True)
    assert new.primary != old and (data / KEY_FILE).stat().st_mode & 0o777 == 0o600
    assert any(line["event"] == "sealing_key_replaced" and line["log_level"] == "warning" for line in logs)
    store_a_table(data, new, "t_2")  # the new key seals the tables opened from now on
    assert start(data).primary == new.primary


def test_an_empty_store_with_no_key_file_makes_one_as_on_a_first_start(tmp_path: Path) -> None:
    asyncio.run(SqliteStore(tmp_path / "tables.db").aclose())  # a store, empty
    made = start(tmp_path)
    assert (tmp_path / KEY_FILE).read_text().startswith(made.primary + ":")


def test_an_empty_or_malformed_key_file_is_refused_and_never_quoted(data: Path) -> None:
    key_file = data / KEY_FILE
    key_file.write_text("")
    assert "is empty" in refusal(data)
    secret = new_key_entry().split(":")[1]
    for malformed in (secret.encode(), f"{secret}:k1".encode(), f"k1:{secret[:10]}".encode(), b"\x00\xff garbage"):
        key_file.write_bytes(malformed)
        message = refusal(data)
        assert "malformed" in message or "cannot be read" in message, message
        assert "restore it from a backup" in message
        assert not [piece for piece in fragments(secret) if piece in message]


def test_a_key_file_open_to_group_or_others_is_refused(data: Path) -> None:
    for mode in (0o644, 0o640, 0o604, 0o660):
        (data / KEY_FILE).chmod(mode)
        message = refusal(data)
        assert f"mode {mode:04o}" in message and "chmod 600" in message
    (data / KEY_FILE).chmod(0o600)
    start(data)


def test_another_stores_key_file_is_refused_unless_starting_fresh_on_purpose(data: Path) -> None:
    (data / KEY_FILE).write_text(new_key_entry() + "\n")
    message = refusal(data)
    assert "does not open the tables" in message and FRESH in message
    with capture_logs() as logs:
        start(data, new_seal_key=True)
    assert [line["event"] for line in logs if line["log_level"] == "warning"] == ["sealing_key_not_opening"]


def _serve(data: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "MAZZIERE_HOST": "127.0.0.1",
        "MAZZIERE_PORT": str(free_port()),
        "MAZZIERE_METRICS_PORT": "0",
        "MAZZIERE_REST_PORT": "0",
        "MAZZIERE_DATA_DIR": str(data),
    }
    env.pop("MAZZIERE_SEAL_KEYS", None)
    env.pop("MAZZIERE_SEAL_KEYS_FILE", None)
    command = [sys.executable, "-m", "mazziere.services.cli", "serve"]
    return subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, timeout=60)


def _missing(key_file: Path) -> None:
    key_file.unlink()


def _empty(key_file: Path) -> None:
    key_file.write_text("")


def _malformed(key_file: Path) -> None:
    key_file.write_text("not a key\n")


def _open_to_others(key_file: Path) -> None:
    key_file.chmod(0o644)


def _another_stores(key_file: Path) -> None:
    key_file.write_text(new_key_entry() + "\n")


BROKEN = {
    "missing": (_missing, "is missing"),
    "empty": (_empty, "is empty"),
    "malformed": (_malformed, "is malformed"),
    "open to others": (_open_to_others, "is open to group or others"),
    "another store's": (_another_stores, "does not open the tables"),
}


@pytest.mark.parametrize(("breaks", "says"), list(BROKEN.values()), ids=list(BROKEN))
def test_mazziere_serve_stops_with_one_startup_failed_line_and_no_traceback(
    data: Path, breaks: Callable[[Path], None], says: str
) -> None:
    breaks(data / KEY_FILE)
    done = _serve(data)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    failed = [json.loads(line) for line in done.stderr.splitlines() if '"startup_failed"' in line]
    assert len(failed) == 1 and failed[0]["level"] == "error"
    assert says in failed[0]["error"] and str(data / KEY_FILE) in failed[0]["error"]
