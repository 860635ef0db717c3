"""The sealing key the embedded server keeps in its data directory: made once, private to its user, and checked
at every start against the tables its store already holds.

The file holds one ``kid:base64key`` line. Without it no stored table opens again: every player would be refused
``INVALID_TOKEN``. So the server never makes a new key beside a store that holds tables sealed under another, unless
told to start fresh (``MAZZIERE_NEW_SEAL_KEY``); and it refuses a key file that is empty, malformed, readable by
group or others (anyone who reads it reads every table's hidden cards), or that does not open the store's latest
table. Each refusal is a :class:`KeyFileError` whose message says what happened and what to do; it never quotes the
file's content.
"""

from __future__ import annotations

import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

from mazziere.services.core.logs import get_logger
from mazziere.services.table.sealing import Keyring, OldTokenError, TokenError, new_key_entry, read_header

FRESH_START = "MAZZIERE_NEW_SEAL_KEY=true"
"""The setting that starts with a new key even though the stored tables were sealed under another."""


class KeyFileError(ValueError):
    """The key file cannot be used; the message says why and what to do (and holds no key material)."""


def kept_keyring(path: Path, *, latest_token: Callable[[], bytes | None], store: str, fresh: bool) -> Keyring:
    """The key kept at ``path``: made there if missing (unless the store holds tables, see the module), read and
    checked otherwise. ``latest_token``: the token of the store's table changed last (None: it holds none);
    ``store``: the store as the messages name it; ``fresh``: start fresh on purpose (:data:`FRESH_START`)."""
    latest = latest_token()
    if not path.exists():
        if latest is not None and not fresh:
            raise KeyFileError(_missing(path, store))
        _create(path)
        if latest is not None:
            get_logger().warning(
                "sealing_key_replaced",
                path=str(path),
                message=f"{FRESH_START}: a new sealing key; the tables already in {store} will not open again",
            )
    keyring = read_key_file(path)
    refusal = None if latest is None else _not_opening(keyring, latest, path, store)
    if refusal is not None and not fresh:
        raise KeyFileError(refusal)
    if refusal is not None:
        get_logger().warning("sealing_key_not_opening", path=str(path), message=f"{FRESH_START}: {refusal}")
    get_logger().info("sealing_key_file", path=str(path), kid=keyring.primary)
    return keyring


def read_key_file(path: Path) -> Keyring:
    """The keys of the kept file, refused if others may read it, or if it is unreadable, empty or malformed."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        text = path.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "it is not a text file of kid:base64key"
        raise KeyFileError(f"the sealing key file {path} cannot be read ({reason}); {_RESTORE}") from None
    if mode & 0o077:
        raise KeyFileError(
            f"the sealing key file {path} is open to group or others (mode {mode:04o}): whoever reads it can read "
            f"every hidden card of every table. Make it private (chmod 600 {path}) and start again; if someone else "
            "may have read it, the hidden cards of the tables stored so far are theirs too"
        )
    if not text.strip():
        raise KeyFileError(
            f"the sealing key file {path} is empty: it should hold the kid:base64key line this server made on its "
            f"first start; {_RESTORE}; if the store holds no table you need, remove the file and a new key is made"
        )
    try:
        return Keyring.parse(text)
    except ValueError as exc:  # names the entry by its position, never its text
        raise KeyFileError(f"the sealing key file {path} is malformed: {exc}; {_RESTORE}") from None


_RESTORE = "restore it from a backup (one line, kid:base64key, mode 0600) and start again"


def _missing(path: Path, store: str) -> str:
    return (
        f"the sealing key file {path} is missing, and the store {store} holds tables sealed under it: with a new "
        f"key none of them would open (their players refused INVALID_TOKEN). Restore {path} from a backup (one "
        f"line, kid:base64key, mode 0600) and start again; or, to start fresh on purpose, start once with "
        f"{FRESH_START} (a new key is made and the stored tables never open again)"
    )


def _not_opening(keyring: Keyring, token: bytes, path: Path, store: str) -> str | None:
    """Why the key file does not open the store's latest table (another server's, an older backup's), or None."""
    try:
        keyring.open(token)
    except OldTokenError:  # sealed by an earlier version of the service: no key opens it, this one is not at fault
        return None
    except TokenError:
        try:
            sealed_under = f"key {read_header(token)[0].kid}"
        except TokenError:
            sealed_under = "an unreadable key"
        return (
            f"the sealing key file {path} (key {keyring.primary}) does not open the tables of the store {store}: the "
            f"latest was sealed under {sealed_under}. Restore the key file that belongs with this store; or, to "
            f"start fresh on purpose, start once with {FRESH_START} (the stored tables never open again)"
        )
    return None


def _create(path: Path) -> None:
    """Write a new key, mode 0600, whole or not at all: written and synced under another name, then linked into
    place (a crash never leaves an empty key file; a file made meanwhile by another process is kept)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    draft = path.with_name(f".{path.name}.{secrets.token_hex(4)}")
    fd = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(new_key_entry() + "\n")
            out.flush()
            os.fsync(out.fileno())
        os.link(draft, path)
    except FileExistsError:
        return
    finally:
        draft.unlink(missing_ok=True)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    get_logger().info("sealing_key_created", path=str(path), message="no MAZZIERE_SEAL_KEYS: made one here")
