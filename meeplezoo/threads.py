"""One BLAS thread for network inference, unless the user says otherwise.

Network agents and the search guided by a network evaluate one position (or a small batch) at a time in
numpy.  For matrices this small, numpy's multithreaded BLAS (OpenBLAS) costs far more than it gains, and
worse on a busy machine: its worker threads spin while another process (a second self-play worker, the
opponent's search) wants the core.  On the project's 2-core reference machine a Hawaii self-play chunk
took 113 CPU seconds with the default threads and 35-41 with one (``benchmarks/blas_threads.py`` measures
the forward pass).  So the first network loaded in a process limits numpy's BLAS to
:func:`blas_threads_setting` threads, through `threadpoolctl <https://github.com/joblib/threadpoolctl>`_,
which finds the BLAS library numpy actually loaded.  Torch's own threads (training) are not touched.

The setting: ``MEEPLEZOO_BLAS_THREADS=N`` (``0`` leaves BLAS as it is); without it, a process in which the
user set ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` is left alone; otherwise 1.
"""

from __future__ import annotations

import os

#: the environment variable that sets the BLAS threads of network inference (0: leave BLAS alone)
ENV = "MEEPLEZOO_BLAS_THREADS"
_USER_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_applied: int | None = None
_limiter = None


def blas_threads_setting() -> int | None:
    """The BLAS threads network inference will use: ``MEEPLEZOO_BLAS_THREADS`` (None for 0: leave BLAS alone),
    else None where the user set the BLAS libraries' own variables, else 1.

    Raises ValueError naming the variable when ``MEEPLEZOO_BLAS_THREADS`` is not a whole number >= 0.
    """
    raw = os.environ.get(ENV)
    if raw is not None and raw.strip() != "":
        try:
            n = int(raw)
        except ValueError:
            raise ValueError(f"{ENV}={raw!r}: expected a whole number of threads (0 leaves BLAS alone)") from None
        if n < 0:
            raise ValueError(f"{ENV}={raw!r}: expected a whole number of threads >= 0 (0 leaves BLAS alone)")
        return n or None
    if any(os.environ.get(v) for v in _USER_VARS):
        return None
    return 1


def limit_blas_threads() -> int | None:
    """Limit numpy's BLAS to :func:`blas_threads_setting` threads for the rest of the process (done once;
    later calls return what was applied).  Returns the limit, or None when BLAS was left alone."""
    global _applied, _limiter
    if _limiter is not None:
        return _applied
    n = blas_threads_setting()
    if n is None:
        _limiter = False
        return None
    from threadpoolctl import threadpool_limits

    _limiter = threadpool_limits(limits=n, user_api="blas")
    _applied = n
    return n


def blas_threads() -> list[int]:
    """The threads of every BLAS library loaded in this process (threadpoolctl's view)."""
    from threadpoolctl import threadpool_info

    return [int(i["num_threads"]) for i in threadpool_info() if i.get("user_api") == "blas"]
