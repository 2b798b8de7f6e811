"""A backend's own test expectations as field caveats: which ops its test suite skips or
expects to fail, for which dtypes, and why.

Four shapes are read, all from the pre-release TorchNeuron snapshot
(parmoham-aws/test-repo-parmoham): a Python module holding skip/xfail dicts keyed by OpInfo
name with a reason (`tests/vertical/skip_xfail_ops.py`), JSON lists of upstream PyTorch
test methods expected to fail (`tests/pytorch_tests/failing_test_methods/<Class>.json`),
the module that registers ops to run on the host (`cpu_fallback_registrations.py`), and the
upstream-suite specs (`tests/pytorch_tests/specs/aten_spec.json`, `dynamo_spec.json`) whose
skip/xfail entries name a test with a reason, or quote the error a group of tests raised
(for an op with no CPU kernel: "Could not run 'aten::X' with arguments from the 'CPU'
backend").

Python sources are parsed with `ast`, never imported or executed: only literal dicts and
names are read. Reasons are classified into caveat kinds by the words they use; reasons
about the test harness itself (random output, uninitialised memory, sample layout) are not
facts about the op and are dropped. Every caveat is pinned to the snapshot's own version:
a pre-release test list says nothing about a release.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict

from kb.store.records import Caveat, Provenance
from scrapers.base import Document, ScrapeError, Source, load_json, parse_python, provenance, require_records

NAME = "torchneuron-dev-test-expectations"
SNAPSHOT_VERSION = "0.1.0.dev0+g98154b8"
COMMIT = "98154b867aa24562a3213e520d9ad7fd41032291"
REPO = f"https://github.com/parmoham-aws/test-repo-parmoham/blob/{COMMIT}/"
MAX_BYTES = 2_000_000  # a test list is kilobytes; refuse anything absurd before parsing

DTYPES = ("bfloat16", "float16", "float32", "float64", "complex32", "complex64", "complex128", "int8", "int16",
          "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool")

# Reason words → caveat kind, first match wins. None: the reason is about the test, not the op.
_REASON_KINDS: tuple[tuple[str, str | None], ...] = (
    ("sample.input", None), ("uninitialized memory", None), ("random output", None),
    ("long compil", "slow"), ("compil", "compile_failure"), ("broadcast_dimensions", "compile_failure"),
    ("nan in output", "wrong_result"), ("mismatch", "wrong_result"), ("correctness", "wrong_result"),
    ("not on neuron device", "wrong_result"), ("out of bounds", "error"),
    ("different sizes", None), ("cache issue", None),
    ("segfault", "error"), ("not supported", "error"), ("data type issue", "test_failure"),
)

# Upstream test-name stems (after "test_", before "_neuron") → (ATen op, argument conditions).
# Longest stem first; tests whose stem names no single op are left out.
STEM_OPS: dict[str, tuple[str, dict | None]] = {
    "gather_large": ("aten::gather", None),
    "gather": ("aten::gather", None),
    "scatter_add_": ("aten::scatter_add", None),
    "scatter__reductions": ("aten::scatter", None),
    "scatter__scalar": ("aten::scatter", None),
    "scatter_": ("aten::scatter", None),
    "scatter_reduce_mean": ("aten::scatter_reduce", {"reduce": "mean"}),
    "scatter_reduce_sum": ("aten::scatter_reduce", {"reduce": "sum"}),
    "scatter_reduce_prod": ("aten::scatter_reduce", {"reduce": "prod"}),
    "linspace": ("aten::linspace", None),
    "logspace": ("aten::logspace", None),
    "arange": ("aten::arange", None),
    "eye": ("aten::eye", None),
    "randperm": ("aten::randperm", None),
    "normal": ("aten::normal", None),
    "roll": ("aten::roll", None),
    "one_hot": ("aten::one_hot", None),
    "softmax_results": ("aten::_softmax", None),
    "channel_shuffle": ("aten::channel_shuffle", None),
    "ctc_loss": ("aten::ctc_loss", None),
    "kaiser_window": ("aten::kaiser_window", None),
    "view_as_complex": ("aten::view_as_complex", None),
    # test_binary_ufuncs / nn/test_convolution / test_nn names in aten_spec.json
    "lerp": ("aten::lerp", None),
    "conv2d_same_padding": ("aten::conv2d", {"padding": "same"}),
    "conv3d_same_padding": ("aten::conv3d", {"padding": "same"}),
    "conv3d_valid_padding": ("aten::conv3d", {"padding": "valid"}),
    "Conv2d_backward_depthwise": ("aten::conv2d", None),
    "conv_noncontig_weights": ("aten::convolution", None),
    "ReplicationPad2d_large": ("aten::replication_pad2d", None),
    "conv_transpose_with_output_size_and_no_batch_dim_ConvTranspose2d": ("aten::conv_transpose2d", None),
    "conv_transpose_with_output_size_and_no_batch_dim_ConvTranspose3d": ("aten::conv_transpose3d", None),
}
_TEST = re.compile(r"^test_(?P<stem>.+?)_neuron(?:_(?P<dtype>[a-z0-9]+))?$")


def _prov(doc: Document) -> Provenance:
    return provenance(NAME, "field", doc)


def _kind(reason: str) -> str | None:
    lowered = reason.lower()
    for word, kind in _REASON_KINDS:
        if word in lowered:
            return kind
    return "test_failure"


def _literal_dicts(doc: Document) -> dict[str, dict]:
    """Top-level `NAME: dict[...] = {...}` / `NAME = {...}` literals of a Python file."""
    tree = parse_python(NAME, doc, MAX_BYTES, "file too large for a test list")
    found = {}
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else (
            node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
            try:
                found[target.id] = ast.literal_eval(node.value)
            except ValueError:
                continue  # not a pure literal: not a list we can read safely
    return found


def parse_skip_xfail(doc: Document) -> list[Caveat]:
    """Ops the snapshot's per-op tests skip or expect to fail, with the reason as the kind."""
    out = []
    for list_name, entries in _literal_dicts(doc).items():
        if not list_name.endswith(("_SKIP_OPS", "_XFAIL_OPS")) or not isinstance(entries, dict):
            continue
        how = "skips" if list_name.endswith("_SKIP_OPS") else "expects to fail"
        for opinfo, config in sorted(entries.items()):
            reason = str((config or {}).get("reason") or "")
            kind = _kind(reason)
            if kind is None:
                continue
            tests = (config or {}).get("tests")
            backward = bool(tests) and all("Backward" in t for t in tests)
            named = [d for d in DTYPES if re.search(rf"\b{d}\b", reason)]
            dtypes = tuple(named) if len(named) == 1 and " vs " not in reason else None
            scope = ", ".join(tests) if tests else "every op test class"
            out.append(Caveat(
                op=f"aten::{opinfo}", family=True, target="neuron", kind=kind,
                statement=(f"The pre-release TorchNeuron suite {how} {opinfo} in {scope}; its stated reason "
                           f"reads as {kind.replace('_', ' ')}" + (f" ({reason.lower()})." if reason else ".")),
                min_version=SNAPSHOT_VERSION, max_version=SNAPSHOT_VERSION, phase="backward" if backward else None,
                dtypes=dtypes, provenance=_prov(doc)))
    return out


