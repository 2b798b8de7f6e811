"""`kb check` of ExportedProgram archives read as data (kb.check.pt2_graph).

The archives are made in a child process, so what the child registers (a pytree output
type, a custom op) does not exist in the process that checks them, as on a user's machine
without transformers or the library that defined the op.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import zipfile

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# One child makes every archive (importing torch once).
_MAKE = textwrap.dedent('''
    import sys
    from dataclasses import dataclass

    import torch
    import torch.nn as nn
    import torch.utils._pytree as pytree

    out_dir = sys.argv[1]

    @dataclass
    class KbTestOutput:  # stands in for transformers' ModelOutput classes
        logits: torch.Tensor
        hidden: torch.Tensor

    pytree.register_dataclass(KbTestOutput, serialized_type_name="kbtest_outputs.KbTestOutput")

    class Tiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(50, 16)
            self.norm = nn.LayerNorm(16)
            self.head = nn.Linear(16, 50)

        def forward(self, ids):
            hidden = self.norm(self.embed(ids))
            return KbTestOutput(logits=self.head(hidden).float(), hidden=torch.nn.functional.gelu(hidden))

    ids = torch.zeros(2, 7, dtype=torch.int64)
    torch.export.save(torch.export.export(Tiny(), (ids,)), out_dir + "/dataclass_output.pt2")

    @torch.library.custom_op("kbtest_made_up::scale_rows", mutates_args=())
    def scale_rows(x: torch.Tensor, factor: float) -> torch.Tensor:
        return x * factor

    @scale_rows.register_fake
    def _(x, factor):
        return torch.empty_like(x)

    class WithCustomOp(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(8, 8)

        def forward(self, x):
            return torch.relu(torch.ops.kbtest_made_up.scale_rows(self.proj(x), 0.5))

    torch.export.save(torch.export.export(WithCustomOp(), (torch.zeros(3, 8),)), out_dir + "/custom_op.pt2")

    class Small(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            return torch.nn.functional.softmax(self.fc(x), dim=-1)

    torch.export.save(torch.export.export(Small(), (torch.zeros(2, 4),)), out_dir + "/small.pt2")

    class NoGradInside(nn.Module):  # export wraps the block in wrap_with_set_grad_enabled
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)

        def forward(self, x):
            with torch.no_grad():
                y = torch.sigmoid(self.fc(x))
            return y * x

    torch.export.save(torch.export.export(NoGradInside(), (torch.zeros(2, 4),)), out_dir + "/no_grad.pt2")
    print("ok")
''')


def _run_child(code: str, *args: str, env: dict | None = None) -> str:
    result = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=REPO,
                            env={**os.environ, "PYTHONPATH": REPO, **(env or {})}, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.fixture(scope="module")
def archives(tmp_path_factory):
    root = tmp_path_factory.mktemp("pt2")
    _run_child(_MAKE, str(root))
    legacy = root / "legacy_8_3.pt2"
    write_legacy(root / "small.pt2", legacy)
    return {"dataclass": str(root / "dataclass_output.pt2"), "custom": str(root / "custom_op.pt2"),
            "small": str(root / "small.pt2"), "legacy": str(legacy), "no_grad": str(root / "no_grad.pt2")}


def write_legacy(source, target) -> None:
    """The flat archive torch <= 2.6 wrote (serialized_exported_program.json + version), its
    graph in schema 8.3: arguments without `kind` (every schema argument written in
    order), nodes without `name`."""
    with zipfile.ZipFile(source) as src:
        member = next(n for n in src.namelist() if n.endswith("models/model.json"))
        document = json.loads(src.read(member))
    for node in document["graph_module"]["graph"]["nodes"]:
        node.pop("name", None)
        node.pop("is_hop_single_tensor_return", None)
        for item in node["inputs"]:
            item.pop("kind", None)
    document["graph_module"].pop("treespec_namedtuple_fields", None)
    document.pop("guards_code", None)
    document["schema_version"] = {"major": 8, "minor": 3}
    document["torch_version"] = "2.6.0"
    with zipfile.ZipFile(target, "w") as dst:
        dst.writestr("serialized_exported_program.json", json.dumps(document))
        dst.writestr("serialized_state_dict.pt", b"")
        dst.writestr("serialized_constants.pt", b"")
        dst.writestr("serialized_example_inputs.pt", b"")
        dst.writestr("version", "8.3")


def test_dataclass_output_not_importable_here(archives, run_cli):
    """The output type was a pytree node only in the child: the graph still reads."""
    code, out, err = run_cli("check", archives["dataclass"], "--format", "json")
    assert code == 0, err
    ops = {op["op"]: op for op in json.loads(out)["reports"][0]["ops"]}
    for name in ("aten::embedding", "aten::layer_norm", "aten::linear", "aten::gelu"):
        assert name in ops
    assert ops["aten::linear"]["module_paths"] == ["head"]
    assert "kbtest_outputs" not in sys.modules


def test_custom_op_of_a_made_up_namespace(archives, run_cli):
    code, out, err = run_cli("check", archives["custom"], "--format", "json")
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    ops = {op["op"]: op for op in report["ops"]}
    assert list(ops) == ["aten::linear", "kbtest_made_up::scale_rows", "aten::relu"]
    custom = ops["kbtest_made_up::scale_rows"]
    assert custom["status"] == "unknown"
    assert "custom op" in custom["reason"] and "factory" in custom["reason"]
    assert custom["dtypes"] == ["float32"] and custom["module_paths"] == ["(root)"]
    assert any("kbtest_made_up::scale_rows" in note for note in report["notes"])


def test_wrapper_higher_order_ops_are_read_through(archives, run_cli):
    code, out, err = run_cli("check", archives["no_grad"], "--format", "json")
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    assert [op["op"] for op in report["ops"]] == ["aten::linear", "aten::sigmoid", "aten::mul.Tensor"]
    assert any("wrap_with_set_grad_enabled" in note for note in report["notes"])


def test_older_flat_archive(archives, run_cli):
    code, out, err = run_cli("check", archives["legacy"], "--format", "json")
    assert code == 0, err
    report = json.loads(out)["reports"][0]
    assert [op["op"] for op in report["ops"]] == ["aten::linear", "aten::softmax.int"]
    assert report["ops"][0]["shapes"] == ["float32[2,4], float32[4,4], float32[4]"]
    assert any("schema 8.3" in note for note in report["notes"])


def test_same_ops_as_torch_deserializer(archives):
    """The data reader and torch's own reading of the graph name the same calls."""
    import torch

    from kb.check import pt2_graph, tracing

    for name in ("small", "custom"):
        if name == "custom":
            continue  # torch cannot rebuild it without the op's library: that is the point
        sites, _ = pt2_graph.read_sites(archives[name])
        program = torch.export.load(archives[name])
        expected = tracing.sites_from_graph(program.graph)
        assert [(s.op, s.module_path, s.args) for s in sites] == [(s.op, s.module_path, s.args) for s in expected]


