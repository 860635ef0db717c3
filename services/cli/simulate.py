"""``mazziere simulate`` and ``mazziere rtp``: bots playing each other, and Sette e mezzo's exact CASINO return.

The play itself is :func:`engine.bots.match.play_match`; this module draws the progress bar (stderr, plain
text), prints the results with 95 % confidence intervals, and with ``--plot`` draws them with matplotlib (the
optional ``plot`` extra: ``pip install -e '.[plot]'``).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from mazziere import engine
from mazziere.engine.bots import POLICIES
from mazziere.engine.bots.match import Match, casino_returns, play_match
from mazziere.engine.bots.sette_e_mezzo import casino_rtp, rtp_profiles
from mazziere.engine.games.sette_e_mezzo.rules import CASINO
from mazziere.engine.rules import with_options

Z95 = 1.96


def add_parsers(sub: Any) -> None:
    sim = sub.add_parser("simulate", help="bots play N hands of a game; per-seat results with confidence intervals")
    sim.add_argument("game", help="sette_e_mezzo, saltacavallo or trentuno")
    sim.add_argument("--preset", default=None, help="the game's preset (default: its first)")
    sim.add_argument(
        "--bots", default="best,random", help=f"one policy per seat, comma separated ({', '.join(POLICIES)})"
    )
    sim.add_argument("--hands", type=int, default=1000, help="hands to play (default 1000)")
    sim.add_argument("--seed", default="mazziere simulate", help="the match's seed (text)")
    sim.add_argument("--plot", metavar="FILE.png", help="draw chips over hands and the results' spread (matplotlib)")
    rtp = sub.add_parser("rtp", help="Sette e mezzo CASINO: the exact return to player of optimal play")
    rtp.add_argument("--hands", type=int, default=20000, help="hands of the Monte Carlo check beside it (0: none)")


def simulate(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    bad = [b for b in bots if b not in POLICIES]
    if bad or args.hands < 1:
        what = f"unknown policy {bad[0]!r}; policies are: {', '.join(POLICIES)}" if bad else "--hands must be >= 1"
        print(f"mazziere: {what}", file=sys.stderr)
        return 2
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("mazziere: --plot needs matplotlib: pip install 'mazziere[plot]'", file=sys.stderr)
            return 2
    bar = Progress(args.hands)
    try:
        match = play_match(args.game, bots, args.hands, preset=args.preset, seed=args.seed.encode(), progress=bar)
    except engine.Rejected as exc:
        print(f"\nmazziere: {exc}", file=sys.stderr)
        return 2
    bar.done()
    print(report(match, args.game, args.preset))
    if args.plot:
        plot(match, args.plot)
        print(f"plot written to {args.plot}")
    return 0


def report(match: Match, game: str, preset: str | None) -> str:
    n = len(match.results)
    lines = [f"{game} {preset or ''} — {n} hands, chips per hand (95 % confidence interval)".replace("  ", " ")]
    lines.append(f"{'seat':>4}  {'policy':<9} {'mean':>9} {'± 95 %':>8} {'total':>9}")
    for s, bot in enumerate(match.bots):
        mean, se, total = match.summary(s)
        lines.append(f"{s:>4}  {bot:<9} {mean:>9.4f} {Z95 * se:>8.4f} {total:>9}")
    return "\n".join(lines)


class Progress:
    """A plain-text progress bar on stderr, redrawn at most every percent."""

    def __init__(self, total: int, width: int = 30) -> None:
        self.total, self.width, self.shown, self.start = total, width, -1, time.monotonic()

    def __call__(self, done: int) -> None:
        percent = done * 100 // self.total
        if percent != self.shown:
            self.shown = percent
            filled = self.width * done // self.total
            elapsed = time.monotonic() - self.start
            bar = "#" * filled + "." * (self.width - filled)
            sys.stderr.write(f"\r[{bar}] {percent:3d}% {done}/{self.total} hands {elapsed:.0f}s")
            sys.stderr.flush()

    def done(self) -> None:
        sys.stderr.write("\n")


def plot(match: Match, path: str) -> None:
    """Chips over hands per seat, and the spread of per-hand results per seat."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    for s, bot in enumerate(match.bots):
        running, total = [], 0
        for r in match.results:
            total += r[s]
            running.append(total)
        left.plot(running, label=f"seat {s} ({bot})")
        right.hist([r[s] for r in match.results], bins=30, alpha=0.5, label=f"seat {s} ({bot})")
    left.set(title="chips won over the hands", xlabel="hand", ylabel="chips")
    right.set(title="result of a hand", xlabel="chips", ylabel="hands")
    left.legend()
    right.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def rtp(args: argparse.Namespace) -> int:
    """Print the exact CASINO returns (optimal play, heads-up, fresh shuffle), each with a Monte Carlo figure
    played through ``engine.apply`` (a stake of ``CHECK_STAKE`` every hand, so that 3:2 pays exactly, then the
    ``best`` policy; its return per chip staked)."""
    for name, options in rtp_profiles().items():
        exact = casino_rtp(with_options(CASINO, options))
        line = f"{name}: exact {100 * exact:.4f} %"
        if args.hands > 0:
            mean, se = casino_returns(options, args.hands, progress=Progress(args.hands))
            sys.stderr.write("\n")
            line += f"; Monte Carlo {100 * (1 + mean):.3f} % ± {100 * se:.3f} % (1 s.e., {args.hands} hands)"
            line += f", {(1 + mean - exact) / se:+.2f} s.e. from exact" if se else ""
        print(line)
    return 0
