"""Answers of the shipped KB, as digests: what schema 8's packed tables must leave unchanged.

`answers(db)` runs a fixed sample of commands (`--json`) in-process on a KB file and
returns {name: sha256 of the canonical JSON}, with the fields that name when or where a
build ran blanked (as bench/golden_answers.py does). The digests were first those of the
schema-7 KB (before the tables were packed); they are saved again, on purpose, when an
answer's wording changes (session 5: basis marks, folded counts), and then the two `rows`
digests must stay as they were. They are kept in tests/store/data/answers_schema7.json:

    python tests/store/kb_answers.py save     # rewrite that file from the KB built now
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import sqlite3
import sys

# every 160th op the schema-7 KB had a verdict for, plus some with presumed, decomposed,
# family and doc-rule verdicts
OPS = ["aten::Int", "aten::_embedding_bag_forward_only", "aten::_foreach_max", "aten::_is_zerotensor",
       "aten::_scaled_mm_v2.out", "aten::_upsample_lanczos2d_aa.out", "aten::argmax.out", "aten::cauchy",
       "aten::cumprod_backward", "aten::fft_fft", "aten::greater_equal.Tensor_out", "aten::isreal",
       "aten::linear.out", "aten::miopen_batch_norm_backward.out", "aten::new_full.out",
       "aten::rand.generator_out", "aten::rsub.Scalar_out", "aten::special_bessel_j0.out",
       "aten::special_xlogy.self_scalar_out", "aten::true_divide.Scalar",
       "aten::add.Tensor", "aten::nonzero", "aten::quantize_per_tensor", "aten::_scaled_mm", "aten::linalg_svd",
       "aten::masked_select", "aten::convolution"]
COMMANDS: list[tuple[str, list[str]]] = [(f"op {op}", ["op", op]) for op in OPS] + [
    ("op sdpa", ["op", "scaled_dot_product_attention", "-t", "neuron", "-t", "tpu=0.2.0"]),
    ("op silu 2.33", ["op", "torch.ops.aten.silu.default", "-t", "neuron=2.33"]),
    ("ops tpu", ["ops", "--target", "tpu"]),
    ("ops neuron fallback", ["ops", "--target", "neuron", "--status", "fallback"]),
    ("ops neuron 2.14.3.1", ["ops", "--target", "neuron=2.14.3.1"]),
    ("ops inf1", ["ops", "--target", "inf1"]),
    ("compare", ["compare", "neuron", "tpu", "--all"]),
    ("diff tpu", ["diff", "tpu", "0.1.1", "0.2.0"]),
    ("targets", ["targets"]),
    ("disagreements", ["disagreements"]),
    ("check gallery gpt2", ["gallery", "gpt2", "-t", "neuron", "-t", "tpu"]),
    ("gallery", ["gallery", "--target", "neuron", "--target", "tpu", "--mode", "eager", "--mode", "compile"]),
    ("eol", ["eol"]),
    ("eol torch-neuronx", ["eol", "torch-neuronx"]),
    ("eol stack", ["eol", "--stack", "neuron=2.34 torch=2.14 python=3.12 ubuntu=24.04"]),
    ("db stats", ["db", "stats"]),
]
# when and where a build ran, the data files' mtimes, and the schema number (8 packs the same rows)
VARYING = {"built_at", "ingested_at", "seconds", "path", "db", "kb_path", "model_path", "data_fingerprint", "data_digest",
           "schema_version"}
# what later changes added, which the schema-7 KB's answers had not yet: left out. kbmeta's
# record for the incremental refresh (kb.store.incremental: what each data file wrote, the
# verdict counts a scoped rebuild adjusts); kb ops' folded stderr line (its top-level
# `notices`, which kb op had already)
LATER = {"data_files", "basis_counts"}
LATER_TOP = {"ops": {"notices"}}
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "answers_schema7.json")


def _blank(value):
    if isinstance(value, dict):
        return {k: ("<varies>" if k in VARYING else _blank(v)) for k, v in value.items() if k not in LATER}
    if isinstance(value, list):
        return [_blank(v) for v in value]
    return value


def digest(body: str, command: str = "") -> str:
    try:
        value = json.loads(body)
        if isinstance(value, dict):
            value = {k: v for k, v in value.items() if k not in LATER_TOP.get(command, ())}
        body = json.dumps(_blank(value), sort_keys=True, ensure_ascii=False)
    except ValueError:
        pass
    return hashlib.sha256(body.encode()).hexdigest()


def answers(db: str, names: list[str] | None = None) -> dict[str, str]:
    """{command name: digest of its --json output, with its exit code} on the KB at `db`."""
    from cli.entry import main

    out = {}
    for name, args in COMMANDS:
        if names is not None and name not in names:
            continue
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(io.StringIO()):
            code = main([*args, "--json", "--db", db])
        out[name] = f"{code} {digest(buffer.getvalue(), args[0])}"
    return out


def rows_digest(db: str, table: str) -> str:
    """Every row a table or view shows (JSON columns compared as data), sorted, as one digest."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        lines = []
        for row in conn.execute(f"SELECT * FROM {table}"):
            item = {k: row[k] for k in row.keys() if k not in ("ingested_at",)}
            for key in ("dtypes", "conditions", "sources", "effective_via", "report", "detail"):
                if isinstance(item.get(key), str):
                    item[key] = json.loads(item[key])
            lines.append(json.dumps(item, sort_keys=True))
    finally:
        conn.close()
    return hashlib.sha256("\n".join(sorted(lines)).encode()).hexdigest()


def snapshot(db: str) -> dict[str, str]:
    return {**answers(db), "rows support": rows_digest(db, "support"),
            "rows observation": rows_digest(db, "observation")}


if __name__ == "__main__":
    if sys.argv[1:] != ["save"]:
        sys.exit(__doc__)
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    os.environ.setdefault("KB_TODAY", "2026-12-01")
    import tempfile

    from kb.store import build

    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "kb.sqlite")
        build.build(path)
        result = snapshot(path)
        conn = sqlite3.connect(path)
        from tests.store.test_packed_kb import _records_digest  # what the test compares

        result["records_digest"] = _records_digest()
        result["data_digest"] = conn.execute("SELECT value FROM kbmeta WHERE key = 'data_digest'").fetchone()[0]
        conn.close()
    os.makedirs(os.path.dirname(GOLDEN), exist_ok=True)
    with open(GOLDEN, "w", encoding="utf-8") as fh:
        json.dump(result, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print(f"saved {len(result)} digests to {GOLDEN}")
