"""Model files in chat: `kb ask "what falls back on tpu for ./net.pt2?"` and the MCP
`check_model` tool run kb.check.resolve on the file — only formats that load without running code
from it (ExportedProgram, TorchScript). A chat platform's messages never reach here
(kb.chat.answer's `allow_files` is off for the bot).
"""

from __future__ import annotations

import os
import sqlite3
from typing import Any

from kb.chat.intents import Question, TargetMention
from kb.chat.oplookup import pick_versions
from kb.chat.reply import MAX_LIST, Answer, Sources
from kb.errors import KBError
from kb.store import queries
from kb.vocab import SEVERITY


def model_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    targets = q.target_names() or ["neuron"]
    path = q.model_path or "MODEL"
    lines = ["To see what falls back for a model, check it against the KB:"]
    lines += [f"- `kb check {path} --target {t}`" for t in targets]
    lines.append("It accepts an ExportedProgram (`torch.export.save`, read as data), a `model.py:factory` "
                 "with `--input-shape`, or TorchScript and pickled modules with `--trust` (loading them runs code). It lists every "
                 "ATen op with its status, where in the model it is used, and the device↔host hops fallbacks cause; "
                 "`--fail-on fallback` makes it a CI gate.")
    facts: list[dict[str, Any]] = [{"command": f"kb check {path} --target {t}"} for t in targets]
    return Answer(q.text, "model", "\n".join(lines), facts)


def named_model_answer(conn: sqlite3.Connection, q: Question, ents: Any) -> Answer | None:
    """"Will Mixtral run on a trn2?" without the model gallery: the command that answers it —
    `kb check` of the model's export — in the question's language."""
    if not ents.models:
        return None
    es = ents.language == "es"
    model = ents.models[0]
    targets = q.target_names() or ["neuron", "tpu"]
    slug = "".join(c if c.isalnum() else "-" for c in model).strip("-")
    commands = [f"`kb check {slug}.pt2 --target {t}`" for t in targets]
    if es:
        lines = [f"**Para saber si {model} funciona en {', '.join(targets)}**, el KB revisa una exportación del modelo: "
                 f"guárdalo con `torch.export.save` (puede ser con pesos aleatorios, desde su Config) y ejecuta "
                 + " y ".join(commands) + ".",
                 "Lista cada op ATen que ejecuta, con su estado (nativo, descompuesto, fallback, no soportado), dónde se "
                 "usa y los saltos dispositivo↔host; `--fail-on fallback` lo convierte en una puerta de CI."]
    else:
        lines = [f"**To tell whether {model} runs on {', '.join(targets)}**, kb checks an export of the model: save it with "
                 f"`torch.export.save` (random weights from its Config will do) and run " + " and ".join(commands) + ".",
                 "It lists every ATen op the model runs with its status (native, decomposed, fallback, unsupported), "
                 "where it is used, and the device↔host hops; `--fail-on fallback` makes it a CI gate."]
    facts: list[dict[str, Any]] = [{"model": model, "command": f"kb check {slug}.pt2 --target {t}"} for t in targets]
    return Answer(q.text, "model", "\n".join(lines), facts, language=ents.language)


# Formats that are read without running code from the file: the ExportedProgram's graph
# is read as data. Factories (model.py:build) import Python; pickles and TorchScript (its
# __setstate__ runs on loading) need --trust, which a chat never gives.
SAFE_MODEL_KINDS = ("exported_program",)


def check_available() -> bool:
    """Whether this checkout has `kb check` (kb.check.resolve, kb.check.tracing, kb.check.model_formats)."""
    import importlib.util

    spec = importlib.util.find_spec("kb.check.resolve")
    # only this checkout's own module (a shared venv's editable install may resolve another tree)
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return spec is not None and spec.origin is not None and os.path.dirname(os.path.dirname(spec.origin)) == package_root


def check_model_file(conn: sqlite3.Connection, path: str, targets: list[str], version: str | None = None,
                     mode: str = "eager") -> list[Any]:
    """kb.check.resolve reports (one per target) for a model file, refusing formats that run code."""
    if not check_available():
        raise KBError("this kb has no `kb check` (kb.check.resolve); cannot check a model file")
    from kb.check import model_formats, tracing
    from kb.check import resolve as kc

    source = model_formats.detect(path, trust=False)
    if source.kind not in SAFE_MODEL_KINDS:
        raise KBError(f"{path}: a {source.kind.replace('_', ' ')}; only ExportedProgram files (torch.export.save) "
                      f"are checked here (they are read without running code). Run `kb check {path}` yourself.")
    traced = tracing.trace(source, None, trust=False)
    reports = []
    for target in targets:
        queries.check_target(conn, target)
        pick = pick_versions(conn, TargetMention(target, version))
        chosen = [v for v in pick.versions if v in pick.with_data]
        backend_version = chosen[-1] if chosen else None
        rows = queries.support_map(conn, target, backend_version, mode) if (chosen or not version) else {}
        reports.append(kc.check(traced, kc.lookup_from_rows(rows), target=target,
                                backend_version=backend_version or pick.asked, mode=mode))
    return reports


def model_checked_answer(conn: sqlite3.Connection, q: Question) -> Answer:
    mentions = q.targets or [TargetMention("neuron")]
    version = next((m.version for m in mentions if m.version), None)
    reports = check_model_file(conn, q.model_path or "", [m.target for m in mentions], version)
    src = Sources()
    lines, facts = [], []
    for report in reports:
        summary = report.summary()
        lines.append(f"**{os.path.basename(report.model)}** ({report.model_kind}) on **{report.target}** "
                     f"{report.backend_version or '(no data)'}, {report.mode}: {summary['distinct_ops']} distinct ops, "
                     f"{summary['on_device_call_sites_pct']}% of {summary['call_sites']} calls on the device.")
        problems = [op for op in report.ops if op.status != "native" and op.status != "decomposed"]
        for op in sorted(problems, key=lambda o: (-SEVERITY.get(o.status, 3), o.op))[:MAX_LIST]:
            where = f" in {', '.join(op.module_paths[:2])}" if op.module_paths else ""
            cite = " " + src.cite({"source_kind": op.source_kind, "source_name": op.source_kind,
                                   "source_url": op.source_url}) if op.source_url else ""
            lines.append(f"- `{op.op}` ×{op.count}: **{op.status}**{where}{cite}")
        if len(problems) > MAX_LIST:
            lines.append(f"_…{len(problems) - MAX_LIST} more: `kb check {report.model} --target {report.target}`._")
        if not problems:
            lines.append("- every op is native or decomposes into native ops.")
        lines += [f"- ⚠ {w}" for w in report.warnings[:5]]
        facts.append({"model": report.model, "target": report.target, "backend_version": report.backend_version,
                      "summary": summary, "problems": [{"op": o.op, "status": o.status, "count": o.count}
                                                       for o in problems]})
    return Answer(q.text, "model", "\n".join(lines) + src.markdown(), facts, src.items)
