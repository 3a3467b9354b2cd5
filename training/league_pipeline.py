"""A league's matches in flight: rounds drawn as soon as the ratings they depend on are final.

With a rating lag ``L`` (:class:`~.league_setup.LeagueConfig`), round ``r`` is drawn from the ratings after
rounds ``0 .. r-1-L``.  :class:`Pipeline` draws round ``r`` once round ``r-1-L`` is rated and before round
``r-L`` is, so every draw sees exactly the ratings the schedule names, however the matches' finishing times
interleave; up to ``L + 1`` rounds are open at once, and the runner keeps :data:`IN_FLIGHT_PER_WORKER`
matches per worker submitted.  Results are stored as they arrive (in any order) and rated round by round in
index order, so the stored league and its ratings are the same for any worker count or backend, and a run
stopped at any point resumes to the same league.  With ``L = 0`` a round waits for the one before it (the
barrier rounds of leagues stored before the lag existed).
"""

from __future__ import annotations

import concurrent.futures as cf
from collections import deque
from collections.abc import Callable

from .league_setup import MatchTask, ResolvedLeague, schedule_round
from .league_storage import StoredMatch
from .ratings import RatingTracker

__all__ = ["IN_FLIGHT_PER_WORKER", "Pipeline"]

#: matches kept submitted per worker (one playing, one queued behind it, so no worker waits for the runner)
IN_FLIGHT_PER_WORKER = 2


class Pipeline:
    """The schedule of a league run to ``matches`` matches, drawn and rated in order as matches finish.

    ``stored`` (index -> match) holds the matches already stored and receives those played; ``tracker``
    receives every complete round in index order.  A stored match that is not the one the schedule asks for
    raises ``ValueError`` naming ``where`` (the database).
    """

    def __init__(self, league: ResolvedLeague, matches: int, stored: dict[int, StoredMatch], tracker: RatingTracker,
                 where: str = "league", on_draw: Callable[[int], None] | None = None) -> None:
        self.league = league
        self.matches = int(matches)
        self.stored = stored
        self.tracker = tracker
        self.where = where
        self.on_draw = on_draw
        self.lag = league.rating_lag
        self.rounds = -(-self.matches // league.round_size)
        #: the tasks of every round drawn so far (the last round cut at the target)
        self.drawn: list[list[MatchTask]] = []
        #: how many rounds are in the ratings
        self.rated = 0
        #: drawn matches that are neither stored nor handed out yet, in index order
        self.waiting: deque[MatchTask] = deque()
        self.advance()

    @property
    def done(self) -> bool:
        """Whether every round is played and rated."""
        return self.rated == self.rounds

    def advance(self) -> None:
        """Draw every round whose ratings are final, rate every complete round, in order, as far as possible."""
        while True:
            while len(self.drawn) < self.rounds and len(self.drawn) - self.lag <= self.rated:
                self._draw(len(self.drawn))
            if self.rated < len(self.drawn) and all(t.index in self.stored for t in self.drawn[self.rated]):
                for t in self.drawn[self.rated]:
                    self.tracker.add(self.stored[t.index], t.index)
                self.rated += 1
            else:
                return

    def _draw(self, r: int) -> None:
        size = self.league.round_size
        tasks = schedule_round(self.league, r, self.tracker)[: max(0, min(size, self.matches - r * size))]
        names = self.league.names
        for t in tasks:
            m = self.stored.get(t.index)
            if m is None:
                self.waiting.append(t)
            elif m.seed != t.seed or m.agents != [names[a] for a in t.seats]:
                raise ValueError(
                    f"{self.where}: stored match {t.index} (seed {m.seed}, seats {m.agents}) is not the one the "
                    f"schedule asks for (seed {t.seed}, seats {[names[a] for a in t.seats]}); the database was "
                    "changed or written by an incompatible meeplezoo/openskill version")
        self.drawn.append(tasks)
        if self.on_draw is not None:
            self.on_draw(r)

    def run(self, submit: Callable[[MatchTask], cf.Future],
            finish: Callable[[MatchTask, cf.Future], BaseException | None], in_flight: int) -> None:
        """Play every missing match: ``submit(task)`` starts one (a future, perhaps done at once: then it is
        finished before the next starts), ``finish(task, future)`` stores it and returns its exception or
        None.  At most ``in_flight`` matches are submitted at once.  After a failure nothing new starts; the
        matches in flight are finished and the first failure raises ``RuntimeError``."""
        futures: dict[cf.Future, MatchTask] = {}
        failed: list[tuple[MatchTask, BaseException]] = []

        def collect(fut: cf.Future) -> None:
            task = futures.pop(fut)
            error = finish(task, fut)
            if error is not None:
                failed.append((task, error))
            elif not failed:
                self.advance()

        while True:
            while not failed and self.waiting and len(futures) < max(1, in_flight):
                task = self.waiting.popleft()
                fut = submit(task)
                futures[fut] = task
                if fut.done():  # played inline: stored (and rated) before the next one starts
                    collect(fut)
            if not futures:
                break
            done, _ = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: futures[f].index):
                collect(fut)
        if failed:
            task, e = failed[0]
            names = self.league.names
            raise RuntimeError(f"league match {task.index} (seed {task.seed}, seats {[names[a] for a in task.seats]}) "
                               f"failed: {type(e).__name__}: {e}; the other matches are stored, --resume retries it"
                               ) from e
