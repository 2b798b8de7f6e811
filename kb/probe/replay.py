"""Dispatcher replay: what PyTorch does with every ATen overload on a backend that is known
only by its kernel list (which overloads it registers on its dispatch key) and its
fallback policy (what its boxed fallback does with the rest).

Nothing here re-implements the dispatcher. kb's simulated PrivateUse1 backend is loaded
with exactly that kernel list and policy (`kb.probe.sim`, `KB_SIM_KERNELS`), then

1. the static probe reads the dispatch table of that sim: per overload, the backend's own
   kernel (native), a CompositeImplicitAutograd or CompositeExplicitAutograd kernel
   (decomposed: it calls other ops), the boxed fallback (fallback or unsupported, per the
   policy) or nothing (unsupported);
2. the live probe runs PyTorch's OpInfo samples on that sim, so for every decomposed op
   with samples the ops it really reaches on the device (its *leaves*) are recorded with
   who served each, view ops and prims-written kernels included. A decomposed op's
   *effective* status is its worst leaf: it runs on the device only if every leaf does.

Ops without OpInfo samples keep the static answer, marked "leaves not traced". Results
are observations of source kind `inferred` (lowest precedence: any probe or document
overrides them) whose provenance names the kernel list's source, the policy's source,
the torch version and the rule that decided each verdict.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import tempfile
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import kb
from kb import userfiles
from kb.errors import KBError
from kb.opnames import OpNameError, canonical
from kb.paths import data_dir
from kb.probe.dispatch import BACKEND_FALLBACK, DEFAULT_BACKEND, KERNEL, MATH
from kb.store.records import OpStatus, ProbeRun, Provenance, utc_now
from kb.vocab import SEVERITY

SOURCE_KIND = "inferred"
SOURCE_NAME = "replay"
REPLAY_VERSION = "1"
SPEC_DIR = "replay"  # under data/: one JSON spec per replayed backend version
# A spec's target and backend_version name output files and run ids: a plain name or version
# (`tpu`, `0.1.0.dev0+g98154b8`), never a path; checked when the spec is loaded.
PLAIN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,79}")
RULES = {
    "kernel": "registered on the backend's dispatch key: its own kernel",
    "pinned": "registered, but the kernel runs the op on the CPU",
    "math": "no kernel of its own; CompositeImplicitAutograd decomposes it",
    "default": "no kernel of its own; its CompositeExplicitAutograd kernel calls other ops",
    "fallback": "no kernel, no composite: the backend's boxed fallback takes it",
    "none": "no kernel, no composite, no fallback reaches it",
    "sdpa_fused": "the backend registers SDPA's _fused_sdp_choice stub and an overrideable fused kernel: SDPA "
                  "is taken to run as that kernel (a DispatchStub the sim cannot register, stated by the spec)",
}
SDPA = "aten::scaled_dot_product_attention"
SDPA_FUSED = "aten::_scaled_dot_product_fused_attention_overrideable"


class ReplayError(KBError):
    """A replay spec or kernel list that cannot be used."""


@dataclass(frozen=True)
class ReplaySpec:
    """A backend version known by its kernel list and fallback policy, with their sources."""

    target: str
    backend_version: str
    kernels: frozenset[str]
    kernels_source: str
    policy: dict[str, str]  # mode -> "cpu" | "raise"
    policy_source: str
    cpu_pinned: frozenset[str] = frozenset()
    cpu_pinned_source: str | None = None
    note: str | None = None
    modes: tuple[str, ...] = ("eager", "compile")
    policy_notes: dict[str, str] = field(default_factory=dict)
    # "overrideable" when the backend registers SDPA's `_fused_sdp_choice_stub` (a DispatchStub,
    # REGISTER_PRIVATEUSE1_DISPATCH) to pick its fused kernel: a Python backend cannot register
    # a DispatchStub, so the sim cannot take that path itself and the spec states it, with its source.
    sdpa_choice: str | None = None
    sdpa_choice_source: str | None = None


def read_kernel_list(path: str) -> list[str]:
    """ATen names, one a line (`#` starts a comment), in canonical spelling."""
    try:
        lines = userfiles.read_text(path).splitlines()
    except userfiles.FileRefused as exc:
        raise ReplayError(str(exc)) from None
    names = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            names.append(canonical(text))
        except OpNameError as exc:
            raise ReplayError(f"{path}:{number}: {exc}") from None
    return sorted(set(names))


def load_spec(path: str) -> ReplaySpec:
    """A replay spec (JSON) whose kernel lists are text files beside it."""
    try:
        raw = userfiles.parse_json(userfiles.read_text(path), path)
    except userfiles.FileRefused as exc:
        raise ReplayError(f"not a readable replay spec: {exc}") from None
    folder = os.path.dirname(os.path.abspath(path))
    try:
        policy = {mode: rule["action"] for mode, rule in raw["policy"].items()}
        pinned = raw.get("cpu_pinned") or {}
        return ReplaySpec(
            target=_plain(raw, "target", path), backend_version=_plain(raw, "backend_version", path),
            kernels=frozenset(read_kernel_list(os.path.join(folder, raw["kernels"]["file"]))),
            kernels_source=raw["kernels"]["source"], policy=policy, policy_source=raw["policy_source"],
            cpu_pinned=frozenset(read_kernel_list(os.path.join(folder, pinned["file"]))) if pinned else frozenset(),
            cpu_pinned_source=pinned.get("source"), note=raw.get("note"),
            modes=tuple(raw["policy"]), policy_notes={m: r.get("note", "") for m, r in raw["policy"].items()},
            sdpa_choice=(raw.get("sdpa_choice") or {}).get("choice"),
            sdpa_choice_source=(raw.get("sdpa_choice") or {}).get("source"),
        )
    except (KeyError, TypeError) as exc:
        raise ReplayError(f"{path}: replay spec lacks {exc}") from None


def _plain(raw: dict[str, Any], key: str, path: str) -> str:
    """raw[key] if it is a plain name or version: the spec is someone else's file, and these
    two fields become parts of file names (kb.probe.replay.out_file)."""
    value = raw[key]
    if not isinstance(value, str) or not PLAIN_NAME.fullmatch(value) or ".." in value:
        raise ReplayError(f"{path}: {key} must be a plain name or version (letters, digits, ._+-), "
                          f"got {value!r:.100}")
    return value


def out_file(spec: ReplaySpec, out_dir: str) -> str:
    """Where `--out-dir` puts a spec's report: each record-derived part slugged, the whole
    refused unless it stays under out_dir (as kb.store.export names its files)."""
    from kb.store.export import safe_path, slug

    return safe_path(out_dir, f"replay-{slug(spec.target)}-{slug(spec.backend_version)}.jsonl")


def shipped_specs() -> list[str]:
    folder = os.path.join(data_dir(), SPEC_DIR)
    if not os.path.isdir(folder):
        return []
    return sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".json"))


# --- 1. the dispatch table of a sim configured as the backend --------------------------

def _config_file(spec: ReplaySpec, folder: str) -> str:
    path = os.path.join(folder, "sim-kernels.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump({"kernels": sorted(spec.kernels | spec.cpu_pinned), "fallback": spec.policy.get("eager", "raise")},
                  fh)
    return path


def dispatch_entries(spec: ReplaySpec, config_path: str) -> tuple[dict[str, str | None], dict[str, Any]]:
    """{overload: dispatch entry} as the real dispatcher computes it for the configured sim."""
    from kb.probe import sim
    from kb.probe.backends import get_backend
    from kb.probe.static import run_child

    before = os.environ.get(sim.CONFIG_ENV)
    os.environ[sim.CONFIG_ENV] = config_path
    try:
        raw = run_child(get_backend("sim"))
    finally:
        if before is None:
            os.environ.pop(sim.CONFIG_ENV, None)
        else:
            os.environ[sim.CONFIG_ENV] = before
    return {op: entry for op, entry, _location, _per_op in raw["entries"]}, raw


def decide(op: str, entry: str | None, mode: str, spec: ReplaySpec, composite: dict[str, Any] | None
           ) -> tuple[str, str]:
    """(status, rule) for one overload in one mode.

    The sim always has the plumbing every device needs (allocation, copies, views); where
    the replayed list lacks one of those, its entry is what it would be without the sim's
    kernel, read from the op catalog's composite flags."""
    from kb.probe.dispatch import is_stub_default
    from kb.probe.sim import PLUMBING

    if entry == KERNEL and op in PLUMBING and op not in spec.kernels and op not in spec.cpu_pinned:
        composite = composite or {}
        if composite.get("composite_explicit") and not is_stub_default(op):
            entry = DEFAULT_BACKEND
        elif composite.get("composite_implicit"):
            entry = MATH
        else:
            entry = BACKEND_FALLBACK
    if entry == KERNEL:
        return ("fallback", "pinned") if op in spec.cpu_pinned else ("native", "kernel")
    if entry == MATH:
        return "decomposed", "math"
    if entry == DEFAULT_BACKEND:
        return "decomposed", "default"
    if entry == BACKEND_FALLBACK:
        return ("fallback" if spec.policy.get(mode) == "cpu" else "unsupported"), "fallback"
    return "unsupported", "none"


