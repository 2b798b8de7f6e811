"""TorchTPU's own op tests as field caveats: the dtypes each op test leaves out, the
gradients it does not check, and the op tests it skips, with the reason its comments give.

Read from jonathan1920/torch_tpu `tests/ops_test.py`: each `test_*` method calls the shared
op-test helper with the OpInfo name and keyword arguments (`exclude_dtypes`,
`exclude_inplace_dtypes`, `check_grad`); the reason sits in the comment lines right above
the keyword. The file is parsed with `ast` (structure) and `tokenize` (comments), never
imported or run; dtype expressions are read only from literal `torch.<dtype>` attributes,
tuples, `+` and the repository's three dtype-group names.

Only what the comments blame on TPU becomes a caveat. Exclusions keyed by the GPU golden
device only, and comments that say the CPU reference fails, the TPU wrongly succeeds ("it
should fail") or the sample generator cannot make inputs, are about the comparison, not
the op on TPU, and are dropped. Every caveat is pinned to the release of that repository's
era (0.1.1): a later release may have fixed it, and nothing here says so.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from kb.store.records import Caveat, Provenance
from scrapers.base import Document, Source, parse_python, provenance, require_records

NAME = "torch-tpu-op-tests"
VERSION = "0.1.1"
COMMIT = "0251a055960017857bc66bedbd7f8d4d4320be5c"
PATH = "tests/ops_test.py"
REPO = f"https://github.com/jonathan1920/torch_tpu/blob/{COMMIT}/"
MAX_BYTES = 2_000_000

# The dtype groups the test module imports from its shared helper (by name only).
DTYPE_GROUPS = {
    "COMPLEX_DTYPES": ("complex64", "complex128"),
    "FLOAT_DTYPES": ("bfloat16", "float16", "float32", "float64"),
    "INTEGRAL_DTYPES": ("uint8", "int8", "int16", "int32", "int64"),
}
_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "cfloat": "complex64", "cdouble": "complex128",
            "long": "int64", "int": "int32", "short": "int16"}
# Words in a comment sentence → dtypes it speaks of.
_DTYPE_WORDS = (
    (r"\bcomplex", DTYPE_GROUPS["COMPLEX_DTYPES"]), (r"\bintegral|\binteger", DTYPE_GROUPS["INTEGRAL_DTYPES"]),
    (r"\bbool", ("bool",)), (r"\bfloat64|\bf64\b", ("float64",)), (r"\bfloat16|\bhalf\b|\bf16\b", ("float16",)),
    (r"\bbfloat16", ("bfloat16",)), (r"\bint64\b", ("int64",)), (r"\buint8\b", ("uint8",)),
)
# Sentences about the reference device or the test itself, not the op on TPU.
_NOT_TPU = ("should fail", "succeeding", "works on tpu", "but on tpu it succeeds", "cpu side fails", "fails on the cpu",
            "on cpu it fails", "cpu does", "not implemented in the pytorch cpu", "not implemented for", "on cpu",
            "sample generation", "op_testing code", "cpu result", "failed on cpu", "while gpu succeeds",
            "match gpu", "matches the gpu", "slow down op test", "binning errors", "tpu supports")
# Sentence words → caveat kind, first match wins.
_KINDS = (("time out", "hang"), ("timing out", "hang"), ("timeout", "hang"), ("compil", "compile_failure"),
          ("nan", "wrong_result"), ("wrong", "wrong_result"), ("huge error", "wrong_result"),
          ("invalid gradient", "wrong_result"), ("accuracy", "wrong_result"), ("numeric", "wrong_result"),
          ("crash", "error"), ("unimplemented", "error"), ("not implemented", "error"), ("isn't implemented", "error"),
          ("not supported", "error"), ("not support", "error"), ("not natively support", "error"), ("doesn't support", "error"),
          ("fail", "error"), ("error", "error"))
_MISSING = re.compile(r"(?:error (?:that )?)?([A-Za-z_][A-Za-z0-9_.]*) is unimplemented")


def _prov(doc: Document) -> Provenance:
    return provenance(NAME, "field", doc)


def aten_name(opinfo: str) -> str | None:
    """The ATen family an OpInfo name stands for ("nn.functional.gelu" → "aten::gelu")."""
    name = opinfo
    if name.startswith("torch.ops.aten."):
        name = name[len("torch.ops.aten."):].split(".")[0]
    name = name.removeprefix("nn.functional.")
    name = {"upsample_bilinear": "upsample_bilinear2d", "upsample_nearest": "upsample_nearest2d"}.get(name, name)
    if name in ("pad", "interpolate"):
        return None  # a variant of several ATen ops: no single op to bind
    return "aten::" + name.replace(".", "_")


def _dtypes(node: ast.AST) -> tuple[str, ...] | None:
    """The dtypes a literal expression names; None when it is not one we can read."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "torch":
        return (_ALIASES.get(node.attr, node.attr),)
    if isinstance(node, ast.Name) and node.id in DTYPE_GROUPS:
        return DTYPE_GROUPS[node.id]
    if isinstance(node, ast.Tuple | ast.List):
        parts = [_dtypes(e) for e in node.elts]
        return None if any(p is None for p in parts) else tuple(d for p in parts for d in p)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _dtypes(node.left), _dtypes(node.right)
        return None if left is None or right is None else left + right
    return None