def parse_failing_tests(doc: Document) -> list[Caveat]:
    """Upstream PyTorch tests the snapshot expects to fail, grouped per op and condition."""
    data = load_json(NAME, doc, MAX_BYTES, "file too large for a test list")
    names = data.get("failed_tests") if isinstance(data, dict) else None
    if not isinstance(names, list):
        raise ScrapeError(NAME, doc.name, "no failed_tests list")
    test_class = doc.url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".json")
    groups: dict[tuple[str, str], dict] = defaultdict(lambda: {"tests": 0, "dtypes": set(), "any_dtype": False})
    for name in names:
        match = _TEST.match(str(name))
        if not match:
            continue
        stem, dtype = match["stem"], match["dtype"]
        if dtype not in (None, *DTYPES):
            stem, dtype = f"{stem}_neuron_{dtype}", None
        mapped = _stem_op(stem)
        if mapped is None:
            continue
        op, conditions = mapped
        group = groups[(op, json.dumps(conditions, sort_keys=True))]
        group["tests"] += 1
        if dtype:
            group["dtypes"].add(dtype)
        else:
            group["any_dtype"] = True
    out = []
    for (op, cond_key), group in sorted(groups.items()):
        conditions = json.loads(cond_key)
        dtypes = tuple(sorted(group["dtypes"])) if group["dtypes"] and not group["any_dtype"] else None
        what = f" for {', '.join(dtypes)}" if dtypes else ""
        out.append(Caveat(
            op=op, family=True, target="neuron", kind="test_failure",
            statement=(f"{group['tests']} upstream PyTorch test(s) of {test_class} that exercise "
                       f"{op.removeprefix('aten::')}{what} are expected to fail on the pre-release TorchNeuron "
                       "snapshot (error or wrong result; the list does not say which)."),
            min_version=SNAPSHOT_VERSION, max_version=SNAPSHOT_VERSION, dtypes=dtypes, conditions=conditions,
            provenance=_prov(doc)))
    return out


