"""``mazziere simulate``: the report, bad arguments, and the clear error when matplotlib is missing."""

from __future__ import annotations

import builtins
from typing import Any

import pytest

from mazziere.services.cli import main


def test_simulate_prints_each_seat_with_an_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "saltacavallo", "--bots", "best,cautious,random", "--hands", "5"]) == 0
    out, err = capsys.readouterr()
    assert "5 hands" in out
    for seat, bot in enumerate(("best", "cautious", "random")):
        assert f"{seat:>4}  {bot}" in out
    assert "100% 5/5 hands" in err


def test_simulate_refuses_an_unknown_policy(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "trentuno", "--bots", "best,clever,random", "--hands", "5"]) == 2
    assert "unknown policy 'clever'" in capsys.readouterr().err


def test_plot_without_matplotlib_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["simulate", "sette_e_mezzo", "--hands", "2", "--plot", "out.png"]) == 2
    assert "mazziere[plot]" in capsys.readouterr().err
