"""The pool: persistent workers, one task in flight each, results journaled on arrival.

Workers are `multiprocessing` processes from a *forkserver* that has already imported
torch and the OpInfo database, so starting (and restarting, after a crash or a timeout)
a worker costs a fork, not a 5-second import; each worker then loads the device's
backend itself (a device runtime must not be forked). A worker runs task after task;
it is replaced only when it dies (`crash`) or overruns `timeout` (`timeout`, killed),
and the overload it was running — read from its beacon — carries the outcome.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from kb.errors import KBError
from kb.probe.live import journal as jr
from kb.probe.live.worker import receive
from kb.store.records import utc_now

STARTUP_SECONDS = 300.0  # importing a device runtime can be slow; a hung import is an error


class LiveProbeError(KBError):
    """The live probe could not start or continue (device missing, backend import failed)."""


@dataclass
class Plan:
    """What a run probes; stored in its journal header, so `--resume` needs only the id."""

    run_id: str
    device: str
    dtypes: list[str]
    patterns: list[str] | None = None
    samples: int | None = 10
    timeout: float = 60.0
    setup: list[str] = field(default_factory=list)
    generic_detector: bool = False
    options: dict[str, Any] = field(default_factory=dict)  # backend switches, e.g. {"cpu_fallback": True}
    python_path: list[str] = field(default_factory=list)  # where the backend package is installed, if elsewhere
    env: dict[str, str] = field(default_factory=dict)  # set in each worker before the device loads (a replay's sim)
    trace_decompositions: bool = False  # record the calls default backend kernels make (a replay's leaves)
    shard: list[int] | None = None  # [index, count], 1-based: this machine runs only its share (kb.probe.live.shard)

    def folder_name(self) -> str:
        """The run's local folder: one per shard, so shards sharing a home folder never
        share a journal."""
        return f"{self.run_id}--shard-{self.shard[0]}-of-{self.shard[1]}" if self.shard else self.run_id


@dataclass
class Slot:
    index: int
    process: Any = None
    conn: Any = None
    ready: bool = False
    task: tuple[str, str] | None = None
    deadline: float = 0.0
    started: float = 0.0
    beacon: str = ""
    log: str = ""


def _context():
    import multiprocessing

    os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"  # the worker loads exactly one backend
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["kb.probe.live._preload"])  # torch, the OpInfo database, then gc.freeze()
    return ctx


class Pool:
    def __init__(self, plan: Plan, folder: str, workers: int):
        self.plan, self.folder = plan, folder
        self.ctx = _context()
        self.slots = [Slot(i) for i in range(max(1, workers))]
        self.restarts = 0

    def config(self, slot: Slot, list_tasks: bool = False) -> dict[str, Any]:
        return {"device": self.plan.device, "dtypes": self.plan.dtypes, "patterns": self.plan.patterns,
                "samples": self.plan.samples, "setup": self.plan.setup,
                "generic_detector": self.plan.generic_detector, "options": self.plan.options,
                "python_path": self.plan.python_path, "costs": self.plan.shard is not None,
                "env": self.plan.env, "trace_decompositions": self.plan.trace_decompositions,
                "beacon": slot.beacon, "log": slot.log,
                "list_tasks": list_tasks}

    def start(self, slot: Slot, list_tasks: bool = False) -> None:
        from kb.probe.live import worker
        from kb.probe.live.beacon import make_beacon_file

        slot.beacon = os.path.join(self.folder, f"worker-{slot.index}.beacon")
        slot.log = os.path.join(self.folder, f"worker-{slot.index}.log")
        make_beacon_file(slot.beacon)
        parent_conn, child_conn = self.ctx.Pipe()
        slot.process = self.ctx.Process(target=worker.serve, args=(child_conn, self.config(slot, list_tasks)),
                                        daemon=True, name=f"kb-live-{slot.index}")
        slot.process.start()
        child_conn.close()
        slot.conn, slot.ready, slot.task = parent_conn, False, None
        slot.deadline = time.monotonic() + STARTUP_SECONDS

    def stop(self, slot: Slot, kill: bool = False) -> int | None:
        if slot.process is None:
            return None
        if kill and slot.process.is_alive():
            slot.process.kill()
        slot.process.join(timeout=5)
        if slot.process.is_alive():
            slot.process.kill()
            slot.process.join(timeout=5)
        code = slot.process.exitcode
        try:
            slot.conn.close()
        except OSError:
            pass
        slot.process = slot.conn = None
        slot.ready = False
        return code

    def release(self, slot: Slot) -> None:
        """Tell an idle worker to exit and forget it."""
        try:
            slot.conn.send(None)
        except (OSError, ValueError):
            pass
        self.stop(slot)

    def shutdown(self) -> None:
        for slot in self.slots:
            if slot.process is None:
                continue
            try:
                slot.conn.send(None)
            except (OSError, ValueError):
                pass
        for slot in self.slots:
            self.stop(slot, kill=slot.task is not None)

    def hello(self, slot: Slot) -> dict[str, Any]:
        """Wait for a starting worker's greeting (device info), or fail clearly."""
        if not slot.conn.poll(max(0.0, slot.deadline - time.monotonic())):
            self.stop(slot, kill=True)
            raise LiveProbeError(f"the probe worker did not start within {STARTUP_SECONDS:g} s{self.last_words(slot)}")
        return self.receive_hello(slot)

    def receive_hello(self, slot: Slot) -> dict[str, Any]:
        try:
            kind, body = receive(slot.conn)
        except (EOFError, OSError):
            log = slot.log
            code = self.stop(slot)
            raise LiveProbeError(f"the probe worker {describe_exit(code)} while loading {self.plan.device}"
                                 f"{last_words(log)}") from None
        if kind == "fatal":
            self.stop(slot)
            raise LiveProbeError(f"device {self.plan.device}: {body}")
        slot.ready = True
        return body

    def last_words(self, slot: Slot) -> str:
        return last_words(slot.log)