def parse_cpu_fallbacks(doc: Document) -> list[Caveat]:
    """Ops the snapshot registers for the neuron device but runs on the host (read from
    `torch.ops.aten.NAME.OVERLOAD` references inside its registration function)."""
    tree = parse_python(NAME, doc, MAX_BYTES, "file too large")
    ops = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute)
                and isinstance(node.value.value, ast.Attribute) and node.value.value.attr == "aten"):
            ops.add(f"aten::{node.value.attr}" + ("" if node.attr == "default" else f".{node.attr}"))
    return [Caveat(op=op, target="neuron", kind="host_execution",
                   statement=("Registered as a neuron kernel, but the kernel copies its inputs to the host, runs "
                              "the CPU implementation and copies the result back (the dispatcher shows a device "
                              "kernel; the work is on the host)."),
                   min_version=SNAPSHOT_VERSION, max_version=SNAPSHOT_VERSION, provenance=_prov(doc))
            for op in sorted(ops)]


def _stem_op(stem: str) -> tuple[str, dict | None] | None:
    key = next((s for s in sorted(STEM_OPS, key=len, reverse=True) if stem == s or stem.startswith(s + "_")), None)
    return STEM_OPS[key] if key else None


_NO_CPU_KERNEL = re.compile(r"Could not run '(aten::[A-Za-z0-9_.]+)' with arguments from the 'CPU' backend")


def _spec_entries(config: dict) -> list[tuple[str, str, list[str]]]:
    """(skip|xfail, reason, test names) of one test configuration, in both entry shapes:
    `{test_name: {"reason": ...}}` and `{"reason": ..., "tests": [...]}`."""
    out = []
    for how in ("skip_tests", "xfail"):
        for entry in config.get(how) or []:
            if not isinstance(entry, dict):
                continue
            if isinstance(entry.get("reason"), str):
                tests = entry.get("tests")
                if isinstance(tests, list):
                    out.append((how, entry["reason"], [str(t) for t in tests]))
                continue
            for test, body in entry.items():
                if isinstance(body, dict) and isinstance(body.get("reason"), str):
                    out.append((how, body["reason"], [str(test)]))
    return out


