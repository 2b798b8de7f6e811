"""The typer application: one function per command, each parsing arguments, calling
`kb` and rendering (cli.views). Command groups that grow large live in their own cli/
module and are registered at the bottom of this file.

Exit codes: 0 ok, 1 a finding or a gate tripped, 2 usage or input error.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

import kb
from cli import render, views
from cli.options import DbOption, JsonOption, VerboseOption
from cli.render import emit_json, note, table

app = typer.Typer(
    name="kb",
    help="Which ATen ops run natively, decompose, fall back to CPU or fail on Trainium (neuron) and TPU.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)
db_app = typer.Typer(help="The KB file: build, locate, count, refresh the op catalog.", no_args_is_help=True)
app.add_typer(db_app, name="db")
data_app = typer.Typer(help="The shipped knowledge in data/: export what this KB learned.", no_args_is_help=True)
app.add_typer(data_app, name="data")

ModeOption = Annotated[str, typer.Option("--mode", help="eager or compile.")]


def _open(db: Optional[str]):
    from kb.store.db import open_kb

    return open_kb(db)


def _check_mode(mode: str) -> None:
    from kb.errors import KBError
    from kb.vocab import MODES

    if mode not in MODES:
        raise KBError(f"unknown mode {mode!r} (expected {' or '.join(MODES)})")


@app.callback()
def _root() -> None:
    """kb: a compatibility knowledge base for PyTorch on Trainium and TPU."""


TargetsOption = Annotated[Optional[list[str]], typer.Option(
    "--target", "-t", help="Target, or TARGET=VERSION (repeat for several).")]
BackendVersionOption = Annotated[Optional[str], typer.Option(
    "--backend-version", help="Backend version, or TARGET=VERSION (default: newest with data).")]
OldVersionOption = Annotated[Optional[str], typer.Option("--version", hidden=True, help="Old spelling of --backend-version.")]


@app.command("version")
def version_command(json_out: JsonOption = False) -> None:
    """kb's distribution name and version, and which data it answers from (a content digest)."""
    import os

    from kb import paths
    from kb.errors import KBError
    from kb.store.dbfile import data_digest

    root = paths.data_dir()
    if not os.path.isdir(root):
        raise KBError(f"no data folder at {root} (KB_DATA_DIR names a folder that does not exist?)")
    from kb.store import queries
    from kb.store.db import open_kb

    try:  # the KB's "as of": kb version still answers where the KB cannot be opened
        conn = open_kb(None)
        by_source = queries.data_as_of(conn)
    except (KBError, OSError):
        by_source = {}
    result = {"distribution": kb.DIST_NAME, "version": kb.__version__, "data_dir": root,
              "data_sha256": data_digest(root), "data_as_of": max(by_source.values(), default=None),
              "data_as_of_by_source": by_source}
    if json_out:
        emit_json(result)
    else:
        as_of = f", as of {result['data_as_of']}" if result["data_as_of"] else ""
        typer.echo(f"{result['distribution']} {result['version']} (data sha256:{result['data_sha256'][:16]} "
                   f"from {root}{as_of})")


@app.command("op")
def op_command(
    name: Annotated[str, typer.Argument(help="aten::add.Tensor, aten.add.Tensor, torch.ops.aten.add.Tensor, add.Tensor, add (every overload), torch.nonzero, F.scaled_dot_product_attention, or a torch.nn module (nn.Linear: the ATen ops its forward dispatches).")],
    target: TargetsOption = None,
    json_out: JsonOption = False,
    verbose: VerboseOption = False,
    db: DbOption = None,
) -> None:
    """One op's page: every target, versions × mode, where it runs and via what, related kernels."""
    render.VERBOSE = verbose
    if _custom_op(name):  # s30b (#30): a custom op a gallery census names (transformers::grouped_mm_fallback)
        from cli.gallery import custom_op_page

        return custom_op_page(name, json_out, db)
    from kb.store import api

    views.op_report(api.op(name, target, db=db, on_note=note), json_out)


def _custom_op(name: str) -> bool:
    """NAMESPACE::op with a namespace other than aten (`torch.ops.aten::silu` is an ATen spelling)."""
    return "::" in name and (ns := name.strip().split("::", 1)[0]).isidentifier() and ns != "aten"