def describe_exit(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def log_tail(path: str, lines: int = 6) -> list[str]:
    try:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 8192))
            text = fh.read().decode(errors="replace")
    except OSError:
        return []
    return [line.rstrip() for line in text.splitlines() if line.strip()][-lines:]


def last_words(path: str) -> str:
    tail = log_tail(path, 1)
    return f"; last message: {tail[-1][:300]}" if tail else ""


def _beacon_op(slot: Slot) -> str | None:
    from kb.probe.live.beacon import read_beacon

    parts = read_beacon(slot.beacon).split("\t")
    if slot.task and len(parts) == 3 and tuple(parts[:2]) == slot.task:
        return parts[2]
    return None


def run(plan: Plan, *, workers: int = 1, resume: bool = False,
        on_start: Callable[[int, int], None] | None = None,
        on_task: Callable[[dict[str, Any]], None] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run (or finish) a probe; returns (journal header, every finished task entry)."""
    from multiprocessing.connection import wait

    folder = jr.run_dir(plan.folder_name())
    journal = jr.Journal(os.path.join(folder, "journal.jsonl"))
    header, done = journal.read() if resume else (None, [])
    if not resume and journal.exists():
        raise LiveProbeError(f"run {plan.folder_name()} already exists (kb probe --resume {plan.folder_name()} continues it)")
    os.makedirs(folder, exist_ok=True)
    if resume:
        journal.lock_now()  # before the workers start: fails fast if another probe holds it
    pool = Pool(plan, folder, workers)
    first = pool.slots[0]
    try:
        pool.start(first, list_tasks=True)
        info = pool.hello(first)
        tasks = [tuple(t) for t in info.pop("tasks")]
        if not tasks:
            raise LiveProbeError(f"--ops {','.join(plan.patterns or ['*'])} selects no OpInfo that runs in "
                                 f"{', '.join(plan.dtypes)} on the CPU (names look like add, nn.functional.relu; "
                                 "patterns like 'nn.functional.*' work)")
        share = _share(plan, tasks, info.pop("costs", None))
        if share is not None:
            tasks = share["tasks"]
        if header is None:
            header = {"kind": "header", "run_id": plan.run_id, "plan": asdict(plan), "device": info,
                      "started_at": utc_now(), "opinfos": info.pop("opinfos", None), "tasks": len(tasks),
                      "primary": info.pop("primary", {})}
            if share is not None:
                header["shard"] = {k: v for k, v in share.items() if k != "tasks"}
            journal.append(header)
        else:
            _check_same_device(header, info)
            if share is not None and (header.get("shard") or {}).get("plan_sha256") != share["plan_sha256"]:
                raise LiveProbeError(f"run {plan.folder_name()}: the task list differs from the one it started with "
                                     "(another torch or OpInfo database?): start a new run")
        finished = {jr.task_key(t["key"], t["dtype"]) for t in done}
        pending = [t for t in tasks if jr.task_key(*t) not in finished]
        if on_start:
            on_start(len(tasks), len(tasks) - len(pending))
        pending.reverse()  # pop() from the end keeps op_db order
        for slot in pool.slots[1:min(len(pool.slots), len(pending))]:
            pool.start(slot)

        def record(entry: dict[str, Any]) -> None:
            entry = {"kind": "task", **entry}
            journal.append(entry)
            done.append(entry)
            if on_task:
                on_task(entry)

        while pending or any(s.task for s in pool.slots):
            for slot in pool.slots:
                if slot.ready and slot.task is None and not pending:
                    pool.release(slot)  # nothing left for it: let it go now
                elif slot.ready and slot.task is None:
                    task = pending.pop()
                    try:
                        slot.conn.send(task)
                    except (OSError, ValueError):  # it died idle: the task was never started
                        pending.append(task)
                        pool.stop(slot)
                        _restart(pool, slot, pending)
                        continue
                    slot.task = task
                    slot.started = time.monotonic()
                    slot.deadline = slot.started + plan.timeout
            live = [s for s in pool.slots if s.process is not None]
            if not live:
                break
            waiting = [s.deadline for s in live if s.task or not s.ready]  # idle workers have no deadline
            timeout = max(0.0, min(waiting) - time.monotonic()) if waiting else None
            ready = wait([s.conn for s in live], timeout=timeout)
            for slot in live:
                if slot.conn in ready:
                    _receive(pool, slot, record, pending)
            now = time.monotonic()
            for slot in pool.slots:
                if slot.process is not None and slot.deadline <= now and (slot.task or not slot.ready):
                    _overran(pool, slot, record, pending)
    finally:
        pool.shutdown()
        journal.close()
        if header is None and not resume:  # it never started: leave no empty run behind
            import shutil

            shutil.rmtree(folder, ignore_errors=True)
    return header, done


def _share(plan: Plan, tasks: list, costs: list | None) -> dict[str, Any] | None:
    """This shard's tasks, and what every shard of the run must agree on."""
    if not plan.shard:
        return None
    from kb.probe.live.shard import Shard, plan_digest, select

    if costs is None or len(costs) != len(tasks):
        raise LiveProbeError("the probe worker did not report the tasks' costs (needed to shard)")
    shard = Shard(*plan.shard)
    return {"index": shard.index, "count": shard.count, "plan_sha256": plan_digest(tasks, costs),
            "tasks_total": len(tasks), "tasks": select(tasks, costs, shard)}


def _receive(pool: Pool, slot: Slot, record, pending) -> None:
    if not slot.ready:
        pool.receive_hello(slot)
        return
    try:
        kind, body = receive(slot.conn)
    except (EOFError, OSError):
        task, op, log = slot.task, _beacon_op(slot), slot.log
        code = pool.stop(slot)
        if task is not None:
            record({"key": task[0], "dtype": task[1], "outcome": "crash", "op": op, "exitcode": code,
                    "exit": describe_exit(code), "log_tail": log_tail(log)})
        _restart(pool, slot, pending)
        return
    if kind == "result":
        record({"outcome": "ok", **body})
        slot.task = None


def _overran(pool: Pool, slot: Slot, record, pending) -> None:
    if not slot.ready:
        pool.stop(slot, kill=True)
        raise LiveProbeError(f"the probe worker did not start within {STARTUP_SECONDS:g} s")
    task, op = slot.task, _beacon_op(slot)
    pool.stop(slot, kill=True)
    record({"key": task[0], "dtype": task[1], "outcome": "timeout", "op": op, "timeout": pool.plan.timeout})
    _restart(pool, slot, pending)


def _restart(pool: Pool, slot: Slot, pending) -> None:
    slot.task = None
    pool.restarts += 1
    if pending:
        pool.start(slot)


def _check_same_device(header: dict[str, Any], info: dict[str, Any]) -> None:
    for field_name in ("device", "backend_version", "torch_version"):
        then, now = header["device"].get(field_name), info.get(field_name)
        if then != now:
            raise LiveProbeError(f"run {header['run_id']} was started with {field_name} {then}, this machine has {now}: "
                                 "start a new run instead of resuming")
