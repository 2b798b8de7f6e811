"""The static probe: what an installed backend's dispatcher says about every ATen overload.

`run_static_probe("torch_tpu")` starts a child Python (kb.probe._child) that imports only
that backend, reads its dispatch key's column for all ATen overloads and returns it raw;
`build_probe` turns that into a `ProbeRun` and one `OpStatus` per overload × mode.

Re-running is idempotent by construction: the run id is derived from what was probed
(backend, versions, host, policy, probe version and the table itself), not from the
clock, so the same install probed twice yields the same run id and the same observations
(only `retrieved_at`/`started_at` differ; ingest dedupes on run id + op + mode).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

import kb
from kb.errors import require_torch
from kb.paths import PACKAGE_ROOT
from kb.probe.backends import (
    Backend,
    BackendImportError,
    BackendNotInstalledError,
    ProbeError,
    action_for,
    get_backend,
    status_for,
)
from kb.store.records import OpStatus, ProbeRun, Provenance, utc_now
from kb.vocab import STATUSES

PROBE_VERSION = "1"
SOURCE_NAME = "static_probe"
PYTHONPATH_ENV = "KB_PROBE_PYTHONPATH"  # extra import paths for the child (e.g. /work/tpu-site)


@dataclass(frozen=True)
class StaticProbe:
    """A finished static probe: its header and its observations."""

    run: ProbeRun
    statuses: tuple[OpStatus, ...]

    def records(self) -> list[ProbeRun | OpStatus]:
        """The header first, then observations sorted by op and mode (stable diffs)."""
        return [self.run, *sorted(self.statuses, key=lambda s: (s.op, s.mode))]

    def counts(self) -> dict[str, dict[str, int]]:
        """mode -> status -> number of overloads."""
        counts: dict[str, Counter[str]] = {}
        for status in self.statuses:
            counts.setdefault(status.mode, Counter())[status.status] += 1
        return {mode: {s: c[s] for s in STATUSES if c[s]} for mode, c in counts.items()}


def tool_version() -> str:
    return f"kb {kb.__version__} static-probe {PROBE_VERSION}"


def table_digest(rows: list[list[Any]]) -> str:
    """sha256 of the dispatch column as read (op, entry, location, per-op action)."""
    text = "\n".join("\t".join("" if cell is None else str(cell) for cell in row) for row in sorted(rows))
    return hashlib.sha256(text.encode()).hexdigest()


def run_id_for(raw: dict[str, Any], target: str, digest: str) -> str:
    """A run id that names what was probed, so probing the same install again gives the same id."""
    identity = {k: raw.get(k) for k in ("backend", "backend_version", "torch_build", "python_version", "host", "policy",
                                        "companions")}
    identity.update(target=target, probe=tool_version(), table=digest)
    short = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()[:16]
    return f"static-{target}-{raw['backend_version']}-{short}"


def build_probe(spec: Backend, raw: dict[str, Any], *, started_at: str, finished_at: str | None = None) -> StaticProbe:
    """Records from the child's raw result (pure: no torch, no process)."""
    rows = raw["entries"]
    digest = table_digest(rows)
    run_id = run_id_for(raw, spec.target, digest)
    policy = raw["policy"]
    run = ProbeRun(
        run_id=run_id,
        kind="static",
        target=spec.target,
        backend=spec.name,
        backend_version=raw["backend_version"],
        torch_version=raw["torch_version"],
        python_version=raw["python_version"],
        host=raw["host"],
        started_at=started_at,
        finished_at=finished_at,
        fallback_policy=policy,
        params={
            "dispatch_key": raw["dispatch_key"],
            "modes": list(spec.modes),
            "ops": len(rows),
            "torch_build": raw["torch_build"],
            "table_sha256": digest,
            **({"companions": raw["companions"]} if raw.get("companions") else {}),
        },
        tool_version=tool_version(),
    )
    provenance = Provenance(
        source_kind="static_probe",
        source_name=SOURCE_NAME,
        retrieved_at=started_at,
        content_sha256=digest,
        tool_version=tool_version(),
        probe_run_id=run_id,
    )
    statuses = []
    for op, entry, location, per_op in rows:
        for mode in spec.modes:
            detail: dict[str, Any] = {"dispatch_key": raw["dispatch_key"], "entry": entry, "registered_at": location}
            if entry == "backend fallback":
                detail["fallback_action"] = action_for(policy, mode, per_op)
            statuses.append(OpStatus(
                op=op,
                target=spec.target,
                backend_version=raw["backend_version"],
                status=status_for(entry, mode, policy, per_op),
                provenance=provenance,
                mode=mode,
                torch_version=raw["torch_version"],
                detail={k: v for k, v in detail.items() if v is not None},
            ))
    return StaticProbe(run, tuple(statuses))


def child_env(python_path: list[str] | tuple[str, ...] = ()) -> dict[str, str]:
    """The child's environment: no backend autoload, kb importable, extra paths first."""
    env = dict(os.environ)
    env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    extra = [os.path.abspath(p) for p in (*python_path, *env.get(PYTHONPATH_ENV, "").split(os.pathsep)) if p]
    existing = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join([*extra, PACKAGE_ROOT, *existing])
    return env


def run_child(spec: Backend, *, python_path=(), options: dict[str, Any] | None = None,
              timeout: float = 600.0, python: str | None = None) -> dict[str, Any]:
    """Run kb.probe._child for `spec`; its raw JSON result, or a ProbeError."""
    env = child_env(python_path)
    if python is None:  # the child is this interpreter: without torch it could only crash
        require_torch(f"probing {spec.name}", env["PYTHONPATH"].split(os.pathsep))
    with tempfile.TemporaryDirectory(prefix="kb-probe-") as tmp:
        out = os.path.join(tmp, "result.json")
        command = [python or sys.executable, "-m", "kb.probe._child", "--backend", spec.name, "--out", out,
                   "--options", json.dumps(options or {})]
        try:
            done = subprocess.run(command, env=env, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            raise ProbeError(f"probing {spec.name} took longer than {timeout:g} s") from None
        raw = None
        if os.path.exists(out) and os.path.getsize(out):
            with open(out, encoding="utf-8") as result:
                raw = json.load(result)
    if raw is not None and "error" in raw:
        error = BackendNotInstalledError if raw["error"] == "not_installed" else BackendImportError
        raise error(f"{spec.name}: {raw['message']}")
    if raw is None or done.returncode != 0:
        raise BackendImportError(f"{spec.name}: the probe process {_describe_exit(done.returncode)}"
                                 f"{_last_words(done.stderr)}")
    return raw


def _describe_exit(code: int) -> str:
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name} while loading the backend"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code} without a result"


def _last_words(stderr: bytes) -> str:
    lines = [line.strip() for line in stderr.decode(errors="replace").splitlines() if line.strip()]
    return f"; last message: {lines[-1][:300]}" if lines else ""


def run_static_probe(backend: str, *, python_path=(), options: dict[str, Any] | None = None,
                     timeout: float = 600.0) -> StaticProbe:
    """Probe `backend` (a name in kb.probe.backends.BACKENDS) in a child process."""
    spec = get_backend(backend)
    options = {k: v for k, v in (options or {}).items() if v is not None}
    unknown = sorted(set(options) - set(spec.options))
    if unknown:
        raise ProbeError(f"backend {backend} takes no option {', '.join(unknown)}"
                         + (f" (it takes {', '.join(spec.options)})" if spec.options else ""))
    started = utc_now()
    raw = run_child(spec, python_path=python_path, options=options, timeout=timeout)
    return build_probe(spec, raw, started_at=started, finished_at=utc_now())
