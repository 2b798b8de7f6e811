"""A live-probe worker: a child process that loads the device's backend and the OpInfo
database once, then runs (OpInfo, dtype) tasks (kb.probe.live.task) sent over a pipe until
told to stop, answering in JSON.

Before each device call the task writes the overload's name into a small shared file
(the *beacon*), so when an op kills or hangs the process the parent still knows which
overload did it. The worker's own stdout/stderr go to a log file (ops and backends
print); the parent reads its tail when the worker dies.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

from kb.probe.live.task import State, expected_cost, first_line, run_task

# --- process plumbing ------------------------------------------------------------------

def _die_with_parent() -> None:
    """Linux: get SIGKILL when the parent dies, so a killed probe leaves no worker behind."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except Exception:
        pass


def _redirect_output(log_path: str | None) -> None:
    if not log_path:
        return
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


# --- the loop --------------------------------------------------------------------------------

def send(conn, kind: str, body: Any) -> None:
    """Messages to the parent are JSON, not pickles: the parent never imports torch (a
    `torch.__version__` in a pickle would make it) and never unpickles what a worker,
    which runs arbitrary backend code, produced."""
    import json

    conn.send_bytes(json.dumps([kind, body], default=str).encode())


def receive(conn) -> tuple[str, Any]:
    import json

    kind, body = json.loads(conn.recv_bytes())
    return kind, body


def serve(conn, config: dict[str, Any]) -> None:
    """Worker entry point (a multiprocessing target): hello, then tasks until EOF/None."""
    import signal

    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle (it keeps the journal)
    _redirect_output(config.get("log"))
    os.environ.update(config.get("env") or {})
    for path in reversed(config.get("python_path") or ()):
        if path not in sys.path:
            sys.path.insert(0, path)
    try:
        state = State(config)
        hello: dict[str, Any] = state.device.info()
        if config.get("list_tasks"):
            from kb.probe.live.opinfos import primary_overload, task_list

            hello["tasks"] = task_list(state.op_db, config.get("patterns"), config["dtypes"])
            hello["opinfos"] = len(state.op_db)
            hello["primary"] = {key: primary_overload(state.ops[key]) for key in {k for k, _ in hello["tasks"]}}
            if config.get("costs"):
                hello["costs"] = [expected_cost(state, key, dtype) for key, dtype in hello["tasks"]]
    except BaseException as exc:  # a backend import can raise anything
        from kb.errors import KBError

        message = str(exc) if isinstance(exc, KBError) else f"{type(exc).__name__}: {first_line(exc)}"
        traceback.print_exc()
        send(conn, "fatal", message)
        return
    send(conn, "hello", hello)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        key, dtype = message
        try:
            outcome = run_task(state, key, dtype)
        except Exception as exc:  # a bug in the probe, not in the op: report and go on
            traceback.print_exc()
            outcome = {"key": key, "dtype": dtype, "task_error": f"probe: {type(exc).__name__}: {first_line(exc)}",
                       "calls": {}}
        state.beacon.set("")
        sys.stdout.flush()
        send(conn, "result", outcome)
