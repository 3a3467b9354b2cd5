"""One executor for everything that runs in parallel: jobs give the same results inline, on a spawned process
pool (and on Ray: tests/test_exit.py, tests/test_league_faults.py), in job order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from meeplezoo.training.arena import evaluate
from meeplezoo.training.executor import InlineExecutor, ProcessExecutor, chunks, make_executor

ROOT = Path(__file__).resolve().parent.parent


def square(x: int) -> int:
    return x * x


def fail(x: int) -> int:
    raise ValueError(f"job {x} failed")


def test_chunks_are_contiguous_and_cover_everything():
    assert chunks(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert chunks([1, 2], 5) == [[1], [2]] and chunks([], 3) == []


def test_inline_and_pool_give_the_same_results_in_order():
    with make_executor(1) as inline:
        assert isinstance(inline, InlineExecutor)
        want = inline.map(square, range(9))
        fut = inline.submit(fail, 3)
        assert fut.done() and isinstance(fut.exception(), ValueError)
    with make_executor(2) as pool:
        assert isinstance(pool, ProcessExecutor) and pool.workers == 2
        assert pool.map(square, range(9)) == want == [x * x for x in range(9)]
        assert pool.submit(square, 12).result() == 144
        with pytest.raises(ValueError, match="job 4 failed"):
            pool.submit(fail, 4).result()


def test_bad_execution_settings_are_refused_by_name():
    with pytest.raises(ValueError, match="exit: workers must be an int >= 1, got 0"):
        make_executor(0, who="exit")
    with pytest.raises(ValueError, match="unknown backend 'dask'"):
        make_executor(2, "dask")
    with pytest.raises(ValueError, match="an address is for the ray backend"):
        make_executor(2, "process", "auto")


def test_an_evaluation_on_the_pool_is_the_inline_one():
    from meeplezoo.agents import make
    from meeplezoo.registry import make_game

    game = make_game("haus_der_sonne", 2)
    agent = make("heuristic", game, seed=1)
    inline = evaluate(agent, game, ["random"], 6, seed=3)["random"]
    with make_executor(2) as pool:
        pooled = evaluate(agent, game, ["random"], 6, seed=3, executor=pool)["random"]
    assert (inline.games, inline.wins, inline.score_sum) == (pooled.games, pooled.wins, pooled.score_sum)


def test_the_package_builds_process_pools_in_one_module():
    sites = []
    for folder in ("training", "meeplezoo", "agents", "envs"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and "ProcessPoolExecutor" in ast.unparse(node.func):
                    sites.append(str(path.relative_to(ROOT)))
    assert sites == ["training/executor.py"]


def test_executor_and_trainer_are_abstract():
    """An executor without ``submit`` or a trainer without ``step``/``numpy_net`` cannot be built."""
    from meeplezoo.training.executor import Executor
    from meeplezoo.training.run import Trainer

    with pytest.raises(TypeError, match="submit"):
        Executor()
    with pytest.raises(TypeError, match="numpy_net"):
        Trainer()


def _spin(seconds: float) -> float:
    import time

    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return seconds


def test_cpu_seconds_count_a_running_pools_jobs():
    """A trainer's CPU time includes its pool's jobs while the pool still runs (workers are not yet reaped)."""
    from meeplezoo.training.run import cpu_seconds

    with ProcessExecutor(2) as pool:
        before = cpu_seconds()
        assert pool.map(_spin, [0.3, 0.3, 0.3, 0.3]) == [0.3] * 4
        spent = cpu_seconds() - before
    assert 1.1 < spent < 3.0, spent
