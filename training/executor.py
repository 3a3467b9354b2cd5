"""Where work runs: in this process, on a local process pool, or as Ray tasks, behind one interface.

Every part of the learning side that plays many games (the arena's evaluations, leagues, expert
iteration's self-play, distillation's teacher games, fine-tuning's learner games) hands its jobs to an
:class:`Executor` from :func:`make_executor`:

* ``map(fn, jobs)``: ``[fn(job) for job in jobs]``, computed wherever the executor runs, in job order;
* ``submit(fn, *args)``: a :class:`concurrent.futures.Future` (done at once inline), for callers that
  store results as they arrive (the league), and ``share(obj)`` for an argument every job takes;
* :func:`imap`: ``fn`` over a stream of jobs with a few in flight at once (every worker busy, no batch
  waiting for its slowest job), results in job order;
* ``shutdown()``, or use the executor as a context manager.

The job functions are plain module-level functions and their arguments plain data, so a job gives the
same result wherever it runs: the trainers and leagues derive every seed from the job, never from the
worker.  This is the one module that builds a process pool (spawn start method: safe with torch and
threads in the parent) or starts Ray.
"""

from __future__ import annotations

import concurrent.futures as cf
import importlib.util
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from meeplezoo.knobs import Knob, Knobs

#: where the jobs run besides this process
BACKENDS = ("process", "ray")

#: the knobs of every command that runs work in parallel (declared once: train, league run)
EXECUTION_KNOBS = Knobs("executor", [
    Knob("workers", int, 1, "parallel worker processes (or Ray CPUs); 1 runs in this process", low=1),
    Knob("backend", str, "process", "a local process pool or Ray tasks", choices=BACKENDS),
    Knob("address", str, None, "the Ray cluster to join (e.g. auto); default a local instance", optional=True),
])


_JOB_CPU = [0.0]
_JOB_CPU_LOCK = threading.Lock()


def job_cpu_seconds() -> float:
    """CPU seconds the jobs of this process's pools (process or Ray) spent in their workers so far: each job
    measures its own process time, so a pool that is still running is counted too."""
    return _JOB_CPU[0]


def _timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """``fn(*args)`` and the worker's CPU seconds it took (run in the worker)."""
    c0 = time.process_time()
    result = fn(*args)
    return result, time.process_time() - c0


def _untimed(inner: cf.Future) -> cf.Future:
    """A future of ``inner``'s result without its CPU time, which goes to :func:`job_cpu_seconds`."""
    outer: cf.Future = cf.Future()

    def done(f: cf.Future) -> None:
        try:
            result, cpu = f.result()
        except BaseException as e:  # noqa: BLE001 - delivered through the future
            outer.set_exception(e)
            return
        with _JOB_CPU_LOCK:
            _JOB_CPU[0] += cpu
        outer.set_result(result)

    inner.add_done_callback(done)
    return outer


class Executor(ABC):
    """The interface: ``map`` in job order, ``submit`` for a future, ``shutdown``; a context manager."""

    #: how many jobs run at once
    workers: int = 1

    def map(self, fn: Callable[[Any], Any], jobs: Iterable[Any]) -> list[Any]:
        """``[fn(job) for job in jobs]``, computed by the executor, in the order of ``jobs``."""
        return [f.result() for f in [self.submit(fn, job) for job in jobs]]

    @abstractmethod
    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        """``fn(*args)`` as a future."""

    def share(self, obj: Any) -> Any:
        """``obj`` as an argument many jobs take: itself, or on Ray a reference stored once."""
        return obj

    def shutdown(self) -> None:  # noqa: B027 - a no-op by default: inline execution has nothing to stop
        """Stop the workers (nothing to do inline)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()


class InlineExecutor(Executor):
    """Runs every job in the calling process, at once (``workers=1``)."""

    def map(self, fn: Callable[[Any], Any], jobs: Iterable[Any]) -> list[Any]:
        return [fn(job) for job in jobs]

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        fut: cf.Future = cf.Future()
        try:
            fut.set_result(fn(*args))
        except BaseException as e:  # noqa: BLE001 - delivered through the future, as the pools do
            fut.set_exception(e)
        return fut


class ProcessExecutor(Executor):
    """A local pool of ``workers`` spawned processes, each started at once with Ctrl-C ignored (the
    parent handles it, once) and ended by a watchdog if the parent dies; ``initializer(*initargs)`` runs
    in each worker first."""

    def __init__(self, workers: int, initializer: Callable[..., None] | None = None,
                 initargs: Sequence[Any] = ()) -> None:
        self.workers = int(workers)
        main = threading.current_thread() is threading.main_thread()
        old = signal.signal(signal.SIGINT, signal.SIG_IGN) if main else None
        try:
            self.pool = cf.ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker, initargs=(os.getpid(), initializer, tuple(initargs)))
            cf.wait([self.pool.submit(os.getpid) for _ in range(self.workers)])  # start every worker now
        finally:
            if main:
                signal.signal(signal.SIGINT, old)

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        return _untimed(self.pool.submit(_timed, fn, *args))

    def shutdown(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


def _init_worker(parent: int, initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    """Set up a pool worker: one BLAS thread (the pool is the parallelism), Ctrl-C left to the parent, and
    a watchdog thread that ends the worker when the parent dies (a killed trainer leaves no pool)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    blas_vars = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")
    if not any(os.environ.get(var) for var in blas_vars):
        # numpy may be loaded already (a spawned worker first imports the parent's main module), when these
        # variables come too late: the first network loaded then limits BLAS through meeplezoo.threads
        os.environ.setdefault("MEEPLEZOO_BLAS_THREADS", "1")
    for var in blas_vars:
        os.environ.setdefault(var, "1")

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        os._exit(1)

    threading.Thread(target=watch, name="executor-parent-watchdog", daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


class RaySession:
    """Ray for this process: joined if already initialised, else started (locally with ``workers`` CPUs,
    or the cluster at ``address``) with a watchdog that ends a local instance if this process dies;
    :meth:`close` undoes only what it did."""

    def __init__(self, workers: int | None, address: str | None) -> None:
        try:
            import ray
        except ImportError:
            raise ValueError('the ray backend needs ray: pip install "meeplezoo[ray]"') from None
        self.ray = ray
        self.started = False
        self.watchdog: Any = None
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {"address": address, "log_to_driver": False}
            if address is None and workers:
                kwargs["num_cpus"] = workers
            try:
                ray.init(**kwargs)
            except Exception as e:  # noqa: BLE001 - ray raises ConnectionError, RuntimeError, ...
                where = f"the Ray cluster at {address!r}" if address else "a local Ray instance"
                raise ValueError(f"cannot start or reach {where}: {type(e).__name__}: {e}") from None
            self.started = True
            if address is None and not os.environ.get("RAY_ADDRESS"):
                self.watchdog = _start_ray_watchdog(ray)

    def close(self) -> None:
        if self.started:
            self.ray.shutdown()
            self.started = False
        if self.watchdog is not None:  # closing its pipe: it ends whatever of the session is left, then exits
            self.watchdog.stdin.close()
            try:
                self.watchdog.wait(timeout=10)
            except Exception:  # noqa: BLE001 - it finishes on its own
                pass
            self.watchdog = None


def _start_ray_watchdog(ray: Any) -> Any:
    """A process that ends the local Ray instance when this one dies (see :mod:`.ray_watchdog`), or None."""
    try:
        session_dir = ray._private.worker._global_node.get_session_dir_path()
    except AttributeError:  # another Ray version: no way to name the session
        return None
    if not session_dir or not os.path.isdir("/proc"):
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "meeplezoo.training.ray_watchdog", session_dir,
                                 str(os.getpid())],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
    except OSError:
        return None