@app.command("ops")
def ops_command(
    target: Annotated[list[str], typer.Option("--target", "-t", help="Target to list, or TARGET=VERSION.")],
    status: Annotated[Optional[str], typer.Option("--status", "-s", help="Only this status (unknown: catalog ops with no verdict).")] = None,
    backend_version: BackendVersionOption = None,
    old_version: OldVersionOption = None,
    mode: ModeOption = "eager",
    grep: Annotated[Optional[str], typer.Option("--grep", help="Only ops whose name contains this.")] = None,
    sort: Annotated[str, typer.Option("--sort", help="name, or usage: the ops most gallery models call first (kb gallery).")] = "name",
    json_out: JsonOption = False,
    verbose: VerboseOption = False,
    db: DbOption = None,
) -> None:
    """The ops of one target with a given status."""
    render.VERBOSE = verbose  # the basis notice in full instead of its folded line
    from cli.grammar import merge_alias
    from kb.store import api

    version = merge_alias(backend_version, old_version, "--backend-version", "--version")
    views.ops_list(api.ops(target, status, backend_version=version, mode=mode, grep=grep, sort=sort, db=db,
                           on_note=note), json_out)


@app.command("compare")
def compare_command(
    targets: Annotated[Optional[list[str]], typer.Argument(help="Two or more targets, e.g. neuron tpu (or tpu=0.2.0).")] = None,
    target: TargetsOption = None,
    backend_version: Annotated[Optional[list[str]], typer.Option(
        "--backend-version", help="TARGET=VERSION (repeat per target; default: newest with data).")] = None,
    mode: ModeOption = "eager",
    grep: Annotated[Optional[str], typer.Option("--grep", help="Only ops whose name contains this.")] = None,
    diff: Annotated[bool, typer.Option("--diff", help="Only ops whose status differs between targets (known on every one unless --all).")] = False,
    all_rows: Annotated[bool, typer.Option("--all", help="With --diff: keep the rows where a target is unknown.")] = False,
    sort: Annotated[str, typer.Option("--sort", help="name, or usage: the ops most gallery models call first (kb gallery).")] = "name",
    json_out: JsonOption = False,
    verbose: VerboseOption = False,
    db: DbOption = None,
) -> None:
    """A caniuse-style matrix of ops × targets (each at its newest version with data)."""
    render.VERBOSE = verbose
    from cli.grammar import resolve_versions, split_targets
    from kb.errors import KBError
    from kb.store import queries

    _check_mode(mode)
    names, versions = split_targets([*(targets or ()), *(target or ())], backend_version)
    if len(names) < 2:
        raise KBError("compare needs two or more different targets, e.g. kb compare neuron tpu")
    conn = _open(db)
    for name in names:
        queries.check_target(conn, name)
    versions = resolve_versions(conn, versions, single=True)
    from kb.store import gallery

    gallery.check_sort(sort)
    result = queries.compare(conn, names, mode, grep, diff, versions, keep_unknown=all_rows)
    if sort == "usage":
        result["rows"] = gallery.sort_by_usage(conn, result["rows"])
    views.compare_matrix(result, json_out)


@app.command("diff")
def diff_command(
    target: Annotated[str, typer.Argument(help="Target, e.g. tpu.")],
    old: Annotated[str, typer.Argument(help="The older backend version, e.g. 0.1.1.")],
    new: Annotated[str, typer.Argument(help="The newer backend version, e.g. 0.2.0.")],
    mode: ModeOption = "eager",
    json_out: JsonOption = False,
    verbose: VerboseOption = False,
    db: DbOption = None,
) -> None:
    """Ops gained and lost between two versions of a target, and every other change of where an op runs."""
    render.VERBOSE = verbose
    from cli.grammar import resolve_versions
    from kb.store import queries

    conn = _open(db)
    queries.check_target(conn, target)
    old = resolve_versions(conn, {target: old}, single=True)[target]
    new = resolve_versions(conn, {target: new}, single=True)[target]
    views.diff_view(queries.diff(conn, target, old, new, mode), json_out)


@app.command("targets")
def targets_command(target: TargetsOption = None, json_out: JsonOption = False, db: DbOption = None,
                    verbose: VerboseOption = False) -> None:
    """The targets kb knows, their versions with data and verdict counts (newest version, or TARGET=VERSION)."""
    from cli.grammar import resolve_versions, split_targets
    from kb.store import queries

    render.VERBOSE = verbose  # the folded basis line, or the per-version note of each target

    names, versions = split_targets(target)
    conn = _open(db)
    for name in names:
        queries.check_target(conn, name)
    versions = resolve_versions(conn, versions, single=True)
    views.targets_view(queries.targets_overview(conn, versions, names or None), json_out)


