"""``mazziere serve``: run the gRPC service and the REST gateway, configured from the environment
(docs/configuration.md).

``mazziere gateway --target host:port``: the REST gateway alone, in front of a gRPC service elsewhere.

``mazziere simulate GAME --bots best,random --hands N``: bots play each other (docs/bots.md); ``mazziere rtp``:
Sette e mezzo's exact CASINO return to player.

``mazziere verify RECORD.ndjson``: check a table's public record against its committed dealing
(docs/fairness.md); exits 0 when it holds, 1 naming the first mismatch.

``mazziere --version``: the installed distribution's version, the one ListGames reports as ``server_version``.
"""

from __future__ import annotations

import argparse
import sys

from mazziere.services.app import serve_embedded, serve_split
from mazziere.services.cli import simulate
from mazziere.services.cli.verify import Mismatch, events_of, verify_record
from mazziere.services.config import Config, ConfigError
from mazziere.services.core.logs import configure, get_logger
from mazziere.services.table.games import server_version
from mazziere.services.table.sealing import new_key_entry


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mazziere", description="Mazziere, a stateless card-game rules service.")
    parser.add_argument("--version", action="version", version=f"mazziere {server_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="serve gRPC and REST (configured by MAZZIERE_* variables: docs/configuration.md)")
    gateway = sub.add_parser("gateway", help="serve only the REST gateway, calling the gRPC service at --target")
    gateway.add_argument(
        "--target",
        help="the gRPC service: host:port, or dns:///name:port or ipv4:a:port,b:port to balance calls round robin over "
        "every address (default: MAZZIERE_GATEWAY_TARGET)",
    )
    sub.add_parser("new-key", help="print a fresh sealing key entry (kid:base64key) for MAZZIERE_SEAL_KEYS")
    simulate.add_parsers(sub)
    verify = sub.add_parser("verify", help="check a table's public record (NDJSON; - for stdin): docs/fairness.md")
    verify.add_argument("record", help="the record: one JSON update, replay step or event a line")
    verify.add_argument("--partial", action="store_true", help="the record begins mid-table (a late watcher's)")
    args = parser.parse_args(argv)
    if args.command == "verify":
        return _verify(args.record, partial=args.partial)
    if args.command == "simulate":
        return simulate.simulate(args)
    if args.command == "rtp":
        return simulate.rtp(args)
    if args.command == "new-key":
        print(new_key_entry())
        return 0
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"mazziere: {exc}", file=sys.stderr)
        return 2
    configure(config.log_level, config.log_format)
    try:
        if args.command == "gateway":
            serve_split(config, args.target or config.gateway_target)
        else:
            serve_embedded(config)
    except (ValueError, OverflowError, OSError, RuntimeError) as exc:  # bad address, port in use, bind refused
        get_logger().error("startup_failed", error=str(exc))
        return 1
    return 0


def _verify(path: str, *, partial: bool) -> int:
    try:
        with open(sys.stdin.fileno() if path == "-" else path, encoding="utf-8", closefd=path != "-") as lines:
            result = verify_record(events_of(lines), partial=partial)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"mazziere verify: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    except Mismatch as exc:
        print(f"NOT VERIFIED: {exc}")
        return 1
    print(result.summary())
    return 0 if result.ok else 1