class RayExecutor(Executor):
    """Ray tasks (one CPU each) on a local instance or a cluster (``address="auto"``); futures from the
    object references.  Every machine of a cluster needs meeplezoo installed and the checkpoint files
    the jobs name at the same paths."""

    def __init__(self, workers: int | None, address: str | None = None) -> None:
        self.workers = int(workers or 1)
        self.session = RaySession(workers, address)
        self.ray = self.session.ray
        self._task = self.ray.remote(num_cpus=1)(_timed)  # every job runs timed (job_cpu_seconds)

    def submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future:
        return _untimed(self._task.remote(fn, *args).future())

    def share(self, obj: Any) -> Any:
        return self.ray.put(obj)

    def shutdown(self) -> None:
        self.session.close()


def check_execution(workers: Any, backend: str = "process", address: str | None = None, who: str = "") -> None:
    """Refuse a bad worker count, backend or address (before anything is written), naming ``who``."""
    prefix = f"{who}: " if who else ""
    if backend not in BACKENDS:
        raise ValueError(f"{prefix}unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    Knobs(who or EXECUTION_KNOBS.who, EXECUTION_KNOBS).validate({"workers": workers, "address": address})
    if backend != "ray" and address is not None:
        raise ValueError(f"{prefix}an address is for the ray backend (--backend ray)")
    if backend == "ray" and importlib.util.find_spec("ray") is None:
        raise ValueError(f'{prefix}the ray backend needs ray: pip install "meeplezoo[ray]"')


def make_executor(workers: int = 1, backend: str = "process", address: str | None = None, *,
                  initializer: Callable[..., None] | None = None, initargs: Sequence[Any] = (),
                  who: str = "") -> Executor:
    """The executor for ``workers`` on ``backend``: inline for one process-pool worker, else a spawned
    process pool (``initializer(*initargs)`` run in each worker, not inline) or Ray tasks."""
    check_execution(workers, backend, address, who)
    if backend == "ray":
        return RayExecutor(workers, address)
    if workers <= 1:
        return InlineExecutor()
    return ProcessExecutor(workers, initializer, initargs)


def chunks(items: Sequence[Any], parts: int) -> list[list[Any]]:
    """``items`` in at most ``parts`` contiguous, nearly equal, non-empty runs (the jobs of a pool)."""
    n = len(items)
    parts = max(1, min(int(parts), n))
    size, extra = divmod(n, parts)
    out, start = [], 0
    for i in range(parts):
        stop = start + size + (1 if i < extra else 0)
        if stop > start:
            out.append(list(items[start:stop]))
        start = stop
    return out


def imap(executor: Executor, fn: Callable[[Any], Any], jobs: Iterable[Any], in_flight: int | None = None
         ) -> Iterator[Any]:
    """``fn(job)`` for each job, in the order of ``jobs``, keeping ``in_flight`` jobs (default one per worker)
    submitted: a new job starts as soon as any finishes.  ``jobs`` is read lazily, one job per start, so an
    iterator may stop early (a time limit).  A failed job raises when its turn comes."""
    limit = max(1, int(in_flight if in_flight is not None else executor.workers))
    source = iter(jobs)
    pending: dict[cf.Future, int] = {}
    finished: dict[int, cf.Future] = {}
    started = returned = 0
    exhausted = False
    while True:
        while not exhausted and len(pending) < limit:
            job = next(source, _END)
            if job is _END:
                exhausted = True
                break
            pending[executor.submit(fn, job)] = started
            started += 1
        if returned < started and returned not in finished:
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for fut in done:
                finished[pending.pop(fut)] = fut
        while returned in finished:
            result = finished.pop(returned).result()
            returned += 1
            yield result
        if exhausted and returned == started:
            return


_END = object()
