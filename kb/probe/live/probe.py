"""The live probe as one call: `live_probe(device=..., ...)` or `live_probe(resume=RUN_ID)`.

Runs (or finishes) the tasks, rebuilds the records from the whole journal, writes the
portable report and ingests it into the KB in one transaction. Finishing is idempotent,
so a probe killed while writing or ingesting is finished by `--resume` like any other.
"""

from __future__ import annotations

import os
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from kb.errors import KBError
from kb.probe.live import journal as jr
from kb.probe.live import report
from kb.probe.live.opinfos import DEFAULT_DTYPES
from kb.probe.live.runner import LiveProbeError, Plan, run
from kb.probe.live.shard import Shard
from kb.store.records import OpStatus, ProbeRun, write_jsonl

DEFAULT_TIMEOUT = 60.0
DEVICES = ("cpu", "meta", "sim", "cuda", "neuron", "tpu")
KNOWN_DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
                "complex64", "complex128")


@dataclass
class LiveResult:
    run: ProbeRun
    statuses: list[OpStatus]
    report_path: str
    ingested: dict[str, Any] | None
    restarts: int = 0
    shard: dict[str, Any] | None = None  # {index, count, ...} when this was one shard of a run

    def summary(self) -> dict[str, Any]:
        return report.summary(self.statuses)


def new_run_id(device: str) -> str:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    return f"live-{device}-{stamp}-{secrets.token_hex(3)}"


def check_dtypes(dtypes: list[str]) -> list[str]:
    unknown = [d for d in dtypes if d not in KNOWN_DTYPES]
    if unknown:
        raise KBError(f"unknown dtype {', '.join(map(repr, unknown))} (expected some of {', '.join(KNOWN_DTYPES)})")
    if not dtypes:
        raise KBError("--dtypes names no dtype")
    return list(dict.fromkeys(dtypes))


def check_device(device: str) -> str:
    if not device or not device.replace("_", "").isalnum() or device[0].isdigit():
        raise KBError(f"not a device name: {device!r} (expected one of {', '.join(DEVICES)} or a PrivateUse1 name)")
    return device


def live_probe(*, device: str | None = None, resume: str | None = None, dtypes: list[str] | None = None,
               patterns: list[str] | None = None, samples: int | None = 10, timeout: float | None = None, workers: int = 1,
               setup: list[str] | None = None, run_id: str | None = None, out: str | None = None,
               db: str | None = None, ingest: bool = True, generic_detector: bool = False,
               options: dict[str, Any] | None = None, python_path: list[str] | None = None,
               shard: Shard | None = None,
               on_start: Callable[[int, int], None] | None = None,
               on_task: Callable[[dict[str, Any]], None] | None = None) -> LiveResult:
    if resume:
        header = _read_header(resume)
        plan = Plan(**header["plan"])
        plan.timeout = timeout or plan.timeout  # a resumed run may be given more time
    else:
        if device is None:
            raise KBError("say which device to probe: --device cpu|meta|sim|cuda|neuron|tpu")
        plan = Plan(run_id=run_id or "", device=check_device(device),
                    dtypes=check_dtypes(dtypes or list(DEFAULT_DTYPES)), patterns=patterns, samples=samples,
                    timeout=timeout or DEFAULT_TIMEOUT, setup=list(setup or []), generic_detector=generic_detector,
                    options=_check_options(device, options), python_path=_python_path(python_path),
                    shard=[shard.index, shard.count] if shard else None)
        plan.run_id = run_id or (_shared_run_id(plan) if shard else new_run_id(device))
        resume = _rerun_of_shard(plan)
    _check_installed(plan.device, plan.python_path)
    if plan.timeout <= 0:
        raise KBError("--timeout must be positive")
    header, tasks = run(plan, workers=workers, resume=bool(resume), on_start=on_start, on_task=on_task)
    return finish(header, tasks, out=out, db=db, ingest=ingest and not plan.shard)


def _read_header(folder: str) -> dict[str, Any]:
    header, _ = jr.Journal(os.path.join(jr.run_dir(folder), "journal.jsonl")).read()
    if header is None:
        raise LiveProbeError(f"run {folder}: its journal has no header (it never started); start a new run")
    return header


def _shared_run_id(plan: Plan) -> str:
    """The id every shard of the same sweep derives alike (kb.probe.live.shard.derived_run_id)."""
    from kb.probe.live.shard import derived_run_id

    return derived_run_id(plan.device, plan.shard[1], {"dtypes": plan.dtypes, "ops": plan.patterns,
                                                       "samples": plan.samples, "options": plan.options,
                                                       "setup": plan.setup, "generic": plan.generic_detector})


def _rerun_of_shard(plan: Plan) -> str | None:
    """A shard started again (a requeued Slurm task, a retried pod) finds its journal and
    continues it, redoing nothing; with other parameters it is refused."""
    if not plan.shard or not os.path.exists(os.path.join(jr.run_dir(plan.folder_name()), "journal.jsonl")):
        return None
    then = dict(_read_header(plan.folder_name())["plan"])
    now = asdict(plan)
    for name in ("timeout", "python_path"):  # may change between tries
        then.pop(name, None)
        now.pop(name, None)
    if then != now:
        raise LiveProbeError(f"run {plan.folder_name()} exists with other parameters: pass another --run-id")
    return plan.folder_name()


