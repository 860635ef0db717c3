"""Exact advice for Sette e mezzo (filled in below)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.bots.values import Advice
from engine.table import Action


def advise(state: Any, seat: int, actions: Sequence[Action]) -> Advice | None:
    return None
