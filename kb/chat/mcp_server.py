"""`kb mcp`: the KB as a Model Context Protocol server, so LLM chat clients can ask it.

Read-only tools with schemas and descriptions an LLM can use unaided: op status, target
comparison, end of support, search, and a free-form `ask` that runs the same answering
core as `kb ask` and the chat bot. Built on the official `mcp` SDK (2.x: `MCPServer`,
formerly FastMCP); stdio by default, streamable HTTP on 127.0.0.1 as an option.
Each call opens the KB afresh (cheap; picks up a rebuilt KB without a restart).
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from kb.errors import KBError

INSTRUCTIONS = """\
kb knows which PyTorch ATen operators run natively, decompose into other ops, fall back to
the CPU, or fail on AWS Trainium (target `neuron`: TorchNeuron; `neuron-xla`: the legacy
PyTorch/XLA path) and Google TPU (target `tpu`: TorchTPU), with the source of every fact.
Statuses: native, decomposed, fallback (works via host copies), unsupported, unknown (no
evidence: never read it as supported). Op names: aten::add.Tensor, aten.add.Tensor,
add.Tensor, or a bare name for every overload (add); torch functions such as
torch.nn.functional.silu are mapped to the ATen ops they dispatch to, and torch.nn modules
(nn.Linear, torch.nn.MultiheadAttention) to the ATen ops their forward dispatches (`modules`
then has one line per target, e.g. "tpu 0.2.0: 3 of 3 ops native"). Versions: for neuron,
`version` may be a Neuron SDK release (2.33) or a torch-neuronx/TorchNeuron version
(2.14.3.0); for tpu, a torch_tpu version (0.2.0). For a popular model by name (Mixtral, Llama 3
70B, Gemma, BERT, ResNet...), the `gallery` tool answers from its shipped op census without an
export. Cite the sources the tools return.
"""


def _conn(db: str | None):
    from kb.store.db import open_kb

    return open_kb(db)


def _tool_error(exc: Exception):
    from mcp.server.mcpserver.exceptions import ToolError

    return ToolError(str(exc))


CAVEAT_KEYS = ("target", "kind", "statement", "min_version", "max_version", "measured_on", "mode", "phase", "dtypes",
               "arg_dtypes", "conditions", "figure", "workaround", "source_name", "source_url", "retrieved_at")


def op_status_data(conn, op: str, target: str | None = None, version: str | None = None) -> dict[str, Any]:
    """Verdicts for an op (any spelling, torch function or close typo) on one or all targets."""
    from kb.chat import answer as core
    from kb.chat import intents
    from kb.store import queries, verdict

    word = op.strip()
    q = intents.Question(text=word)
    if intents.is_function_spelling(word):
        q.function_words.append(word.removesuffix("()"))
    else:
        q.op_words.append(word)
    matches, missing, suggestions = core.find_ops(conn, q)
    if not matches:
        raise KBError(f"unknown operator {op!r}" + (f"; close names: {', '.join(suggestions[:5])}" if suggestions else ""))
    picked = None
    versions: list[str] | None = None
    if target:
        queries.check_target(conn, target)
        if version:
            picked = core.pick_versions(conn, intents.TargetMention(target, version))
            versions = picked.versions
            if not versions:
                raise KBError(f"no release {version!r} for {target} (versions with data: "
                              f"{', '.join(picked.with_data) or 'none'})")
    ops = [o for m in matches for o in m.ops]
    rows = queries.op_verdicts(conn, ops, target)
    if versions is not None:
        rows = [r for r in rows if r["backend_version"] in versions]
    keep = ("target", "product", "backend_version", "mode", "status", "effective_status", "effective_via", "basis",
            "dtypes", "conditions", "note", "source_kind", "source_name", "source_url", "probe_run_id", "retrieved_at",
            "disagreement", "sources")
    result = []
    for name in ops:
        catalog = queries.op_catalog_entry(conn, name) or {}
        # a verdict resting on a local report file (kb ingest FILE) names it, and says so in `source`
        verdicts = [{**{k: r.get(k) for k in keep}, "local_report": r.get("report"), "source": verdict.source_text(r)}
                    for r in rows if r["op"] == name]
        field = [{k: c[k] for k in CAVEAT_KEYS} for c in queries.caveats(conn, ops=[name], target=target, version=version)]
        result.append({
            "op": name,
            "schema": catalog.get("schema"),
            "decomposes_everywhere": bool(catalog.get("composite_implicit")),
            "verdicts": verdicts,
            "status_if_no_verdict": "unknown",
            "caveats": field,  # known issues measured in public; they never change a verdict
        })
    return {
        "query": op,
        # a misspelt name read as a close one says so, as chat does ("nn.Lniear" read as nn.Linear)
        "matched_as": [{"asked": m.asked, "how": m.how, "read_as": m.read_as or None,
                        "note": (f"read {m.asked!r} as {m.read_as}; " if m.read_as else "") + (m.note or ""),
                        "ops": m.ops} for m in matches],
        "target": target,
        "version": version,
        "backend_versions": versions,
        "ops": result,
        "modules": _modules_of(conn, matches, target, versions),
    }


def _modules_of(conn, matches, target: str | None, versions: list[str] | None) -> list[dict[str, Any]]:
    """A torch.nn module asked about: how it was traced and per target one tally of its forward
    and one of its training step (kb.store.oppage.module_summary, as `kb op nn.Linear` shows)."""
    from kb.store import oppage, queries

    targets = [target] if target else queries.target_names(conn)
    chosen = {target: versions} if target and versions is not None else None
    return [oppage.module_summary(conn, m.module, targets, chosen) for m in matches if m.module is not None]


def search_data(conn, text: str, limit: int = 20) -> dict[str, Any]:
    """Ops, torch functions and limitations whose names or notes contain `text` (or are close to it)."""
    import difflib

    from kb.chat import answer as core
    from kb.store import torchnames

    needle = text.strip().lower()
    if not needle:
        raise KBError("empty search text")
    names = sorted(r[0] for r in conn.execute("SELECT name FROM op"))
    ops = [n for n in names if needle in n.lower()]
    if not ops:
        bases = sorted({n[6:].split(".")[0] for n in names})
        close = difflib.get_close_matches(needle.removeprefix("aten::"), bases, n=5, cutoff=0.6)
        ops = [n for n in names if n[6:].split(".")[0] in close]
    fmap, _ = core.function_map()
    functions = [{"function": f, "ops": fmap[f]} for f in sorted(fmap) if needle in f.lower()]
    modules = [{"module": name, "ops": list(found.ops)} for name in torchnames.search(text, limit)
               if (found := torchnames.resolve_module(name)) is not None]
    limitations = [{k: r[k] for k in ("target", "product", "version", "feature", "status", "note", "source_url")}
                   for r in core.limitation_rows(conn)
                   if needle in r["feature"].lower() or needle in (r["note"] or "").lower()]
    return {"query": text, "ops": ops[:limit], "ops_total": len(ops), "functions": functions[:limit],
            "modules": modules, "limitations": limitations[:limit]}


def eol_data(conn, product: str | None = None, version: str | None = None, at: str | None = None) -> dict[str, Any]:
    """End-of-support windows (kb.eol.windows), optionally one product and one cycle/version line."""
    from kb.chat.oplookup import same_line
    from kb.eol import products
    from kb.eol import windows as eol

    day = eol.user_day(at, "at") if at else None
    listing = eol.listing(conn, at=day)
    windows = listing["windows"]
    if product:  # kb.eol.windows's product match, or the words of a title ("pytorch" finds "PyTorch 2.9 on Neuron")
        word = product.lower()
        windows = [w for w in windows if products.matches(product, w["product"])
                   or word in " ".join(str(w.get(k) or "") for k in ("product", "product_label", "title")).lower()]
    if version:
        windows = [w for w in windows if same_line(version, str(w["cycle"])) or same_line(str(w["cycle"]), version)]
    keep = ("product", "product_label", "cycle", "title", "release_date", "support_end", "eol_from", "eol_kind",
            "eol_release", "eol_pending", "is_eol", "in_maintenance", "status", "days_left", "state", "note",
            "source_kind", "source_name", "source_url", "retrieved_at")
    return {"today": listing["today"], "at": listing["at"], "product": product, "version": version,
            "windows": [{k: w.get(k) for k in keep} for w in windows],
            "note": None if windows else "no support window matches: end of support is unknown for it"}


def releases_data(conn, product: str, version: str | None = None) -> dict[str, Any]:
    """Releases of a product from the registry, newest first (one version line when given)."""
    from kb.chat import names
    from kb.store import releases

    word = product.strip().lower()
    known = releases.products(conn)
    readings = [word] if word in known else list(names.PRODUCT_WORDS.get(word, ()))
    readings = [p for p in readings if p in known]
    if not readings:
        raise KBError(f"no product {product!r} in the release registry (known: {', '.join(known)}; nicknames: "
                      f"{', '.join(sorted(names.PRODUCT_WORDS))})")
    chosen = readings[0]
    rows = releases.find(conn, chosen, version) if version else releases.releases(conn, chosen)
    latest = releases.latest(conn, chosen)
    return {"product": chosen, "asked": product, "other_readings": readings[1:], "version": version,
            "latest": latest["version"] if latest else None, "releases": rows[:50], "releases_total": len(rows),
            "in_sdk": releases.in_sdk(conn, rows[0]["version"]) if chosen == "neuron-sdk" and rows else [],
            "note": None if rows else f"no {chosen} release {version} in the registry: unknown; `kb ingest --all` "
                                      "refreshes it from the release notes"}


def limitations_data(conn, target: str | None = None, feature: str | None = None) -> dict[str, Any]:
    """Documented limitations (dtypes, feature areas, compile options, fallback policies, platforms)."""
    from kb.chat import answer as core
    from kb.chat import names
    from kb.store import queries, verdict

    if target:
        queries.check_target(conn, target)
    rows = [r for r in core.limitation_rows(conn) if not target or r["target"] == target]
    words: tuple[str, ...] = ()
    if feature:
        found = names.features_in(feature)
        words = tuple(w for _, ws in found for w in ws) or (feature.strip().lower(),)
        rows = [r for r in rows if any(w in r["feature"].lower() or w in (r["note"] or "").lower() for w in words)]
    keep = ("target", "product", "version", "feature", "status", "note", "source_kind", "source_name", "source_url",
            "retrieved_at")
    return {"target": target, "feature": feature, "matched_words": list(words),
            "limitations": [{k: r.get(k) for k in keep} for r in rows],
            "note": None if rows else (f"no limitation recorded for {feature or 'anything'} on {target or 'any target'}: "
                                       f"unknown, not 'no limitation'. `{verdict.settle(target or 'NAME')}` records op "
                                       "verdicts; a dtype needs a live probe: kb probe --device TARGET --dtypes DTYPE")}


def families_data(conn, family: str | None = None, target: str | None = None, version: str | None = None,
                  status: str | None = None) -> dict[str, Any]:
    """Op families (conv, attention, norm...), or one family's ops with where each runs on a target."""
    from kb.store import families, queries, verdict

    if family is None:
        return {"families": families.overview(conn)}
    fam = families.family(family)
    if fam is None:
        raise KBError(f"no op family {family!r} (families: {', '.join(f.name for f in families.FAMILIES)})")
    ops = families.family_ops(conn, fam.name)
    out: dict[str, Any] = {"family": fam.name, "label": fam.label, "words": list(fam.words), "ops_total": len(ops)}
    if target is None:
        return {**out, "ops": ops}
    queries.check_target(conn, target)
    chosen = version
    if version:
        from kb.chat.oplookup import pick_versions

        pick = pick_versions(conn, intents_mention(target, version))
        with_data = [v for v in pick.versions if v in pick.with_data]
        if not with_data:
            raise KBError(f"no verdicts for {target} {version} (versions with data: {', '.join(pick.with_data) or 'none'})")
        chosen = with_data[-1]
    verdicts = queries.support_map(conn, target, chosen)
    rows = []
    for op in ops:
        row = verdicts.get(op)
        runs = verdict.effective_status(row)
        if status and runs != status:
            continue
        rows.append({"op": op, "status": row["status"] if row else "unknown", "effective_status": runs,
                     "where": verdict.runs(row), "basis": row.get("basis") if row else None,
                     "source_url": row.get("source_url") if row else None,
                     "probe_run_id": row.get("probe_run_id") if row else None})
    counts: dict[str, int] = {}
    for op in ops:
        key = verdict.effective_status(verdicts.get(op))
        counts[key] = counts.get(key, 0) + 1
    return {**out, "target": target, "backend_version": queries.pick_version(conn, target, chosen), "status": status,
            "counts_by_effective_status": counts, "ops": rows,
            "basis_note": queries.basis_note(conn, target, queries.pick_version(conn, target, chosen))}