_NO_TORCH = textwrap.dedent('''
    import sys
    from cli import check as cli_check
    from cli.entry import main
    from kb.check.resolve import Verdict

    def lookup(op):  # a KB with a verdict for every ATen op, as the dispatcher replay gives
        return Verdict("native", conditions={"dim": -1}) if op.startswith("aten::") else None

    cli_check.make_lookup = lambda db, target, version, mode: (lookup, "1")
    cli_check.make_warning_hooks = lambda db: []
    code = main(["check", sys.argv[1], "--format", "json"])
    print("TORCH-LOADED" if "torch" in sys.modules else "NO-TORCH", code)
''')


@pytest.mark.parametrize("which", ["dataclass", "custom", "legacy"])
def test_check_of_an_archive_never_imports_torch(archives, which):
    out = _run_child(_NO_TORCH, archives[which])
    assert out.strip().splitlines()[-1] == "NO-TORCH 0"


def test_bounds(tmp_path, run_cli, monkeypatch):
    from kb.check import pt2_graph

    deep = tmp_path / "deep.pt2"
    with zipfile.ZipFile(deep, "w") as dst:
        dst.writestr("deep/models/model.json", "[" * 5000 + "]" * 5000)
        dst.writestr("deep/archive_format", "pt2")
    code, _out, err = run_cli("check", deep)
    assert code == 2 and "nests deeper" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(pt2_graph, "MAX_GRAPH_BYTES", 1000)
    big = tmp_path / "big.pt2"
    with zipfile.ZipFile(big, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        dst.writestr("big/models/model.json", json.dumps({"graph_module": {"pad": "x" * 5000}}))
        dst.writestr("big/archive_format", "pt2")
    code, _out, err = run_cli("check", big)
    assert code == 2 and "bound" in err


def test_module_stack_with_commas():
    from kb.check.pt2_graph import parse_module_stack

    text = "L__self__,,m.M;L__self___layers_0,layers[0,1],torch.nn.Linear"
    assert parse_module_stack(text) == {"L__self__": ("", "m.M"), "L__self___layers_0": ("layers[0,1]", "torch.nn.Linear")}


def test_op_names_from_targets():
    from kb.check.pt2_graph import op_from_target

    assert op_from_target("torch.ops.aten.linear.default") == "aten::linear"
    assert op_from_target("torch.ops.aten.add.Tensor") == "aten::add.Tensor"
    assert op_from_target("torch.ops.transformers.grouped_mm_fallback.default") == "transformers::grouped_mm_fallback"
    assert op_from_target("torch.ops.higher_order.cond") == "higher_order::cond"
    assert op_from_target("_operator.getitem") is None
