"""The knob layer: one declaration gives validation, spec parsing, flags, saved config and argv."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from meeplezoo.knobs import Knob, Knobs, check_config, config_argv, knob, knobs_of

TABLE = Knobs("demo", [
    Knob("sims", int, 400, "simulations per decision", low=1, optional=True),
    Knob("c", float, 1.0, "exploration constant", low=0),
    Knob("temp", float, 1.0, "prior temperature", low=0, low_open=True),
    Knob("mode", str, "win", "reward", choices=("win", "rank", "score")),
    Knob("reuse", bool, False, "keep the tree"),
    Knob("rollout", str, "random", "rollout policy"),
])


@dataclass(frozen=True)
class Cfg:
    who = "trainer"
    game: str = knob("kerala", "game id")
    sims: int = knob(64, "simulations", low=1)
    lr: float = knob(1e-3, "learning rate", low=0, low_open=True)
    opponents: dict = knob({"self": 1.0}, "seat weights")
    against: tuple = knob(("random",), "evaluation opponents")
    depth: int | None = knob(None, "cut-off", type=int, low=0)

    def __post_init__(self) -> None:
        check_config(self)


def test_validate_fills_defaults_and_normalises():
    v = TABLE.validate({"c": 2, "sims": None})
    assert v == {"sims": None, "c": 2.0, "temp": 1.0, "mode": "win", "reuse": False, "rollout": "random"}
    assert isinstance(v["c"], float)


@pytest.mark.parametrize("name,value,msg", [
    ("sims", 0, "demo: sims must be an int >= 1 (or none), got 0"),
    ("sims", True, "demo: sims must be an int >= 1 (or none), got True"),
    ("sims", 2.5, "got 2.5"),
    ("c", -1, "demo: c must be a number >= 0, got -1"),
    ("c", float("nan"), "got nan"),
    ("temp", 0, "demo: temp must be a number > 0, got 0"),
    ("mode", "lose", "demo: mode must be one of win, rank, score, got 'lose'"),
    ("reuse", 1, "demo: reuse must be true or false, got 1"),
])
def test_bad_values_are_named(name, value, msg):
    with pytest.raises(ValueError, match=msg.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        TABLE.validate({name: value})


def test_unknown_option_lists_the_known_ones():
    with pytest.raises(ValueError, match="demo: unknown option 'simz'; known options: sims, c, temp"):
        TABLE.validate({"simz": 3})


def test_spec_text_parses_and_round_trips():
    parsed = TABLE.parse_options({"sims": "200", "c": "0.7", "reuse": "true", "rollout": "heuristic"})
    assert parsed == {"sims": 200, "c": 0.7, "reuse": True, "rollout": "heuristic"}
    full = TABLE.validate(parsed)
    assert TABLE.parse_options(dict(p.split("=") for p in TABLE.spec_text(full).split(":")[1:])) == parsed


def test_flags_round_trip_and_help():
    parser = argparse.ArgumentParser()
    TABLE.add_arguments(parser)
    values = TABLE.validate({"sims": 50, "mode": "rank", "reuse": True})
    argv = TABLE.to_argv(values)
    assert argv == ["--sims", "50", "--mode", "rank", "--reuse", "true"]
    assert TABLE.from_args(parser.parse_args(argv)) == values
    assert TABLE.from_args(parser.parse_args(argv), given_only=True) == {"sims": 50, "mode": "rank", "reuse": True}
    assert "simulations per decision (an int >= 1; default: 400)" in " ".join(parser.format_help().split())
    with pytest.raises(SystemExit):
        parser.parse_args(["--c", "-2"])


def test_dataclass_config_round_trips_through_argv_and_json():
    cfg = Cfg(sims=10, lr=1, opponents={"self": 0.5, "heuristic": 0.5}, against=["random", "heuristic"], depth=3)
    assert cfg.lr == 1.0 and isinstance(cfg.lr, float) and cfg.against == ("random", "heuristic")
    table = knobs_of(Cfg)
    parser = argparse.ArgumentParser()
    table.add_arguments(parser)
    again = Cfg(**table.from_args(parser.parse_args(config_argv(cfg))))
    assert again == cfg
    assert Cfg(**table.from_json(table.to_json({k.name: getattr(cfg, k.name) for k in table}))) == cfg
    assert Cfg().opponents is not Cfg().opponents  # mutable defaults are copied


def test_dataclass_config_refuses_bad_fields_by_name():
    with pytest.raises(ValueError, match="trainer: sims must be an int >= 1, got 0"):
        Cfg(sims=0)
    with pytest.raises(ValueError, match="trainer: lr must be a number > 0, got 0"):
        Cfg(lr=0)
    with pytest.raises(ValueError, match="trainer: depth must be an int >= 0, got -1"):
        Cfg(depth=-1)
