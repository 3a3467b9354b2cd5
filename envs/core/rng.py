"""A tiny, fast, serialisable random generator for game engines.

Engines clone states millions of times during search; a numpy ``Generator``
costs microseconds to copy and its state is a nested dict.  ``Rng`` is a
SplitMix64 stream whose whole state is one Python int, so ``clone()`` is a
single attribute copy and ``to_json`` stores a number.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

import numpy as np

_MASK = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
# the stream vectorized for Rng.shuffle_many: the k-th next state is s + k * _GAMMA (mod 2**64)
_MIN_DRAWS, _MAX_DRAWS = 16, 512  # below: numpy does not pay; above: beyond the tables
_GAMMA_K = np.arange(1, _MAX_DRAWS + 1, dtype=np.uint64) * np.uint64(_GAMMA)
_BOUNDS = np.arange(_MAX_DRAWS + 1, 1, -1, dtype=np.uint64)  # the bounds i + 1 of a Fisher-Yates pass
_BOUNDS_BY_SIZES: dict[tuple[int, ...], np.ndarray] = {}  # the bounds of the passes over lists of these sizes
_BOUNDS_KEPT = 4096  # size combinations kept in _BOUNDS_BY_SIZES before it is cleared
_MIX1, _MIX2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)
_U27, _U30, _U31, _U32 = (np.uint64(k) for k in (27, 30, 31, 32))


def check_seed(seed: Any, name: str = "seed") -> int | None:
    """``seed`` as a Python int, or None; anything but None or an integer in [0, 2**64) raises.

    The one rule for every seed the engines and environments take (``Game.new_state``,
    ``reset``, ``determinize``, the Gymnasium wrapper): bools, floats, strings and negative
    or too large integers are refused with a ``ValueError`` that names the value."""
    if seed is None:
        return None
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and 0 <= seed <= _MASK:
        return int(seed)
    raise ValueError(f"{name} must be None or an integer in [0, 2**64), got {seed!r} ({type(seed).__name__})")


class Rng:
    """SplitMix64 pseudo-random stream (64-bit state, period 2**64)."""

    __slots__ = ("s",)

    def __init__(self, seed: int | None = None) -> None:
        if type(seed) is not int or not 0 <= seed <= _MASK:
            seed = check_seed(seed)
            if seed is None:
                seed = int(np.random.SeedSequence().entropy) & _MASK
        self.s = seed

    def next64(self) -> int:
        self.s = s = (self.s + 0x9E3779B97F4A7C15) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def randbelow(self, n: int) -> int:
        """Uniform int in ``[0, n)`` (n <= 2**32; bias below 2**-32): the top 32 bits of :meth:`next64`
        scaled to ``n`` (the draw inlined: engines call this millions of times)."""
        self.s = s = (self.s + 0x9E3779B97F4A7C15) & _MASK
        z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return ((z ^ (z >> 31)) >> 32) * n >> 32

    def random(self) -> float:
        return (self.next64() >> 11) * (1.0 / 9007199254740992.0)

    def shuffle(self, seq: MutableSequence[Any]) -> None:
        """Fisher-Yates shuffle in place: position ``i`` (from the last down) swaps with
        ``randbelow(i + 1)``, the draws inlined into one loop (the same stream as calling it)."""
        s = self.s
        for i in range(len(seq) - 1, 0, -1):
            s = (s + 0x9E3779B97F4A7C15) & _MASK
            z = ((s ^ (s >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            j = ((z ^ (z >> 31)) >> 32) * (i + 1) >> 32
            seq[i], seq[j] = seq[j], seq[i]
        self.s = s

    def shuffle_many(self, seqs: list[MutableSequence[Any]]) -> None:
        """:meth:`shuffle` of every sequence of ``seqs`` in turn (the same draws, the same orders, the stream
        advanced alike), the draws computed at once with numpy and only the swaps in Python."""
        sizes = [len(x) for x in seqs if len(x) > 1]
        draws = sum(sizes) - len(sizes)
        if draws < _MIN_DRAWS or draws > _MAX_DRAWS:
            for x in seqs:
                self.shuffle(x)
            return
        z = _GAMMA_K[:draws] + np.uint64(self.s)  # wraps mod 2**64, as the stream's & _MASK
        z ^= z >> _U30
        z *= _MIX1
        z ^= z >> _U27
        z *= _MIX2
        z ^= z >> _U31
        z >>= _U32  # randbelow(i + 1): the top 32 bits scaled to the bound
        key = tuple(sizes)
        bounds = _BOUNDS_BY_SIZES.get(key)
        if bounds is None:
            if len(_BOUNDS_BY_SIZES) >= _BOUNDS_KEPT:
                _BOUNDS_BY_SIZES.clear()
            bounds = _BOUNDS_BY_SIZES[key] = np.concatenate([_BOUNDS[_MAX_DRAWS + 1 - n: _MAX_DRAWS] for n in sizes])
        z *= bounds
        z >>= _U32
        js = iter(z.tolist())
        for x in seqs:
            for i, j in zip(range(len(x) - 1, 0, -1), js):
                x[i], x[j] = x[j], x[i]
        self.s = (self.s + draws * _GAMMA) & _MASK

    def choice(self, seq: Any) -> Any:
        return seq[self.randbelow(len(seq))]

    def spawn(self) -> Rng:
        """An independent child stream (advances this stream once)."""
        return Rng(self.next64())

    def clone(self) -> Rng:
        r = Rng.__new__(Rng)
        r.s = self.s
        return r

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rng) and other.s == self.s

    def __repr__(self) -> str:
        return f"Rng(state={self.s})"


def as_rng(rng: Rng | np.random.Generator | int | None) -> Rng:
    """Turn a seed, a numpy Generator or an Rng into an :class:`Rng`.

    An ``Rng`` is used as is (draws advance it); a numpy Generator seeds a new
    stream from one draw, so callers that hold numpy generators stay reproducible.
    """
    if isinstance(rng, Rng):
        return rng
    if isinstance(rng, np.random.Generator):
        return Rng(int(rng.integers(0, 2**63)))
    return Rng(rng)
