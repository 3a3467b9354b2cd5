"""Network inference runs numpy's BLAS on one thread unless the user chose otherwise (meeplezoo.threads)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from meeplezoo import threads

PROBE = """
import json, numpy
from meeplezoo.threads import blas_threads
before = blas_threads()
import meeplezoo
from meeplezoo.agents import make
agent = make("pretrained", game="haus_der_sonne")
print(json.dumps({"before": before, "after": blas_threads()}))
"""


def _probe(**env: str) -> dict:
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", threads.ENV)}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**clean, **env}, capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_loading_a_network_limits_blas_to_one_thread():
    seen = _probe()
    assert seen["after"] and all(n == 1 for n in seen["after"])


def test_the_user_setting_wins():
    assert all(n == 2 for n in _probe(**{threads.ENV: "2"})["after"])  # noqa: PLR2004
    left = _probe(**{threads.ENV: "0"})
    assert left["after"] == left["before"]
    # the BLAS library's own variable, set by the user, is respected
    assert all(n == 2 for n in _probe(OPENBLAS_NUM_THREADS="2")["after"])  # noqa: PLR2004


def test_setting_is_read_from_the_environment(monkeypatch):
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", threads.ENV):
        monkeypatch.delenv(var, raising=False)
    assert threads.blas_threads_setting() == 1
    monkeypatch.setenv("OMP_NUM_THREADS", "4")
    assert threads.blas_threads_setting() is None
    monkeypatch.setenv(threads.ENV, "3")
    assert threads.blas_threads_setting() == 3  # noqa: PLR2004
    monkeypatch.setenv(threads.ENV, "0")
    assert threads.blas_threads_setting() is None
    for bad in ("two", "-1"):
        monkeypatch.setenv(threads.ENV, bad)
        with pytest.raises(ValueError, match=threads.ENV):
            threads.blas_threads_setting()
