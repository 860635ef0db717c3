"""Sealed state tokens and seat keys.

A token is the engine's state bytes, padded, encrypted and authenticated with AES-256-GCM::

    version (1) | len(kid) (1) | kid | len(table_id) (1) | table_id | seq (8, big endian) | nonce (12) | ciphertext

Everything before the nonce is the associated data, so the key id, the table id and the sequence number are
readable without the key but cannot be changed without breaking the tag. GCM keeps the plaintext's length, so
the state is padded (``0x80`` then zeros) to the next multiple of :data:`PAD_TO` bytes: a token's length tells
the game's public size (seats, names, how far the table has gone), never what a hidden card or total is.
The first key of the keyring seals; every key opens (rotation). A seat key is an HMAC of the table id and the
seat under a key derived from the sealing key: nothing is stored, and only the server can make one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

VERSION = 2
"""Version 1 sealed JSON states, unpadded; this server refuses them as written by an earlier version."""
NONCE_BYTES = 12
GOOD_KEYS_KEPT = 8192
"""Seat keys remembered as good, at most (a set of short strings: about 2 MiB)."""
PAD_TO = 256
_KID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SEAT_LABEL = b"mazziere seat key v1"


class TokenError(ValueError):
    """A token that cannot be opened: garbage, forged, altered, or sealed under a key we do not hold."""


class OldTokenError(TokenError):
    """A token sealed by an earlier version of the service, whose state this engine no longer reads."""


@dataclass(frozen=True, slots=True)
class Header:
    """The readable part of a token."""

    kid: str
    table_id: str
    seq: int


class Keyring:
    """Named AES keys: the first seals and derives new seat keys; all open tokens and check seat keys."""

    def __init__(self, keys: list[tuple[str, bytes]]) -> None:
        if not keys:
            raise ValueError("a keyring needs at least one key")
        first: dict[str, int] = {}
        for position, (kid, key) in enumerate(keys, 1):
            if not _KID.match(kid):
                raise ValueError(f"sealing key entry {position}: the key id must be 1..64 of A-Z a-z 0-9 _ -")
            if len(key) not in (16, 24, 32):
                raise ValueError(f"sealing key entry {position}: the key is {len(key)} bytes; AES needs 16, 24 or 32")
            if kid in first:  # the later key would silently replace the earlier: tokens of one would not open
                raise ValueError(
                    f"sealing key entries {first[kid]} and {position} have the same key id; every key needs an id of "
                    "its own (make keys with `mazziere new-key`)"
                )
            first[kid] = position
        self.primary = keys[0][0]
        self._aead = {kid: AESGCM(key) for kid, key in keys}
        self._good_keys: set[tuple[str, str, int]] = set()
        self._seat = {kid: hmac.new(key, _SEAT_LABEL, hashlib.sha256).digest() for kid, key in keys}

    @property
    def kids(self) -> tuple[str, ...]:
        return tuple(self._aead)

    @classmethod
    def ephemeral(cls) -> Keyring:
        return cls([(f"ephemeral-{os.urandom(3).hex()}", AESGCM.generate_key(bit_length=256))])

    @classmethod
    def parse(cls, text: str) -> Keyring:
        """Read ``kid:base64key`` entries separated by commas, spaces or new lines (``#`` starts a comment).

        Errors name an entry by its position only: a mis-written entry may hold a key where the key id should be
        (swapped, or no key id at all), and startup errors are logged.
        """
        keys = []
        position = 0
        for line in text.splitlines():
            line = line.split("#", 1)[0]
            for entry in line.replace(",", " ").split():
                position += 1
                kid, sep, b64 = entry.partition(":")
                if not sep or not kid or not b64:
                    raise ValueError(f"sealing key entry {position} is not kid:base64key")
                if not _KID.match(kid):
                    raise ValueError(
                        f"sealing key entry {position}: the key id (before the colon) must be 1..64 of "
                        "A-Z a-z 0-9 _ - (are the key id and the key swapped?)"
                    )
                try:
                    std = b64.replace("-", "+").replace("_", "/")
                    key = base64.b64decode(std + "=" * (-len(std) % 4), validate=True)
                except ValueError:
                    raise ValueError(f"sealing key entry {position}: the key (after the colon) is not base64") from None
                if len(key) not in (16, 24, 32):
                    raise ValueError(
                        f"sealing key entry {position}: the key is {len(key)} bytes; AES needs 16, 24 or 32 "
                        "(are the key id and the key swapped?)"
                    )
                keys.append((kid, key))
        return cls(keys)

    @classmethod
    def from_config(cls, inline: str, path: str) -> Keyring | None:
        """The keys of the environment variable then of the file; ``None`` if neither has any."""
        text = inline
        if path:
            text += "\n" + Path(path).read_text()
        return cls.parse(text) if text.strip() else None

    # -- tokens ----------------------------------------------------------------------------------

    def seal(self, payload: bytes, table_id: str, seq: int) -> bytes:
        kid = self.primary.encode()
        tid = table_id.encode()
        if len(tid) > 255:
            raise ValueError("table id too long")
        head = bytes((VERSION, len(kid))) + kid + bytes((len(tid),)) + tid + struct.pack(">Q", seq)
        nonce = os.urandom(NONCE_BYTES)
        padded = payload + b"\x80" + bytes(-(len(payload) + 1) % PAD_TO)
        return head + nonce + self._aead[self.primary].encrypt(nonce, padded, head)

    def open(self, token: bytes) -> tuple[Header, bytes]:
        header, head_len = read_header(token)
        aead = self._aead.get(header.kid)
        if aead is None:
            raise TokenError("the token was sealed under a key this server does not hold")
        nonce = token[head_len : head_len + NONCE_BYTES]
        try:
            padded = aead.decrypt(nonce, token[head_len + NONCE_BYTES :], token[:head_len])
        except Exception:  # cryptography raises InvalidTag; anything else is garbage too
            raise TokenError("the token is forged or altered") from None
        payload = padded.rstrip(b"\x00")
        if payload[-1:] != b"\x80":  # sealed by us, so never: a key holder wrote it
            raise TokenError("the token's padding is malformed")
        return header, payload[:-1]

    # -- seat keys -------------------------------------------------------------------------------

    def seat_key(self, table_id: str, seat: int) -> str:
        return f"{self.primary}.{self._mac(self.primary, table_id, seat)}"

    def check_seat_key(self, key: str, table_id: str, seat: int) -> bool:
        """True if ``key`` is the key of ``seat`` at ``table_id``. Keys found good lately are remembered (a host
        sends the same few keys on every move); a wrong key is checked afresh each time, in constant time."""
        if (key, table_id, seat) in self._good_keys:
            return True
        kid, _, mac = key.partition(".")
        if kid not in self._seat or not mac:
            return False
        # Bytes, not str: compare_digest refuses non-ASCII strings, and a caller may send any text.
        good = hmac.compare_digest(mac.encode(), self._mac(kid, table_id, seat).encode())
        if good:
            if len(self._good_keys) >= GOOD_KEYS_KEPT:
                self._good_keys.clear()
            self._good_keys.add((key, table_id, seat))
        return good

    def _mac(self, kid: str, table_id: str, seat: int) -> str:
        digest = hmac.new(self._seat[kid], f"{table_id}\x00{seat}".encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def new_key_entry(now: float | None = None) -> str:
    """A fresh ``kid:base64key`` entry: a 32-byte AES-256 key under an id of its own.

    The id is the UTC time to the second and 8 random characters (``k20261130T220600Z-4f3kq2xa``), so two keys
    made on the same day, or in the same second, never share an id.
    """
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(time.time() if now is None else now))
    kid = f"k{stamp}-{base64.b32encode(secrets.token_bytes(5)).decode().lower()}"
    assert _KID.match(kid)
    return f"{kid}:{base64.b64encode(secrets.token_bytes(32)).decode()}"


def read_header(token: bytes) -> tuple[Header, int]:
    """The token's header and its length; raise :class:`TokenError` if it cannot be a token."""
    try:
        if token[0] not in (1, VERSION):
            raise TokenError("not a state token (unknown version)")
        pos = 1
        n = token[pos]
        kid = token[pos + 1 : pos + 1 + n].decode("ascii")
        pos += 1 + n
        n = token[pos]
        table_id = token[pos + 1 : pos + 1 + n].decode("utf-8")
        pos += 1 + n
        (seq,) = struct.unpack_from(">Q", token, pos)
        pos += 8
    except (IndexError, UnicodeDecodeError, struct.error):
        raise TokenError("not a state token (truncated)") from None
    if len(token) < pos + NONCE_BYTES + 16:
        raise TokenError("not a state token (truncated)")
    if token[0] == 1:
        raise OldTokenError("the token was sealed by an earlier version of the service; start a new table")
    return Header(kid, table_id, seq), pos