# --- 2. leaves: OpInfo samples on the configured sim ------------------------------------

LEAF_DTYPES = ("float32",)
LEAF_SAMPLES = 8  # samples per OpInfo: enough that some run on the CPU reference too


def run_samples(config_path: str, *, patterns: list[str] | None = None, workers: int = 1,
                samples: int = LEAF_SAMPLES, timeout: float = 60.0,
                on_start: Callable[[int, int], None] | None = None,
                on_task: Callable[[dict[str, Any]], None] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Run OpInfo samples on the sim configured by `config_path`; (journal header, tasks)."""
    from kb.probe import sim
    from kb.probe.live import journal
    from kb.probe.live.runner import Plan, run

    digest = hashlib.sha256(userfiles.read_bytes(config_path)).hexdigest()[:12]
    stamp = utc_now().replace(":", "").replace("-", "")[:15]
    plan = Plan(run_id=f"replay-{digest}-{stamp}-{os.getpid()}", device="sim", dtypes=list(LEAF_DTYPES),
                patterns=patterns, samples=samples, timeout=timeout, env={sim.CONFIG_ENV: config_path},
                trace_decompositions=True)
    try:
        return run(plan, workers=workers, on_start=on_start, on_task=on_task)
    finally:  # the journal served this call only: a replay is redone, never resumed
        shutil.rmtree(journal.run_dir(plan.folder_name()), ignore_errors=True)


def _call_status(entry: dict[str, Any]) -> tuple[str, list[str]]:
    """What one recorded call amounted to, and the ops that fell back inside it."""
    inner = list(entry.get("inner_fallback") or ())
    if entry.get("fallback") or inner:
        return "fallback", inner
    if entry.get("decomposed"):
        return "decomposed", []
    if entry.get("native"):
        return "native", []
    if entry.get("error"):
        return "unsupported", []
    return "native", []


def _task_base(key: str, primary: str | None) -> str:
    """The ATen base name an OpInfo exercises: its primary overload's, else from its name
    (`nn.functional.layer_norm` → layer_norm, `linalg.qr` → linalg_qr)."""
    if primary:
        return primary.removeprefix("aten::").partition(".")[0]
    name = key.split(".")
    for prefix in (["nn", "functional"], ["_refs"]):
        if name[: len(prefix)] == prefix:
            name = name[len(prefix):]
    return "_".join(name[:2]) if name[0] in ("linalg", "special", "fft") and len(name) > 1 else name[0]


# Calls the live probe makes to put a sample on the device: leaves only where they fail.
MOVES = frozenset({"aten::_to_copy", "aten::copy_", "aten::_copy_from", "aten::_copy_from_and_resize",
                   "aten::empty.memory_format", "aten::empty_strided", "aten::lift_fresh", "aten::detach"})


def _worse(into: dict[str, str], op: str, status: str) -> None:
    known = into.get(op)
    if known is None or SEVERITY[status] > SEVERITY[known]:
        into[op] = status


def leaves_by_base(header: dict[str, Any], tasks: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """{ATen base name: {leaf overload: status}} from the sample runs of its OpInfos, and
    {"op:" + overload: {child: status}} for each default backend kernel that was followed
    into the calls it made."""
    primary = header.get("primary") or {}
    out: dict[str, dict[str, str]] = defaultdict(dict)
    for task in tasks:
        base = _task_base(task["key"], primary.get(task["key"]))
        calls = task.get("calls") or {}
        statuses = {op: _call_status(entry) for op, entry in calls.items()}
        for op, entry in calls.items():
            status, inner = statuses[op]
            for child in entry.get("children") or ():
                _worse(out["op:" + op], child, statuses.get(child, ("native", []))[0])
            if op in MOVES and status == "native":
                continue  # moving the sample's inputs to the device, not the op's work
            _worse(out[base], op, status)
            for leaf in inner:
                out[base][leaf] = "fallback"
    return out


def _sdpa_takes_fused(spec: ReplaySpec) -> bool:
    return spec.sdpa_choice == "overrideable" and SDPA_FUSED in spec.kernels


def _base(op: str) -> str:
    return op.removeprefix("aten::").partition(".")[0]


def effective(op: str, by_base: dict[str, dict[str, str]], seen: frozenset[str] = frozenset()
              ) -> tuple[str, str | None]:
    """(worst status among `op`'s leaves, the first leaf with it). A leaf that itself
    decomposes counts as its own leaves do, where those were traced; one that was not
    traced counts as running on the device (its fallbacks inside were recorded as leaves)."""
    mine = {leaf: status for leaf, status in (by_base.get("op:" + op) or by_base.get(_base(op), {})).items()
            if leaf != op}
    worst, at = "decomposed", None
    for leaf in sorted(mine, key=lambda name: (-SEVERITY[mine[name]], name)):
        status, where = mine[leaf], leaf
        if status == "decomposed" and leaf not in seen and (("op:" + leaf) in by_base or (
                _base(leaf) in by_base and _base(leaf) != _base(op))):
            status, deeper = effective(leaf, by_base, seen | {op})
            where = deeper or leaf
        if SEVERITY[status] > SEVERITY[worst]:
            worst, at = status, where
    return worst, at


# --- the whole replay -------------------------------------------------------------------

MAX_LEAVES = 24  # leaves kept per op: the worst first, then by name


def replay(spec: ReplaySpec, catalog: list[dict[str, Any]], *, trace: bool = True,
           patterns: list[str] | None = None, workers: int = 1,
           on_start: Callable[[int, int], None] | None = None,
           on_task: Callable[[dict[str, Any]], None] | None = None) -> tuple[ProbeRun, list[OpStatus]]:
    """Replay `spec` over every overload of `catalog` (rows of data/ops); records for ingest."""
    started = utc_now()
    composites = {row["name"]: row for row in catalog}
    with tempfile.TemporaryDirectory(prefix="kb-replay-") as folder:
        config = _config_file(spec, folder)
        entries, raw = dispatch_entries(spec, config)
        header, tasks = run_samples(config, patterns=patterns, workers=workers, on_start=on_start,
                                    on_task=on_task) if trace else ({}, [])
    leaves = leaves_by_base(header, tasks)
    traced_bases = set(leaves)
    digest = hashlib.sha256(json.dumps([sorted(spec.kernels), sorted(spec.cpu_pinned), spec.policy,
                                        *([spec.sdpa_choice] if spec.sdpa_choice else []),
                                        sorted(entries.items(), key=lambda kv: kv[0])],
                                       default=str).encode()).hexdigest()
    run_id = f"replay-{spec.target}-{spec.backend_version}-{digest[:16]}"
    probe_run = ProbeRun(
        run_id=run_id, kind="replay", target=spec.target, backend="kernel list", backend_version=spec.backend_version,
        torch_version=raw["torch_version"], python_version=platform.python_version(), host="any",
        started_at=started, finished_at=utc_now(),
        fallback_policy={**spec.policy, "source": spec.policy_source,
                         **({"notes": spec.policy_notes} if any(spec.policy_notes.values()) else {})},
        params={"kernels": len(spec.kernels), "kernels_source": spec.kernels_source,
                "kernels_unknown_to_torch": sorted(spec.kernels - set(entries))[:50],
                "cpu_pinned": len(spec.cpu_pinned), "cpu_pinned_source": spec.cpu_pinned_source,
                "leaf_dtypes": list(LEAF_DTYPES), "leaf_samples": LEAF_SAMPLES, "opinfo_tasks": len(tasks),
                "traced": trace, **({"ops": patterns} if patterns else {}), "table_sha256": digest},
        tool_version=f"kb {kb.__version__} replay {REPLAY_VERSION}",
    )
    provenance = Provenance(source_kind=SOURCE_KIND, source_name=SOURCE_NAME, source_url=spec.kernels_source,
                            retrieved_at=started, content_sha256=digest, tool_version=probe_run.tool_version,
                            probe_run_id=run_id)
    statuses = []
    for op in sorted(entries):
        base = op.removeprefix("aten::").partition(".")[0]
        for mode in spec.modes:
            status, rule = decide(op, entries[op], mode, spec, composites.get(op))
            detail: dict[str, Any] = {"rule": rule}  # RULES[rule] says it in words; sources are in the run header
            if status == "decomposed":
                if "op:" + op in traced_bases or base in traced_bases:
                    found = leaves.get("op:" + op) or leaves[base]
                    worst, at = effective(op, leaves)
                    ordered = sorted((leaf for leaf in found if leaf != op),
                                     key=lambda leaf: (-SEVERITY[found[leaf]], leaf))
                    detail["leaves"] = {leaf: found[leaf] for leaf in ordered[:MAX_LEAVES]}
                    if mode != "eager" and spec.policy.get(mode) != "cpu" and worst == "fallback":
                        worst = "unsupported"  # a leaf that needs the CPU has no fallback in this mode
                    detail["effective"] = worst
                    if at:
                        detail["effective_at"] = at
                else:
                    detail["leaves"] = None  # no OpInfo samples for it: leaves not traced
            if op == SDPA and status == "decomposed" and _sdpa_takes_fused(spec):
                rule = "sdpa_fused"
                detail = {"rule": rule, "leaves": {SDPA_FUSED: "native"}, "effective": "decomposed",
                          "source": spec.sdpa_choice_source}
            statuses.append(OpStatus(op=op, target=spec.target, backend_version=spec.backend_version, status=status,
                                     provenance=provenance, mode=mode, torch_version=raw["torch_version"],
                                     note=spec.policy_notes.get(mode) if status in ("fallback", "unsupported")
                                     and rule == "fallback" and spec.policy_notes.get(mode) else None,
                                     detail=detail))
    return probe_run, statuses
