"""``mazziere serve``: run the gRPC service configured from the environment (see the README)."""

from __future__ import annotations

import argparse
import sys

from services.config import Config, ConfigError
from services.logs import configure, get_logger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mazziere", description="Mazziere, a stateless card-game rules service.")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="serve gRPC (configured by MAZZIERE_* environment variables; see the README)")
    sub.add_parser("new-key", help="print a fresh sealing key entry (kid:base64key) for MAZZIERE_SEAL_KEYS")
    args = parser.parse_args(argv)
    if args.command == "new-key":
        import base64
        import os
        import time

        print(f"k{time.strftime('%Y%m%d')}:{base64.b64encode(os.urandom(32)).decode()}")
        return 0
    try:
        config = Config.from_env()
    except ConfigError as exc:
        print(f"mazziere: {exc}", file=sys.stderr)
        return 2
    configure(config.log_level)
    from services.server import serve

    try:
        serve(config)
    except (ValueError, OSError) as exc:
        get_logger().error("startup_failed", error=str(exc))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
