"""Ends a local Ray instance when the league that started it dies, even by SIGKILL.

Ray ties its main processes to the driver (Linux's parent-death signal), but
helpers started by the raylet (the dashboard and runtime-env agents, idle
workers) can outlive a driver killed with SIGKILL.  The league starts this
watchdog beside a Ray instance it starts itself::

    python -m meeplezoo.training.ray_watchdog SESSION_DIR LEAGUE_PID

with a pipe on stdin.  The watchdog blocks on that pipe; when it closes (the
league shut Ray down, or died) it ends every process of that Ray session:
those whose command line names ``SESSION_DIR``, and Ray processes (``ray``
in the command line) with a file open in it (each Ray process logs there,
and the directory name is unique to the instance).  The league itself and
anything else are left alone, and a cluster the league only connected to is
never watched.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def session_processes(session_dir: str, exclude: set[int]) -> list[int]:
    """Live processes whose command line or open files refer to ``session_dir`` (from /proc)."""
    found = []
    needle = session_dir.encode()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmdline = f.read()
            if needle in cmdline:
                found.append(pid)
                continue
            if b"ray" not in cmdline.lower():
                continue
            for fd in os.listdir(f"/proc/{pid}/fd"):
                try:
                    if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(session_dir):
                        found.append(pid)
                        break
                except OSError:
                    continue
        except OSError:  # gone, or not ours to read
            continue
    return found


def end_session(session_dir: str, grace: float = 3.0, spare: set[int] | None = None) -> list[int]:
    """SIGTERM every process of the session, then SIGKILL what is left after ``grace`` seconds.

    ``spare``: processes never to signal (the league that started the watchdog).
    """
    me = {os.getpid(), *(spare or set())}
    targets = session_processes(session_dir, me)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in targets:
            try:
                os.kill(pid, sig)
            except OSError:
                pass
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            targets = session_processes(session_dir, me)
            if not targets:
                return []
            time.sleep(0.1)
    return targets


def main(argv: list[str]) -> int:
    if len(argv) != 2 or not os.path.isdir("/proc"):
        return 2
    session_dir = os.path.realpath(argv[0])
    league = int(argv[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C of the league's terminal is for the league
    try:
        while sys.stdin.buffer.read(1 << 16):
            pass
    except OSError:
        pass
    time.sleep(0.5)  # let a normal ray.shutdown() finish first
    end_session(session_dir, spare={league})
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