def intents_mention(target: str, version: str | None):
    from kb.chat.intents import TargetMention

    return TargetMention(target, version)


def diff_data(conn, target: str, old: str, new: str, mode: str = "eager", family: str | None = None,
              limit: int = 200) -> dict[str, Any]:
    """queries.diff between two versions of a target (SDK versions accepted for neuron)."""
    from kb.chat.oplookup import pick_versions
    from kb.store import families, queries

    queries.check_target(conn, target)
    picked = []
    for version in (old, new):
        pick = pick_versions(conn, intents_mention(target, version))
        with_data = [v for v in pick.versions if v in pick.with_data]
        if not with_data:
            raise KBError(f"no verdicts for {target} {version} (versions with data: {', '.join(pick.with_data) or 'none'})")
        picked.append(with_data[-1])
    result = queries.diff(conn, target, picked[0], picked[1], mode)
    if family:
        fam = families.family(family)
        if fam is None:
            raise KBError(f"no op family {family!r}")
        ops = set(families.family_ops(conn, fam.name))
        for key in ("gained", "lost", "changed"):
            result[key] = [r for r in result[key] if r["op"] in ops]
    totals = {k: len(result[k]) for k in ("gained", "lost", "changed")}
    return {**result, "family": family, "totals": totals, **{k: result[k][:limit] for k in ("gained", "lost", "changed")}}


