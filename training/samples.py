"""The sample arrays of expert iteration: one row per decision, for one player count or several.

A set of samples is a dict of equal-length arrays:

* ``obs`` ``(N, width)`` float16: the observation of the player deciding, padded with zeros to the widest
  observation among the player counts the samples hold (a row of a smaller count is read as its first
  ``observation_size`` values);
* ``mask`` ``(N, actions)`` bool: the legal actions; ``pi`` ``(N, actions)`` float16: the policy target;
* ``z`` ``(N, seats)`` float32: the value target of every seat, egocentric (entry 0 is the deciding player's,
  then the seats in turn order), padded with zeros to the largest player count among the samples;
* ``players`` ``(N,)`` int8: the player count of the sample's game; entries ``z[i, :players[i]]`` are its
  seats, the rest is padding (:func:`seat_mask`).

The actions are the same for every player count of a game, so ``mask`` and ``pi`` never need padding.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: the arrays of a set of samples
SAMPLE_KEYS = ("obs", "mask", "pi", "z", "players")


def pack(obs: list, masks: list, pis: list, z: np.ndarray, game: Any) -> dict[str, np.ndarray]:
    """The samples of one game of ``game`` from its per-decision lists and value targets ``z (N, players)``."""
    if not obs:
        return empty(game.observation_shape[0], game.num_actions, game.num_players)
    return {"obs": np.stack(obs), "mask": np.stack(masks), "pi": np.stack(pis), "z": np.asarray(z, np.float32),
            "players": np.full(len(obs), game.num_players, dtype=np.int8)}


def empty(width: int, actions: int, seats: int) -> dict[str, np.ndarray]:
    """No samples, with arrays of the given widths."""
    return {"obs": np.zeros((0, width), np.float16), "mask": np.zeros((0, actions), bool),
            "pi": np.zeros((0, actions), np.float16), "z": np.zeros((0, seats), np.float32),
            "players": np.zeros(0, np.int8)}


def widths(data: dict[str, np.ndarray]) -> tuple[int, int]:
    """``(observation width, seats)`` of a set of samples."""
    return int(data["obs"].shape[1]), int(data["z"].shape[1])


def pad(data: dict[str, np.ndarray], width: int, seats: int) -> dict[str, np.ndarray]:
    """``data`` with ``obs`` padded to ``width`` columns and ``z`` to ``seats`` (zeros; never narrower)."""
    w, s = widths(data)
    if w > width or s > seats:
        raise ValueError(f"samples of width {w} and {s} seats do not fit {width} and {seats}")
    out = dict(data)
    if w < width:
        out["obs"] = np.pad(data["obs"], ((0, 0), (0, width - w)))
    if s < seats:
        out["z"] = np.pad(data["z"], ((0, 0), (0, seats - s)))
    return out


def concat(parts: Sequence[dict[str, np.ndarray]], width: int = 0, seats: int = 0,
           actions: int | None = None) -> dict[str, np.ndarray]:
    """The samples of ``parts`` one after the other, padded to the widest of them (and at least ``width``
    and ``seats``); with no samples at all, empty arrays of those widths (``actions`` wide)."""
    width = max([width, *(widths(p)[0] for p in parts)])
    seats = max([seats, *(widths(p)[1] for p in parts)])
    full = [with_players(p) for p in parts if len(p["obs"])]
    if not full:
        if actions is None:
            actions = next((p["mask"].shape[1] for p in parts), 0)
        return empty(width, actions, seats)
    full = [pad(p, width, seats) for p in full]
    return {k: np.concatenate([p[k] for p in full]) for k in SAMPLE_KEYS}


def with_players(data: dict[str, np.ndarray], players: int | None = None) -> dict[str, np.ndarray]:
    """``data`` with its ``players`` array (samples saved before it existed: every row of ``players``, default
    the width of ``z``)."""
    if "players" in data:
        return data
    n = int(data["z"].shape[1]) if players is None else int(players)
    return {**data, "players": np.full(len(data["obs"]), n, dtype=np.int8)}


def seat_mask(players: np.ndarray, seats: int) -> np.ndarray:
    """``(N, seats)`` bool: the entries of ``z`` that are seats of the sample's game."""
    return np.arange(seats)[None, :] < np.asarray(players)[:, None]