def _cpu_key_comment(node: ast.AST, comments: dict[int, str]) -> str:
    """The comment above a dict's "cpu" key (where per-device exclusions give their reason)."""
    if isinstance(node, ast.Dict):
        for key in node.keys:
            if isinstance(key, ast.Constant) and key.value == "cpu":
                return _comment_above(comments, key.lineno)
    return ""


def _tpu_dtypes(node: ast.AST) -> tuple[str, ...] | None:
    """Excluded dtypes that hold when TPU is compared with the CPU: a plain expression, or
    the "cpu" entry of a per-golden-device dict (a "gpu"-only entry is about the GPU)."""
    if isinstance(node, ast.Dict):
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value == "cpu":
                return _dtypes(value)
        return None
    return _dtypes(node)


def _comments(text: str) -> dict[int, str]:
    """Comment text by line number."""
    out = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                out[token.start[0]] = token.string.lstrip("#").strip()
    except (tokenize.TokenError, IndentationError):
        pass
    return out


def _comment_above(comments: dict[int, str], line: int) -> str:
    """The run of comment lines directly above `line`."""
    lines = []
    line -= 1
    while line in comments:
        lines.insert(0, comments[line])
        line -= 1
    return " ".join(lines)


def _sentences(comment: str) -> list[str]:
    """A comment split into its TODO/NOTE items (each one finding)."""
    parts = re.split(r"\b(?:TODO|NOTE)\b(?:\([^)]*\))?:?", comment)
    return [p.strip() for p in parts if p.strip()]


def _kind(sentence: str) -> str | None:
    lowered = sentence.lower()
    if any(word in lowered for word in _NOT_TPU):
        return None
    return next((kind for word, kind in _KINDS if word in lowered), None)


def _named(sentence: str) -> set[str]:
    lowered = sentence.lower()
    return {d for pattern, dtypes in _DTYPE_WORDS if re.search(pattern, lowered) for d in dtypes}


def _exclusion_caveats(op: str, opinfo: str, excluded: tuple[str, ...], comment: str, inplace: bool,
                       doc: Document) -> list[Caveat]:
    out = []
    for sentence in _sentences(comment):
        kind = _kind(sentence)
        if kind is None:
            continue
        named = _named(sentence)
        dtypes = tuple(sorted(set(excluded) & named)) if named else tuple(sorted(set(excluded)))
        if not dtypes:
            continue
        variant = "in-place variant" if inplace else "op"
        out.append(Caveat(
            op=op, family=True, target="tpu", kind=kind, dtypes=dtypes, min_version=VERSION, max_version=VERSION,
            statement=(f"TorchTPU's own op test leaves {', '.join(dtypes)} out of the {opinfo} {variant} test; "
                       f"its comment reads as {kind.replace('_', ' ')} on TPU for those dtypes."),
            provenance=_prov(doc)))
    return out


