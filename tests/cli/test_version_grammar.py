"""One version grammar: every command that takes a target resolves `neuron=2.33` (an SDK
release), `neuron=2.14.3.0` (a package), `tpu=0.2.0` and `tpu=0.2` (a line) the same way,
through kb.store.targetspec, and says an SDK resolution in one line."""

from __future__ import annotations

import json

import pytest

from kb.store import db, targetspec
from kb.store import records as rec
from kb.store.ingest import ingest_records
from tests.conftest import op_status, prov, run_kb

# spelling -> (every package version it stands for, the one a single-version command reads)
SPELLINGS = {
    "neuron=2.33": (["2.13.3.0", "2.14.3.0"], "2.14.3.0"),
    "neuron=2.33.0": (["2.13.3.0", "2.14.3.0"], "2.14.3.0"),
    "neuron=2.14.3.0": (["2.14.3.0"], "2.14.3.0"),
    "neuron=2.13.3.0": (["2.13.3.0"], "2.13.3.0"),
    "neuron=2.34": (["2.14.3.1"], "2.14.3.1"),
    "neuron=2.34.0": (["2.14.3.1"], "2.14.3.1"),
    "neuron=2.14.3.1": (["2.14.3.1"], "2.14.3.1"),
    "tpu=0.2.0": (["0.2.0"], "0.2.0"),
    "tpu=0.2": (["0.2.0"], "0.2.0"),
}


def _json(capsys, *args):
    code, out, err = run_kb(capsys, *args, "--json")
    assert code == 0, err
    return json.loads(out), err


def _versions_used(capsys, command: str, spelling: str) -> set[str]:
    target, _, version = spelling.partition("=")
    other = "tpu" if target == "neuron" else "neuron"
    if command == "op":
        doc, err = _json(capsys, "op", "aten::add.Tensor", "-t", spelling)
        return {r["version"] for t in doc["ops"][0]["targets"] for r in t["rows"]}
    if command == "ops":
        doc, err = _json(capsys, "ops", "-t", spelling, "--grep", "add.Tensor")
        return {doc["backend_version"]}
    if command == "compare":
        doc, err = _json(capsys, "compare", spelling, other, "--grep", "add.Tensor")
        return {doc["versions"][target]}
    if command == "targets":
        doc, err = _json(capsys, "targets", "-t", spelling)
        return {t["latest"] for t in doc["targets"]}
    if command == "diff":
        doc, err = _json(capsys, "diff", target, version, version)
        return {doc["new"]}
    if command == "check":
        from cli.check import make_lookup

        return {make_lookup(None, target, version, "eager")[1]}
    if command == "ask":
        doc, err = _json(capsys, "ask", f"is aten::add.Tensor native on {target} {version}?")
        return {f["backend_version"] for f in doc["facts"] if f.get("backend_version")}
    raise AssertionError(command)


@pytest.fixture(scope="module")
def shipped_kb(tmp_path_factory):
    """The shipped KB, built once for the table (the commands only read it)."""
    from kb.store.build import build

    path = tmp_path_factory.mktemp("grammar") / "kb.sqlite"
    build(str(path))
    return path


@pytest.fixture
def shared(shipped_kb, monkeypatch):
    monkeypatch.setenv("KB_DB", str(shipped_kb))


MULTI = ("op", "ask")  # commands that show every version a spelling stands for


@pytest.mark.parametrize("command", ["op", "ops", "compare", "diff", "targets", "check", "ask"])
def test_every_command_reads_each_spelling_the_same_way(capsys, shared, command):
    for spelling, (every, single) in SPELLINGS.items():
        used = _versions_used(capsys, command, spelling)
        assert used == (set(every) if command in MULTI else {single}), (command, spelling, used)


def test_an_sdk_spelling_is_said_in_one_line(capsys, shared):
    code, out, err = run_kb(capsys, "ops", "-t", "neuron=2.33", "--grep", "add.Tensor")
    assert code == 0
    lines = [line for line in err.splitlines() if "neuron=2.33" in line]
    assert len(lines) == 1 and "2.13.3.0, 2.14.3.0" in lines[0] and "showing 2.14.3.0" in lines[0]


@pytest.mark.parametrize("args", [["op", "aten::silu", "-t", "neuron=2.99"], ["ops", "-t", "neuron=2.99"],
                                  ["compare", "neuron=2.99", "tpu"]])
def test_an_unknown_version_is_one_line_and_exit_2(capsys, shared, args):
    code, out, err = run_kb(capsys, *args)
    errors = [line for line in err.splitlines() if "error" in line]
    assert code == 2 and len(errors) == 1 and "2.99" in errors[0] and "2.33.0" in errors[0] and "2.34.0" in errors[0]


@pytest.mark.heavy  # over 2 s on 2 cores: heavy (.ci/run runs it), so the default suite stays under 4 minutes
def test_a_new_sdk_release_resolves_everywhere_from_its_packages(capsys, isolated_kb):
    """The grammar is generic: a fixture SDK 2.90 with one package resolves like 2.33."""
    release = rec.Release(product="torchneuron", version="2.14.90.0", sdk_version="2.90.0",
                          provenance=prov(kind="manual", name="fixture-2.90"))
    ingest_records(str(isolated_kb), [release, op_status("aten::add.Tensor", "native", version="2.14.90.0",
                                                         kind="doc", name="fixture-2.90")], source_name="fixture-2.90")
    conn = db.open_kb(str(isolated_kb))
    found = targetspec.resolve(conn, "neuron", "2.90")
    assert (found.how, found.versions, found.chosen) == ("sdk", ["2.14.90.0"], "2.14.90.0")
    for command in ("op", "ops", "compare", "targets", "check", "ask"):
        assert _versions_used(capsys, command, "neuron=2.90") == {"2.14.90.0"}, command


def test_eol_stack_reads_a_package_version_as_the_sdk_that_ships_it(capsys, shared):
    by_sdk, _ = _json(capsys, "eol", "--stack", "neuron=2.33 torch=2.14")
    by_package, _ = _json(capsys, "eol", "--stack", "neuron=2.14.3.0 torch=2.14")
    assert by_package["stack"][0]["version"] == "2.33.0" and "Neuron SDK 2.33.0" in by_package["stack"][0]["resolved"]
    assert [w["cycle"] for w in by_package["windows"]] == [w["cycle"] for w in by_sdk["windows"]]
    code, out, err = run_kb(capsys, "eol", "--stack", "neuron=2.14.3.0 torch=2.14")
    assert "neuron=2.14.3.0 is torchneuron 2.14.3.0, shipped by Neuron SDK 2.33.0" in err
    by_new_sdk, _ = _json(capsys, "eol", "--stack", "neuron=2.34 torch=2.14")
    by_new_package, _ = _json(capsys, "eol", "--stack", "neuron=2.14.3.1 torch=2.14")
    assert by_new_package["stack"][0]["version"] == "2.34.0"
    assert [w["cycle"] for w in by_new_package["windows"]] == [w["cycle"] for w in by_new_sdk["windows"]]