def gallery_data(conn, model: str | None = None, target: str | None = None, mode: str = "eager",
                 question: str | None = None) -> dict[str, Any]:
    """The gallery tool (kb.gallery, kb.chat.answer_gallery): one model's answer with sources,
    a question about models, or the models × targets table with the Baseline line."""
    from kb.chat.answer_gallery import gallery_answer
    from kb.gallery import views
    from kb.store.targetspec import resolve_versions, split_specs

    targets, asked = split_specs([target[:200]]) if target else (list(views.DEFAULT_TARGETS), {})
    versions = resolve_versions(conn, asked, single=True) if asked else {}  # tpu=0.1.1, the CLI's grammar
    if model or question:
        text = question or f"will {model} run?"
        if model:
            views.model_entry(conn, model)  # an unknown model is a tool error naming the closest
            text = question or f"will {views.model_entry(conn, model)['name']} run"
        found = gallery_answer(conn, text + (" compile" if mode == "compile" and "compile" not in text else ""), targets,
                               versions=versions)
        if found is None:
            raise KBError("the question names no gallery model and asks for no list of models (kb gallery lists them)")
        from kb.chat.reply import finish_quotes

        found.text = finish_quotes(found.text, found.language)  # record-text marks, as answer() leaves them
        return found.to_dict()
    result = views.table(conn, targets, versions or None, (mode,))
    return {"rows": result["rows"], "baseline": result["baseline"], "not_built": result["not_built"],
            "versions": result["versions"], "models": result["models"]}