def finish(header: dict[str, Any], tasks: list[dict[str, Any]], *, out: str | None, db: str | None,
           ingest: bool) -> LiveResult:
    """Write the report (a shard writes its journal instead: kb.probe.live.merge) and ingest it."""
    from kb.probe.live.merge import shard_record
    from kb.store.records import utc_now

    folder = jr.run_dir(Plan(**header["plan"]).folder_name())
    finished_at = utc_now()
    probe_run, statuses = report.build_records(header, tasks, finished_at=finished_at)
    written = [probe_run, *statuses]
    if header.get("shard"):
        written, ingest = [shard_record(header, tasks, finished_at=finished_at)], False
    path = out or os.path.join(folder, "report.jsonl")
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = path + ".part"
        with open(tmp, "w", encoding="utf-8") as fh:
            write_jsonl(written, fh)
        os.replace(tmp, path)
    except OSError as exc:
        raise KBError(f"cannot write {path}: {exc.strerror}") from None
    _write_json(os.path.join(folder, "opinfo-map.json"), report.opinfo_map(tasks))
    ingested = None
    if ingest:
        from kb.paths import default_db_path
        from kb.store.ingest import ingest_records

        ingested = ingest_records(db or default_db_path(), [probe_run, *statuses],
                                  source_name=f"{report.SOURCE_NAME}:{header['run_id']}")
    return LiveResult(probe_run, statuses, path, ingested, shard=header.get("shard"))


def _python_path(given: list[str] | None) -> list[str]:
    """Extra import paths for the workers: --python-path, then KB_PROBE_PYTHONPATH (as
    the static probe reads them), made absolute so a resumed run finds them too."""
    from kb.probe.static import PYTHONPATH_ENV

    paths = [*(given or ()), *os.environ.get(PYTHONPATH_ENV, "").split(os.pathsep)]
    return [os.path.abspath(p) for p in dict.fromkeys(p for p in paths if p)]


def _check_installed(device: str, python_path: list[str]) -> None:
    """Fail in a second, not after starting workers, when the device's backend package is
    not there (found, not imported: importing it is the workers' job)."""
    import importlib.machinery
    import sys

    from kb.errors import require_torch
    from kb.probe.backends import get_backend
    from kb.probe.live.device import DEVICE_BACKENDS

    require_torch(f"live probing {device}", python_path)
    spec = get_backend(DEVICE_BACKENDS[device]) if device in DEVICE_BACKENDS else None
    if spec is None or spec.module is None or spec.activate is not None:
        return
    if importlib.machinery.PathFinder.find_spec(spec.module, [*python_path, *sys.path]) is None:
        raise LiveProbeError(f"live probing {device} needs {spec.module}, which is not installed here "
                             "(if it is installed elsewhere, pass --python-path DIR or set KB_PROBE_PYTHONPATH)")


def _check_options(device: str, options: dict[str, Any] | None) -> dict[str, Any]:
    """Backend switches the device's backend accepts (kb.probe.backends), None values dropped."""
    from kb.probe.backends import get_backend
    from kb.probe.live.device import DEVICE_BACKENDS

    options = {k: v for k, v in (options or {}).items() if v is not None}
    accepted = get_backend(DEVICE_BACKENDS[device]).options if device in DEVICE_BACKENDS else ()
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise KBError(f"device {device} takes no option {', '.join(unknown)}"
                      + (f" (it takes {', '.join(accepted)})" if accepted else ""))
    return options


def _write_json(path: str, data: Any) -> None:
    import json

    with open(path + ".part", "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
    os.replace(path + ".part", path)


def contradictions(conn: sqlite3.Connection, target: str | None = None) -> list[dict[str, Any]]:
    """Verdicts where a live probe's word differs from a static probe's, for the same op,
    target, backend version and mode (read from Support.sources, each source's word)."""
    import json

    kinds = {}
    for name, run_id, kind in conn.execute("SELECT DISTINCT source_name, probe_run_id, source_kind FROM observation "
                                           "WHERE source_kind IN ('live_probe', 'static_probe')"):
        kinds[f"{name}@{run_id}" if run_id else name] = kind
    sql = ("SELECT s.op, s.target, r.version, s.mode, s.status, s.sources, s.dtypes, s.conditions "
           "FROM support s JOIN release r ON r.id = s.release_id WHERE s.disagreement = 1")
    args: list[Any] = []
    if target:
        sql += " AND s.target = ?"
        args.append(target)
    rows = []
    for op, tgt, version, mode, status, sources, dtypes, conditions in conn.execute(sql + " ORDER BY s.op, s.target", args):
        sources = json.loads(sources) if sources else {}
        live = sorted({word for src, word in sources.items() if kinds.get(src) == "live_probe"})
        static = sorted({word for src, word in sources.items() if kinds.get(src) == "static_probe"})
        if live and static and live != static:
            rows.append({"op": op, "target": tgt, "backend_version": version, "mode": mode, "live": ", ".join(live),
                         "static": ", ".join(static), "verdict": status, "why": _why(live, static),
                         "live_dtypes": json.loads(dtypes) if dtypes else None,
                         "other_dtypes": (json.loads(conditions) or {}).get("other_dtypes") if conditions else None})
    return rows


# The usual reasons a live observation contradicts the dispatch table, by (live, static).
_REASONS = {
    ("fallback", "decomposed"): "a composite kernel whose leaves run through the CPU fallback (the table does not look inside)",
    ("unsupported", "fallback"): "the boxed fallback raised for these inputs",
    ("unsupported", "decomposed"): "a leaf of the composite kernel raised",
    ("unsupported", "native"): "the device's own kernel raised for these inputs",
    ("native", "fallback"): "ran on a device kernel the table did not show (registered at run time?)",
    ("native", "unsupported"): "ran on a device kernel the table did not show (registered at run time?)",
}


def _why(live: list[str], static: list[str]) -> str:
    for word in live:
        for other in static:
            if (word, other) in _REASONS:
                return _REASONS[(word, other)]
    if any(word in ("crash", "timeout") for word in live):
        return "the op killed or hung the worker"
    return ""