def parse_spec(doc: Document) -> list[Caveat]:
    """Caveats from an upstream-suite spec: tests named with a reason (mapped to their op
    by STEM_OPS, dtype from the test name's suffix), and quoted errors saying an op has no
    CPU kernel (the dynamo suite meets them under torch.compile: mode compile)."""
    data = load_json(NAME, doc, MAX_BYTES, "file too large for a test spec")
    configs = data.get("test_configurations") if isinstance(data, dict) else None
    if not isinstance(configs, list):
        raise ScrapeError(NAME, doc.name, "no test_configurations list")
    compiled = doc.url.rsplit("/", 1)[-1].startswith("dynamo")
    groups: dict[tuple, dict] = {}
    for config in configs:
        if not isinstance(config, dict):
            continue
        suite = str(config.get("class") or config.get("file") or "?")
        for how, reason, tests in _spec_entries(config):
            missing = _NO_CPU_KERNEL.search(reason)
            if missing:
                op = missing[1]
                backward = op.endswith("_backward")
                key = (op, "error", "", "compile" if compiled else None, backward)
                group = groups.setdefault(key, {"tests": set(), "suites": set(), "dtypes": set(), "any": True,
                                                "reason": "no CPU kernel", "how": how})
                group["tests"].update(tests)
                group["suites"].add(suite)
                continue
            kind = _kind(reason)
            if kind is None:
                continue
            for test in tests:
                match = _TEST.match(test)
                if not match:
                    continue
                stem, dtype = match["stem"], match["dtype"]
                if dtype not in (None, *DTYPES):
                    stem, dtype = f"{stem}_neuron_{dtype}", None
                mapped = _stem_op(stem)
                if mapped is None:
                    continue
                op, conditions = mapped
                key = (op, kind, json.dumps(conditions, sort_keys=True), "compile" if compiled else None,
                       "_backward" in stem)
                group = groups.setdefault(key, {"tests": set(), "suites": set(), "dtypes": set(), "any": False,
                                                "reason": reason.strip().rstrip(".").lower(), "how": how})
                group["tests"].add(test)
                group["suites"].add(suite)
                if dtype:
                    group["dtypes"].add(dtype)
                else:
                    group["any"] = True
    out = []
    for (op, kind, cond_key, mode, backward), group in sorted(groups.items()):
        dtypes = tuple(sorted(group["dtypes"])) if group["dtypes"] and not group["any"] else None
        how = "skips" if group["how"] == "skip_tests" else "expects to fail"
        suites = ", ".join(sorted(group["suites"]))
        if group["reason"] == "no CPU kernel":
            statement = (f"The pre-release TorchNeuron snapshot {how} {len(group['tests'])} upstream test(s) of "
                         f"{suites} because {op} was dispatched with CPU tensors and has no CPU kernel (only the "
                         "neuron device and Meta register it): the call raises NotImplementedError"
                         + (" under torch.compile." if compiled else "."))
        else:
            what = f" for {', '.join(dtypes)}" if dtypes else ""
            statement = (f"The pre-release TorchNeuron snapshot {how} {len(group['tests'])} upstream test(s) of "
                         f"{suites} exercising {op.removeprefix('aten::')}{what}; its stated reason reads as "
                         f"{kind.replace('_', ' ')} ({group['reason']}).")
        out.append(Caveat(op=op, family=True, target="neuron", kind=kind, statement=statement,
                          min_version=SNAPSHOT_VERSION, max_version=SNAPSHOT_VERSION, mode=mode,
                          phase="backward" if backward else None, dtypes=dtypes,
                          conditions=json.loads(cond_key) if cond_key else None, provenance=_prov(doc)))
    return out


def parse(doc: Document) -> list[Caveat]:
    """Dispatch on the document's file name (the four shapes above)."""
    name = doc.url.rsplit("/", 1)[-1]
    if name.endswith("_spec.json"):
        return parse_spec(doc)
    if name.endswith(".json"):
        return parse_failing_tests(doc)
    if name == "cpu_fallback_registrations.py":
        return parse_cpu_fallbacks(doc)
    if name.endswith(".py"):
        return parse_skip_xfail(doc)
    raise ScrapeError(NAME, doc.name, "not a test-expectation file kb knows")


def scrape(documents: list[Document]) -> list[Caveat]:
    return require_records(NAME, f"{len(documents)} documents", [c for doc in documents for c in parse(doc)])


PATHS = (
    "tests/vertical/skip_xfail_ops.py",
    "torch_neuronx/python_ops/cpu_fallback_registrations.py",
    "tests/pytorch_tests/specs/aten_spec.json",
    "tests/pytorch_tests/specs/dynamo_spec.json",
    *(f"tests/pytorch_tests/failing_test_methods/{name}.json" for name in (
        "TestLikeTensorCreation", "TestNNDeviceType", "TestRandomTensorCreation", "TestScatterGather",
        "TestTensorCreation", "TestViewOps")),
)

SOURCE = Source(
    name=NAME,
    description="Pre-release TorchNeuron snapshot: ops its tests skip or expect to fail, ops it runs on the host",
    kind="field",
    urls=tuple(REPO + path for path in PATHS),
    parse=parse,
    local_paths=PATHS,  # `kb ingest --all --from-file CHECKOUT` of that repository at COMMIT
)
