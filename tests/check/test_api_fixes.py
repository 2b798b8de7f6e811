"""Fixes from the fresh-eyes test of issue 28: the API checks like the CLI whether torch is
loaded or not, waivers are read like `kb op` reads names, and hostile input stays bounded."""

from __future__ import annotations

import kb
from kb.check.resolve import Verdict
from tests.check.check_fixtures import TABLE

NZ_TABLE = {**TABLE, "aten::nonzero": Verdict("native", source_kind="static_probe"),
            "aten::sym_size.int": Verdict("decomposed", source_kind="static_probe"),
            "aten::_assert_scalar": Verdict("native", source_kind="static_probe")}
NZ_KB = {"lookup": lambda db, target, version, mode: (NZ_TABLE.get, version or "2.33.0"),
         "warning_hooks": lambda db: []}


def _nz():
    import torch

    class NZ(torch.nn.Module):
        def forward(self, x):
            return torch.nonzero(x)

    return NZ()


def test_a_kb_verdict_stands_where_its_decomposition_cannot_be_traced(tmp_path):
    """sym_size.int on a data-dependent shape: the KB says decomposed; the program in memory,
    the module and the saved archive (read with torch loaded) all say so, not 'unknown'."""
    import torch

    program = torch.export.export(_nz(), (torch.zeros(4, 4),))
    path = tmp_path / "nz.pt2"
    torch.export.save(program, str(path))
    expected = {"aten::nonzero": "native", "aten::sym_size.int": "decomposed", "aten::_assert_scalar": "native"}
    for model, inputs in ((program, None), (_nz(), (torch.zeros(4, 4),)), (str(path), None)):
        result = kb.check(model, inputs, targets=("tpu",), **NZ_KB)
        assert result.verdicts()["tpu"] == expected, model
        assert not result.fails(fail_on="fallback", fail_on_unknown=True)


def test_waivers_and_allow_read_names_as_kb_op_does():
    """F.x waives the ATen op x (or the ops the function map says it runs); a module
    spelling is refused naming its ops; a waiver matching no op is listed; API waivers are
    checked like [tool.kb] ones."""
    import pytest

    from kb.check.gate import GateError, op_spelling

    assert op_spelling("F.batch_norm") == ("aten::batch_norm", ())
    assert op_spelling("torch.nonzero") == ("aten::nonzero", ("aten::nonzero",))
    assert op_spelling("mylib::rope") == ("mylib::rope", ())
    with pytest.raises(GateError, match=r"nn.BatchNorm2d is a module, not an op: .*aten::native_batch_norm"):
        op_spelling("nn.BatchNorm2d")
    result = kb.check(_nz(), ["4x4"], targets=("tpu",), **NZ_KB)
    gate = result.gate("decomposed", waivers=[{"op": "torch.nonzero", "reason": "ok"},
                                              {"op": "aten::nonexistent_op", "reason": "typo"}])
    assert [w["op"] for w in gate["unmatched_waivers"]] == ["aten::nonexistent_op"]
    result.gate("decomposed", allow=["torch.nonzero"])
    assert [op.op for op in result["tpu"].ops if op.allowed] == ["aten::nonzero"]
    for bad, message in (([{"op": "nonzero"}], "reason missing"), ("notalist", "expected a list of waivers"),
                         ([{"op": "nn.Linear", "reason": "x"}], "is a module, not an op")):
        with pytest.raises(GateError, match=message):
            result.gate("decomposed", waivers=bad)
    with pytest.raises(GateError, match="is a module"):
        result.gate("decomposed", allow=["nn.BatchNorm2d"])


def test_a_failed_export_prints_nothing(capfd):
    """torch logs the graph of a failed export to stderr; the API says it in its error only."""
    import pytest
    import torch

    from kb.check.tracing import TracingError

    class Branchy(torch.nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(TracingError):
        kb.check(Branchy(), (torch.zeros(3),), **NZ_KB)
    assert capfd.readouterr() == ("", "")


def test_a_huge_op_name_is_cut_in_every_output():
    """A hostile archive's 200,000-character op name: every output stays small."""
    from kb.check.callsites import MAX_NAME, CallSite
    from kb.check.tracing import TracedModel

    huge = "x::" + "A" * 200_000
    site = CallSite(0, huge, module_path="m" * 5000, module_type="T" * 5000)
    assert site.op == huge[:MAX_NAME] + "…(200,003 chars)" and len(site.module_path) < 300
    traced = TracedModel("exported_program", "h.pt2", [site])
    from kb.check.resolve import check as run_check

    report = run_check(traced, lambda op: None, target="tpu", backend_version="0.2.0", mode="eager")
    result = kb.CheckResult("h.pt2", "exported_program", False, [report])
    for text in (result.to_json(), result.to_markdown(), result._repr_html_(), repr(result)):
        assert len(text) < 50_000


def test_control_characters_are_shown_in_their_visible_form_everywhere():
    """A module named with ESC and brackets is attributed to itself (not the root), and the
    verdict lines, the HTML and repr() show ESC as \\x1b."""
    import torch

    from kb.check.pt2_graph import parse_module_stack

    stack = "L__self__,,torch.nn.Sequential;L__self__x\x1b[2J[bold]y,x\x1b[2J[bold]y,torch.nn.BatchNorm1d"
    assert parse_module_stack(stack)["L__self__x\x1b[2J[bold]y"] == ("x\x1b[2J[bold]y", "torch.nn.BatchNorm1d")
    model = torch.nn.Sequential()
    model.add_module("x\x1b[2J[bold]y", torch.nn.BatchNorm1d(4))
    result = kb.check(model, ["2x4"], targets=("tpu",), name="a\x1b[2Jb\n<script>", **NZ_KB)
    assert result["tpu"].ops[0].module_paths == ["x\x1b[2J[bold]y"]
    html = result._repr_html_()
    assert "x\\x1b[2J[bold]y" in html and "\x1b" not in html
    assert "\x1b" not in repr(result) and "\n" not in repr(result) and "a\\x1b[2Jb" in repr(result)
    from kb.check.assess_text import clean

    assert clean("nonzero\x1b[2J") == "nonzero\\x1b[2J"


def test_small_api_error_types():
    import pytest

    from kb.errors import KBError

    result = kb.check(_nz(), ["4x4"], targets=("tpu",), **NZ_KB)
    with pytest.raises(KeyError) as caught:
        result["gpu"]
    assert isinstance(caught.value, KBError) and str(caught.value) == "no report for target 'gpu': this check has tpu"
    with pytest.raises(KBError, match="targets: empty"):
        kb.check(_nz(), ["4x4"], targets=(), **NZ_KB)
    with pytest.raises(KBError, match="must be a str"):
        kb.ask(None)
    assert result.gate()["expired_waivers"] == []  # always present (docs/api.md)


def test_sarif_uris_are_uri_references(tmp_path):
    """A path with spaces is percent-encoded; a model in memory is at `memory:NAME`."""
    from types import SimpleNamespace

    from kb.check.formats import artifact_uri

    assert artifact_uri(SimpleNamespace(model="models/my dir/a b.pt2")) == "models/my%20dir/a%20b.pt2"
    assert artifact_uri(SimpleNamespace(model="model.py:build")) == "model.py%3Abuild"
    result = kb.check(_nz(), ["4x4"], targets=("tpu",), name="NZ net", **NZ_KB)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for run in result.to_sarif(fail_on_unknown=True, fail_on="decomposed")["runs"]
            for res in run["results"] for loc in res["locations"]}
    assert uris == {"memory:NZ%20net"}
    assert "in_memory" not in result.to_dict()["reports"][0]
