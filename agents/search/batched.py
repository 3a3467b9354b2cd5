"""Searches as resumable steps, and the lockstep driver that evaluates the leaves of many searches together.

:meth:`Search.run_steps <.search.Search.run_steps>` is the search as a generator: it runs until it needs an
evaluator (a prior for a node, the values of its leaves), yields a :class:`Request` and waits for the answer
``(priors, values)``; its return value is the :class:`~.search.SearchResult`.  Anything built on a search
(an agent's decision, a whole self-play game) can be such a generator in turn (``yield from``).

* :func:`drive` answers each request alone, at once, by its evaluator: exactly what
  :meth:`Search.run <.search.Search.run>` does (it is implemented so).
* :func:`lockstep` advances many generators together: at every round it collects the pending request of each
  one, answers the requests whose evaluators share a *pool* (the same network) with one evaluator call for all
  their states (``Evaluator.evaluate_pool``), the others one by one, and sends the answers back.  The searches
  are independent (each has its own tree and random stream), and a pooled answer equals what each request
  would get alone (the network's pooled forward pass computes each row as a forward pass of that row alone),
  so every search makes the same decisions as when driven alone: lockstep changes the batch the network
  sees, not the algorithm.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from typing import Any


class Request:
    """What a suspended search needs: ``evaluator``'s ``(priors, values)`` for ``states``; ``depths`` None
    asks :meth:`~.evaluators.Evaluator.evaluate` (a node's prior), else
    :meth:`~.evaluators.Evaluator.evaluate_leaves` (leaves that many decisions below the root)."""

    __slots__ = ("evaluator", "states", "depths")

    def __init__(self, evaluator: Any, states: list[Any], depths: list[int] | None = None) -> None:
        self.evaluator = evaluator
        self.states = states
        self.depths = depths

    def answer(self) -> tuple[Any, Any]:
        """The evaluator's answer to this request alone."""
        if self.depths is None:
            return self.evaluator.evaluate(self.states)
        return self.evaluator.evaluate_leaves(self.states, self.depths)


#: a search (or anything built on searches) as resumable steps: yields requests, receives their answers
Steps = Generator[Request, Any, Any]
_START = object()  # what advance() sends a generator not yet started


def drive(steps: Steps) -> Any:
    """Run ``steps`` to the end, answering each request alone and at once; returns its return value."""
    try:
        request = next(steps)
        while True:
            request = steps.send(request.answer())
    except StopIteration as stop:
        return stop.value


def answer_all(requests: list[Request]) -> list[tuple[Any, Any]]:
    """The answers to ``requests``: those whose evaluators share a pool (``pool_key()`` not None and equal)
    in one ``evaluate_pool`` call per pool, the others alone; each answer equals ``request.answer()``."""
    answers: list[Any] = [None] * len(requests)
    pools: dict[Any, list[int]] = {}
    for i, r in enumerate(requests):
        key = getattr(r.evaluator, "pool_key", None)
        key = key() if key is not None else None
        if key is None:
            answers[i] = r.answer()
        else:
            pools.setdefault(key, []).append(i)
    for members in pools.values():
        group = [requests[i] for i in members]
        for i, a in zip(members, type(group[0].evaluator).evaluate_pool(group)):
            answers[i] = a
    return answers


def lockstep(steps: Iterable[Steps], width: int) -> list[Any]:
    """Run the generators of ``steps`` (taken in order) ``width`` at a time in lockstep: their return values,
    in the order given.  A finished one makes room for the next, so up to ``width`` requests are answered
    together each round (:func:`answer_all`).  Each generator must be independent of the others (its own
    random stream); then every return value is what :func:`drive` would give."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 1:
        raise ValueError(f"lockstep: width must be a whole number >= 1, got {width!r}")
    source = iter(enumerate(steps))
    results: dict[int, Any] = {}
    active: dict[int, tuple[Steps, Request]] = {}

    def advance(i: int, gen: Steps, answer: Any) -> None:
        try:
            request = next(gen) if answer is _START else gen.send(answer)
        except StopIteration as stop:
            results[i] = stop.value
            active.pop(i, None)
            return
        active[i] = (gen, request)

    def refill() -> None:
        while len(active) < width:
            nxt = next(source, None)
            if nxt is None:
                return
            advance(nxt[0], nxt[1], _START)

    refill()
    while active:
        order = list(active)
        answers = answer_all([active[i][1] for i in order])
        for i, a in zip(order, answers):
            advance(i, active[i][0], a)
        refill()
    return [results[i] for i in range(len(results))]