@app.command("disagreements")
def disagreements_command(
    target: TargetsOption = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Verdicts whose sources say different things (doc vs probe, say)."""
    from cli.grammar import split_targets
    from kb.store import queries

    targets, versions = split_targets(target)
    conn = _open(db)
    rows = [r for name in (targets or [None]) for r in queries.disagreements(conn, name)
            if r["target"] not in versions or r["backend_version"] == versions[r["target"]]]
    views.disagreements_view(rows, json_out)


@db_app.command("path")
def db_path_command(json_out: JsonOption = False, db: DbOption = None) -> None:
    """Print where the KB file is (KB_DB / --db override the user cache folder)."""
    import os

    from kb.store.db import resolve_path

    path = resolve_path(db)
    if json_out:
        emit_json({"path": path, "exists": os.path.exists(path)})
    else:
        typer.echo(path)


@db_app.command("build")
def db_build_command(
    clean: Annotated[bool, typer.Option("--clean", help="Start from scratch: drops local probe and ingest data.")] = False,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Build the KB from the shipped data/ (or refresh its shipped part, keeping local data)."""
    import os

    from kb.store import build
    from kb.store.db import resolve_path

    path = resolve_path(db)
    result = build.build(path) if clean or not os.path.exists(path) else build.refresh(path)
    if json_out:
        emit_json(result)
    else:
        note(f"built {result['path']}: {result['records']} shipped records, {result['verdicts']} verdicts in {result['seconds']} s")


@db_app.command("stats")
def db_stats_command(json_out: JsonOption = False, db: DbOption = None) -> None:
    """Row counts, schema version, build facts."""
    from kb.store import queries

    result = queries.stats(_open(db))
    if json_out:
        emit_json(result)
        return
    rows = [[name, count] for name, count in result["tables"].items()]
    rows += [[f"observations from {k}", v] for k, v in sorted(result["observations_by_source_kind"].items())]
    rows += [["disagreements", result["disagreements"]], ["schema version", result["schema_version"]]]
    rows += [[k, v] for k, v in sorted(result["meta"].items())]
    table(["what", "value"], rows, status_column=None)


@db_app.command("catalog")
def db_catalog_command(json_out: JsonOption = False, db: DbOption = None) -> None:
    """Load the op catalog of the installed torch into the KB (built once per torch version, cached)."""
    from kb.store import catalog, dbfile
    from kb.store import db as kbdb
    from kb.store.build import load_ops

    path = kbdb.resolve_path(db)
    kbdb.open_kb(path).close()
    version, rows = catalog.local_catalog()
    eng = dbfile.engine(path)
    try:
        with eng.begin() as conn:
            load_ops(conn, rows)
    finally:
        eng.dispose()
    result = {"torch_version": version, "ops": len(rows), "cache": catalog.cache_path(version)}
    if json_out:
        emit_json(result)
    else:
        note(f"loaded {len(rows)} ATen overloads of torch {version} (cached at {result['cache']})")


@data_app.command("export")
def data_export_command(
    out: Annotated[Optional[str], typer.Option("--out", help="Folder to write (default: the shipped data/ folder).")] = None,
    json_out: JsonOption = False,
    db: DbOption = None,
) -> None:
    """Write this KB's local evidence (ingests, probes) to data/ as sorted JSONL, for review."""
    import os

    from kb import paths
    from kb.errors import KBError
    from kb.store import export

    target_dir = out or paths.data_dir()
    if not out and os.path.abspath(target_dir) == os.path.abspath(paths.BUNDLED_DATA_DIR):
        raise KBError("this kb is an installed package: its data/ lives inside it and is replaced by the next "
                      "upgrade; pass --out DIR (or export from a checkout)")
    written = export.export(_open(db), target_dir, kb_path=db)
    if json_out:
        emit_json({"out": target_dir, "files": written})
        return
    table(["file", "records"], [[path, count] for path, count in written.items()], title=f"exported to {target_dir}",
          status_column=None)
    if not written:
        note("nothing to export: this KB holds only shipped data")


# Commands that live in modules of their own (imported here, after `app` exists).
from cli import audit as _audit  # noqa: E402
from cli import chat as _chat  # noqa: E402
from cli import check_cmd as _check  # noqa: E402
from cli import ci as _ci  # noqa: E402
from cli import cost as _cost  # noqa: E402
from cli import eol as _eol  # noqa: E402
from cli import fix as _fix  # noqa: E402
from cli import gallery as _gallery  # noqa: E402
from cli import ingest as _ingest  # noqa: E402
from cli import migrate as _migrate  # noqa: E402
from cli import probe as _probe  # noqa: E402
from cli import replay as _replay  # noqa: E402
from cli import serve as _serve  # noqa: E402

app.command("ingest")(_ingest.ingest_command)
app.command("eol")(_eol.eol_command)
app.command("audit")(_audit.audit_command)
app.command("cost")(_cost.cost_command)
app.command("serve")(_serve.serve_command)
app.command("probe")(_probe.probe_command)
app.command("replay")(_replay.replay_command)
app.command("check")(_check.check_command)
app.command("gallery")(_gallery.gallery_command)
app.command("fix")(_fix.fix_command)
app.command("ask")(_chat.ask_command)
app.command("mcp")(_chat.mcp_command)
app.command("bot")(_chat.bot_command)
app.command("parity")(_migrate.parity_command)
app.command("bench")(_migrate.bench_command)
app.command("report")(_migrate.report_command)
app.add_typer(_ci.ci_app, name="ci")