def build_server(db: str | None = None):
    """The MCPServer with kb's read-only tools registered."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.types import ToolAnnotations
    except ImportError:  # not installed, or mcp 1.x (FastMCP): this server is written for mcp 2
        raise KBError("kb mcp needs the MCP SDK 2.x: pip install 'torch-accel-kb[chat]' (mcp>=2.3)") from None

    import kb

    server = MCPServer(name="kb", version=kb.__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                       description="PyTorch operator support on Trainium (neuron) and TPU, with sources")
    read_only = ToolAnnotations(read_only_hint=True, idempotent_hint=True, open_world_hint=False)

    def run(fn, *args, **kwargs) -> dict[str, Any]:
        conn = _conn(db)
        try:
            return fn(conn, *args, **kwargs)
        except KBError as exc:
            raise _tool_error(exc) from None
        finally:
            conn.close()

    @server.tool(name="op_status", title="Operator status", annotations=read_only, structured_output=True)
    def op_status(
        op: Annotated[str, Field(description="ATen op (aten::nonzero, aten.add.Tensor, add), torch function "
                                             "(torch.nn.functional.silu, torch.Tensor.view) or torch.nn module "
                                             "(nn.Linear, torch.nn.LSTM); close typos are corrected")],
        target: Annotated[str | None, Field(description="neuron, neuron-xla, tpu, cpu, meta, cuda or sim; omit for all")] = None,
        version: Annotated[str | None, Field(description="With target: Neuron SDK release (2.33) or backend version "
                                                         "(2.14.3.0, tpu 0.2.0); omit for every version")] = None,
    ) -> dict[str, Any]:
        """Is this PyTorch operator native, decomposed, CPU-fallback or unsupported on a target?
        Returns every verdict the KB holds per overload, target, backend version and mode (eager/compile),
        each with its source (document URL or probe run). `effective_status` says where the op really runs
        (a decomposed op runs as its worst leaf, named in `effective_via`); `basis` is evidence (a probe or
        document), inferred (dispatcher replay of a kernel list) or presumed (carried from an older version).
        An overload with no verdict is unknown. A torch.nn module stands for the ATen ops its forward
        dispatches (traced once on meta tensors); `modules` then gives, per target, one line such as
        "tpu 0.2.0: 3 of 3 ops native" for its forward and one for its training step."""
        return run(op_status_data, op, target, version)

    @server.tool(name="compare_targets", title="Compare targets", annotations=read_only, structured_output=True)
    def compare_targets(
        targets: Annotated[list[str], Field(description="Two or more targets, e.g. [\"neuron\", \"tpu\"]",
                                            min_length=2, max_length=6)],
        op: Annotated[str | None, Field(description="Only ops whose name contains this (e.g. nonzero)")] = None,
        only_differences: Annotated[bool, Field(description="Only ops whose status differs between targets")] = True,
        mode: Annotated[str, Field(description="eager or compile")] = "eager",
        limit: Annotated[int, Field(description="Most rows to return", ge=1, le=500)] = 100,
    ) -> dict[str, Any]:
        """A caniuse-style matrix: op × target status, each target at its newest version with data.
        A missing verdict is reported as unknown."""
        from kb.store import queries

        def fn(conn):
            for t in targets:
                queries.check_target(conn, t)
            if mode not in ("eager", "compile"):
                raise KBError(f"unknown mode {mode!r} (eager or compile)")
            matrix = queries.compare(conn, targets, mode, op, only_differences)
            total = len(matrix["rows"])
            return {**matrix, "rows": matrix["rows"][:limit], "rows_total": total}

        return run(fn)

    @server.tool(name="end_of_support", title="End of support", annotations=read_only, structured_output=True)
    def end_of_support(
        product: Annotated[str | None, Field(description="Product, loosely matched: neuron, neuron-sdk, torch-neuronx, "
                                                         "torch_tpu, pytorch, python, ubuntu, nxd, inf1...; omit for all")] = None,
        version: Annotated[str | None, Field(description="Release cycle or version line, e.g. 2.9 or 3.10")] = None,
        at: Annotated[str | None, Field(description="YYYY-MM-DD: only what is out of support (or pending) that day")] = None,
    ) -> dict[str, Any]:
        """When a product cycle (Neuron SDK release, torch-neuronx, TorchTPU, PyTorch, Python, OS) leaves
        support: end of active support, end of life, whether announced, projected or 'ends with release X',
        and whether it has already ended — with the source of each statement."""
        return run(eol_data, product, version, at)

    @server.tool(name="list_targets", title="Targets and versions", annotations=read_only, structured_output=True)
    def list_targets() -> dict[str, Any]:
        """The targets kb knows (neuron, neuron-xla, tpu, cpu, meta, cuda, sim), the backend versions of each
        that have verdicts, and verdict counts at the newest version by own status (eager_counts) and by
        where the op runs (eager_runs: a decomposed op as its worst leaf). Call this first to learn
        which versions questions can be answered for."""
        from kb.store import queries

        def fn(conn):
            rows = queries.targets_overview(conn)
            keep = ("name", "label", "product", "device", "dispatch_key", "vendor", "description", "versions",
                    "latest", "eager_counts", "eager_runs")  # by own status / by where the op runs
            return {"targets": [{k: r.get(k) for k in keep} for r in rows]}

        return run(fn)

    @server.tool(name="search", title="Search ops and limitations", annotations=read_only, structured_output=True)
    def search(
        text: Annotated[str, Field(description="Part of an op name (flash_attention), torch function (functional.gelu) "
                                               "or feature (float64, sparse)", min_length=1, max_length=200)],
        limit: Annotated[int, Field(ge=1, le=200, description="Most results per kind")] = 20,
    ) -> dict[str, Any]:
        """Find operator names (ATen catalog), torch functions, torch.nn modules and known feature limitations by text."""
        from kb.chat.reply import clean_text

        return run(search_data, clean_text(text), limit)  # a lone surrogate can't be written back (attacker s11)

    @server.tool(name="releases", title="Releases of a product", annotations=read_only, structured_output=True)
    def releases_tool(
        product: Annotated[str, Field(description="Product or nickname: torch-neuronx / torchneuron / trainium / trn2 "
                                                  "(TorchNeuron), neuron-sdk / neuron (Neuron SDK), tpu / torchtpu / "
                                                  "torch_tpu (TorchTPU), torch-neuronx-xla, neuronx-cc, nki...")],
        version: Annotated[str | None, Field(description="A version or version line (2.14.3, 2.33, 0.2.0); omit for all "
                                                         "releases, newest first")] = None,
    ) -> dict[str, Any]:
        """Release registry: the latest release of a product and what each release ships — date, Neuron SDK
        version, PyTorch versions, Python versions, OS, instance families (Trn2, Trn3...), channel (beta,
        pre-release) — with the source of each row. Use it for "latest version", "when was X released",
        "which Python/PyTorch does X support". `other_readings` names the other products a nickname can mean
        (torch-neuronx is also the older XLA-based line)."""
        return run(releases_data, product, version)

    @server.tool(name="limitations", title="Known limitations", annotations=read_only, structured_output=True)
    def limitations_tool(
        target: Annotated[str | None, Field(description="neuron, tpu or neuron-xla; omit for all")] = None,
        feature: Annotated[str | None, Field(description="A dtype (float64, fp64, bf16, fp8), feature area (sparse, "
                                                         "nested, complex, fft, torch.func, distributions, torchao) or "
                                                         "compile option (dynamic shapes, compile fallback, fallback "
                                                         "policy); omit for all")] = None,
    ) -> dict[str, Any]:
        """Documented limitations of a backend release: unsupported dtypes and feature areas, torch.compile
        options, CPU-fallback policies, platforms. An empty list means the KB records nothing — unknown,
        not "no limitation"; `note` then names the command that would find out."""
        return run(limitations_data, target, feature)

    @server.tool(name="families", title="Op families", annotations=read_only, structured_output=True)
    def families_tool(
        family: Annotated[str | None, Field(description="A family word: conv, attention, norm, pool, fft, matmul, "
                                                        "linalg, sparse, nested, complex, rnn, embedding, softmax, loss, "
                                                        "dropout, activation, random, reduction, indexing, sort...; omit "
                                                        "to list the families")] = None,
        target: Annotated[str | None, Field(description="With family: neuron, tpu...; each op with where it runs")] = None,
        version: Annotated[str | None, Field(description="With target: backend or Neuron SDK version; default newest")] = None,
        status: Annotated[str | None, Field(description="Only ops that run this way: native, decomposed, fallback, "
                                                        "unsupported, unknown")] = None,
    ) -> dict[str, Any]:
        """Groups of ATen ops people name by a word ("which conv ops fall back on neuron?"): the family's
        catalog overloads and, on a target, each op's status and effective status — where it really runs
        (a decomposed op whose leaf falls back counts as fallback) — with counts, basis and source."""
        return run(families_data, family, target, version, status)

    @server.tool(name="diff", title="Changes between versions", annotations=read_only, structured_output=True)
    def diff_tool(
        target: Annotated[str, Field(description="neuron, tpu, neuron-xla...")],
        old: Annotated[str, Field(description="Older version (tpu 0.1.1; neuron 2.13.3.0 or SDK 2.33)")],
        new: Annotated[str, Field(description="Newer version (tpu 0.2.0)")],
        mode: Annotated[str, Field(description="eager or compile")] = "eager",
        family: Annotated[str | None, Field(description="Only ops of this family (conv, attention...)")] = None,
        limit: Annotated[int, Field(ge=1, le=2000, description="Most rows per change kind")] = 200,
    ) -> dict[str, Any]:
        """What changed between two versions of a target: kernels gained, kernels lost, and every other
        change of where an op runs, each with both statuses and what each verdict rests on (evidence,
        inferred, presumed). Use it for "what changed between tpu 0.1.1 and 0.2.0"."""
        if mode not in ("eager", "compile"):
            raise _tool_error(KBError(f"unknown mode {mode!r} (eager or compile)"))
        return run(diff_data, target, old, new, mode, family, limit)

    @server.tool(name="gallery", title="Popular models on a target", annotations=read_only, structured_output=True)
    def gallery_tool(
        model: Annotated[str | None, Field(description="A gallery model (mixtral-8x7b, 'Llama 3.1 70B', gemma-2-9b); "
                                                       "omit for every model")] = None,
        target: Annotated[str | None, Field(description="neuron or tpu, or TARGET=VERSION (tpu=0.1.1); "
                                                                 "omit for both")] = None,
        mode: Annotated[str, Field(description="eager or compile")] = "eager",
        question: Annotated[str | None, Field(description="Or a question: 'which popular models need the CPU on "
                                                          "tpu?'", max_length=1000)] = None,
    ) -> dict[str, Any]:
        """Will a popular model run on Trainium or TPU, without exporting it: the gallery's op census of
        40+ architectures at their published sizes, checked against the KB's verdicts now (share of
        calls and FLOPs on the device, fallback and unsupported ops, torch.compile outcome), with the
        gallery entry and the verdicts' sources cited; without a model, every model and the Baseline
        line (how many run fully on the device)."""
        if mode not in ("eager", "compile"):
            raise _tool_error(KBError(f"unknown mode {mode!r} (eager or compile)"))
        return run(gallery_data, model, target, mode, question)

    @server.tool(name="ask", title="Ask a question", annotations=read_only, structured_output=True)
    def ask(
        question: Annotated[str, Field(description="A question in plain words, e.g. 'is nonzero native on neuron "
                                                   "2.33?', 'when does PyTorch 2.9 leave support on Neuron?'",
                                       min_length=1, max_length=1000)],
    ) -> dict[str, Any]:
        """Answer a free question about op status, op families, target differences, releases and versions,
        version changes, end of support (also of a feature line: PyTorch/XLA training on Trn1), known limitations
        (dtypes, feature areas, compile options), fallback policy, or cost per million tokens from a price and a
        rate in the question. English or Spanish: the answer comes in the question's language (`language`).
        Returns markdown text, structured facts and sources; says 'unknown' where the KB has no evidence."""
        from kb.chat.answer import answer

        return run(lambda conn: answer(question, conn=conn).to_dict())

    if check_available():
        register_check_tool(server, db, read_only)
    return server


def check_available() -> bool:
    from kb.chat.answer_model import check_available as available

    return available()


def check_model_data(conn, path: str, targets: list[str], version: str | None, mode: str) -> dict[str, Any]:
    from kb.chat.answer_model import check_model_file

    reports = check_model_file(conn, path, targets, version, mode)
    out = []
    for report in reports:
        body = report.to_dict()
        out.append({k: body[k] for k in ("model", "model_kind", "target", "backend_version", "mode", "summary",
                                          "warnings", "eager", "compile", "notes")}
                   | {"ops": [{k: op[k] for k in ("op", "count", "status", "module_paths", "dtypes", "source_kind",
                                                  "source_url", "reason", "fallback_calls")} for op in body["ops"]]})
    return {"model": path, "reports": out}


def register_check_tool(server, db: str | None, annotations) -> None:
    """check_model: what a model file runs on a target (ExportedProgram only: TorchScript and
    pickles run code on loading, and a chat client cannot pass --trust)."""

    @server.tool(name="check_model", title="Check a model file", annotations=annotations, structured_output=True)
    def check_model(
        path: Annotated[str, Field(description="Local path of an ExportedProgram (torch.export.save) file; "
                                               "formats that run code (TorchScript, pickles) are refused")],
        targets: Annotated[list[str], Field(description="Targets, e.g. [\"neuron\"] or [\"neuron\", \"tpu\"]",
                                            min_length=1, max_length=4)] = ["neuron"],  # noqa: B006
        version: Annotated[str | None, Field(description="Neuron SDK release (2.33) or backend version; default newest with data")] = None,
        mode: Annotated[str, Field(description="eager or compile")] = "eager",
    ) -> dict[str, Any]:
        """Trace a model file (no weights loaded, no code from the file run) and resolve every ATen op it
        runs on each target: native, decomposed, CPU fallback, unsupported or unknown, with call counts,
        module paths, sources, and the device-host round trips fallbacks cause."""
        if mode not in ("eager", "compile"):
            raise _tool_error(KBError(f"unknown mode {mode!r} (eager or compile)"))
        conn = _conn(db)
        try:
            return check_model_data(conn, path, targets, version, mode)
        except KBError as exc:
            raise _tool_error(exc) from None
        finally:
            conn.close()


# A JSON escape of half a surrogate pair ("\ud800" alone) is valid JSON but no text: the SDK's message parser rejects
# the whole line and, knowing no request id, answers nothing, so the client waits for ever (attacker s11). Such an
# escape is read as U+FFFD before the SDK sees the line; a whole pair (an emoji) is kept.
_LONE_SURROGATE = re.compile(r"(?i)\\ud[89ab][0-9a-f]{2}(?!\\ud[c-f][0-9a-f]{2})|(?<!\\ud[89ab][0-9a-f]{2})\\ud[c-f][0-9a-f]{2}")


class _SurrogateSafeLines:
    """stdin for the MCP SDK, each line with its lone surrogate escapes replaced (see _LONE_SURROGATE)."""

    def __init__(self, raw: Any) -> None:
        self._raw = raw

    def readline(self, *args: Any) -> str:
        return _LONE_SURROGATE.sub(r"\\ufffd", self._raw.readline(*args))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


def _serve_stdio(server: Any) -> None:
    import io
    import sys

    import anyio
    from mcp.server.stdio import stdio_server

    async def run() -> None:
        stdin = anyio.wrap_file(_SurrogateSafeLines(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")))
        async with stdio_server(stdin=stdin) as (read_stream, write_stream):
            low = server._lowlevel_server  # what MCPServer.run("stdio") runs, with this stdin
            await low.run(read_stream, write_stream, low.create_initialization_options())

    anyio.run(run)


def serve(db: str | None = None, *, http: bool = False, host: str = "127.0.0.1", port: int = 8765) -> None:
    server = build_server(db)
    if http:
        server.run("streamable-http", host=host, port=port)
    else:
        _serve_stdio(server)