def _grad_caveat(op: str, opinfo: str, comment: str, doc: Document) -> Caveat | None:
    """A gradient the test does not check, when its comment says why (a missing backward
    op, a failing lowering, wrong values)."""
    for sentence in _sentences(comment):
        kind = _kind(sentence)
        if kind is None:
            continue
        missing = _MISSING.search(sentence)
        if missing:
            statement = (f"The backward of {opinfo} needs {missing[1]}, which TorchTPU does not implement: "
                         "its own op test turns the gradient check off.")
        else:
            statement = (f"TorchTPU's own op test turns the {opinfo} gradient check off; its comment reads as "
                         f"{kind.replace('_', ' ')} in the backward pass on TPU.")
        return Caveat(op=op, family=True, target="tpu", kind=kind, phase="backward", min_version=VERSION,
                      max_version=VERSION, statement=statement, provenance=_prov(doc))
    return None


def _skipped(method: ast.FunctionDef, comments: dict[int, str], doc: Document) -> list[Caveat]:
    """An op test skipped outright (a `skipTest` statement in the method body itself)."""
    out = []
    for statement in method.body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "skipTest"
                and call.args and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
            continue
        reason = call.args[0].value
        opinfo = method.name.removeprefix("test_")
        opinfo = "_" + opinfo if opinfo.startswith("foreach_") else opinfo
        kind = _kind(reason.split(":", 1)[-1]) or _kind(_comment_above(comments, statement.lineno))
        op = aten_name(opinfo)
        if kind is None or op is None:
            continue
        out.append(Caveat(op=op, family=True, target="tpu", kind=kind, min_version=VERSION, max_version=VERSION,
                          statement=(f"TorchTPU's own op test for {opinfo} is skipped; its reason reads as "
                                     f"{kind.replace('_', ' ')} on TPU."),
                          provenance=_prov(doc)))
    return out


def parse(doc: Document) -> list[Caveat]:
    """Caveats from every `test_*` method of the op-test module (see the module docstring)."""
    tree = parse_python(NAME, doc, MAX_BYTES, "file too large for an op test module")
    comments = _comments(doc.text)
    out: list[Caveat] = []
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for method in (n for n in cls.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")):
            out += _skipped(method, comments, doc)
            for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
                if not (isinstance(call.func, ast.Attribute) and call.func.attr == "do_test_op" and call.args
                        and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str)):
                    continue
                opinfo = call.args[0].value
                op = aten_name(opinfo)
                if op is None:
                    continue
                for keyword in call.keywords:
                    comment = _comment_above(comments, keyword.lineno)
                    if keyword.arg in ("exclude_dtypes", "exclude_inplace_dtypes"):
                        excluded = _tpu_dtypes(keyword.value)
                        comment = " ".join(filter(None, (comment, _cpu_key_comment(keyword.value, comments))))
                        if excluded:
                            out += _exclusion_caveats(op, opinfo, excluded, comment,
                                                      keyword.arg == "exclude_inplace_dtypes", doc)
                    elif (keyword.arg == "check_grad" and isinstance(keyword.value, ast.Constant)
                          and keyword.value.value is False):
                        grad = _grad_caveat(op, opinfo, comment, doc)
                        if grad:
                            out.append(grad)
    return _dedupe(out)


def _dedupe(caveats: list[Caveat]) -> list[Caveat]:
    """One caveat per op, kind, phase and dtypes (an op and its in-place variant usually
    exclude the same dtypes for the same reason; the op's family covers both)."""
    seen: dict[tuple, Caveat] = {}
    for caveat in caveats:
        key = (caveat.op, caveat.kind, caveat.phase, caveat.dtypes)
        if key not in seen or "in-place" in seen[key].statement:
            seen[key] = caveat if key not in seen or "in-place" not in caveat.statement else seen[key]
    return sorted(seen.values(), key=lambda c: (c.op, c.kind, c.phase or "", c.dtypes or ()))


def scrape(documents: list[Document]) -> list[Caveat]:
    return require_records(NAME, f"{len(documents)} documents", [c for doc in documents for c in parse(doc)])


SOURCE = Source(
    name=NAME,
    description="TorchTPU's op tests: dtypes each op test leaves out and gradients it skips, with the reason",
    kind="field",
    urls=(REPO + PATH,),
    parse=parse,
    local_paths=(PATH,),  # `kb ingest --all --from-file CHECKOUT` of that repository at COMMIT
)
