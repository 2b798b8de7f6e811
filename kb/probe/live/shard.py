"""Splitting a live probe over a fleet: which shard this machine is, and which tasks are its.

A sweep of every OpInfo × dtype on a real chip compiles per op and takes hours, so
fleets run it as a Slurm job array or a Kubernetes Indexed Job, one shard per task.
The split must be the same on every machine without them talking to each other, so it
is a pure function of the task list and each task's expected cost (the number of samples
it will run, plus one for the per-op set-up a compiler pays), both of which every worker
computes identically from the same torch. Tasks are dealt greedily, most expensive
first, each to the shard with the least work so far (ties to the lowest shard, then by
name), which keeps the shards within about one task's cost of each other rather than
giving one shard all the convolutions.

Shards are numbered from 1 (`--shard 2/3`, as people count); the fleets' variables count
from their own minimum and are translated here.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from kb.errors import KBError

SLURM_VARS = ("SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT")
K8S_VARS = ("JOB_COMPLETION_INDEX", "JOB_COMPLETIONS")
MAX_SHARDS = 100_000


class ShardError(KBError):
    """A shard that cannot be named: a malformed `--shard`, or no fleet variables."""


@dataclass(frozen=True)
class Shard:
    index: int  # 1-based
    count: int
    source: str = "flag"  # flag | slurm | kubernetes

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def folder_suffix(self) -> str:
        return f"shard-{self.index}-of-{self.count}"


def parse_shard(text: str, env: Mapping[str, str] | None = None) -> Shard:
    """`I/N` (1 ≤ I ≤ N) or `auto` (from the fleet's variables)."""
    text = text.strip()
    if text == "auto":
        return from_env(os.environ if env is None else env)
    index, sep, count = text.partition("/")
    if not sep or not index.strip().isdigit() or not count.strip().isdigit():
        raise ShardError(f"--shard takes I/N (e.g. 2/3, counting from 1) or auto, not {text!r}")
    return _checked(int(index), int(count), "flag", f"--shard {text}")


def _checked(index: int, count: int, source: str, where: str) -> Shard:
    if not 1 <= count <= MAX_SHARDS:
        raise ShardError(f"{where}: the number of shards must be between 1 and {MAX_SHARDS}")
    if not 1 <= index <= count:
        raise ShardError(f"{where}: shard {index} is not one of 1..{count} (shards count from 1)")
    return Shard(index, count, source)


def _int(env: Mapping[str, str], name: str) -> int:
    value = env.get(name, "").strip()
    if not value.lstrip("-").isdigit():
        raise ShardError(f"--shard auto: {name}={value!r} is not a whole number")
    return int(value)


def from_env(env: Mapping[str, str]) -> Shard:
    """The shard a Slurm job-array task or a Kubernetes Indexed-Job pod is."""
    slurm = "SLURM_ARRAY_TASK_ID" in env
    k8s = "JOB_COMPLETION_INDEX" in env
    if slurm and k8s:
        raise ShardError("--shard auto: both Slurm (SLURM_ARRAY_TASK_ID) and Kubernetes (JOB_COMPLETION_INDEX) "
                         "variables are set; pass --shard I/N")
    if slurm:
        missing = [name for name in SLURM_VARS if name not in env]
        if missing:
            raise ShardError(f"--shard auto: SLURM_ARRAY_TASK_ID is set but {', '.join(missing)} is not "
                             "(is this a job array? sbatch --array=0-N)")
        step = _int(env, "SLURM_ARRAY_TASK_STEP") if env.get("SLURM_ARRAY_TASK_STEP") else 1
        offset = _int(env, "SLURM_ARRAY_TASK_ID") - _int(env, "SLURM_ARRAY_TASK_MIN")
        count = _int(env, "SLURM_ARRAY_TASK_COUNT")
        if step < 1 or offset % step:
            raise ShardError("--shard auto: the Slurm array's task ids are not evenly spaced (use --array=0-N or 0-N:S)")
        return _checked(offset // step + 1, count, "slurm",
                        "--shard auto (Slurm array ids must be contiguous, e.g. --array=0-3)")
    if k8s:
        if "JOB_COMPLETIONS" not in env:
            raise ShardError("--shard auto: JOB_COMPLETION_INDEX is set but JOB_COMPLETIONS is not "
                             "(set it in the pod's env to the Job's spec.completions)")
        return _checked(_int(env, "JOB_COMPLETION_INDEX") + 1, _int(env, "JOB_COMPLETIONS"), "kubernetes",
                        "--shard auto (Kubernetes)")
    raise ShardError("--shard auto found no fleet variables (Slurm SLURM_ARRAY_TASK_ID/_MIN/_COUNT or Kubernetes "
                     "JOB_COMPLETION_INDEX/JOB_COMPLETIONS); pass --shard I/N")


Task = tuple[str, str]


def partition(tasks: Sequence[Task], costs: Sequence[float], count: int) -> list[list[Task]]:
    """Deal tasks to `count` shards by expected cost (greedy, longest first); each
    shard's tasks keep the order of the input list."""
    if len(costs) != len(tasks):
        raise ValueError("one cost per task")
    order = sorted(range(len(tasks)), key=lambda i: (-costs[i], tasks[i]))
    loads = [0.0] * count
    owner: dict[int, int] = {}
    for i in order:
        shard = min(range(count), key=lambda s: (loads[s], s))
        owner[i] = shard
        loads[shard] += costs[i]
    return [[tasks[i] for i in range(len(tasks)) if owner[i] == shard] for shard in range(count)]


def select(tasks: Sequence[Task], costs: Sequence[float], shard: Shard) -> list[Task]:
    return partition(tasks, costs, shard.count)[shard.index - 1]


def plan_digest(tasks: Sequence[Task], costs: Sequence[float]) -> str:
    """Fingerprint of the whole task list and its costs: shards of one run must agree on it
    (the same torch, the same OpInfo database, the same options), or their split differs."""
    body = json.dumps([[key, dtype, cost] for (key, dtype), cost in zip(tasks, costs)], separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()


def derived_run_id(device: str, count: int, params: Mapping[str, object]) -> str:
    """A run id every shard computes alike from the probe's parameters (no clock, no
    randomness): the same sweep on N machines is one run. Two sweeps with the same
    parameters get the same id, so name a new sweep with --run-id."""
    body = json.dumps({"device": device, "shards": count, **params}, sort_keys=True, default=str)
    return f"live-{device}-x{count}-{hashlib.sha256(body.encode()).hexdigest()[:12]}"
