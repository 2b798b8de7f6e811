"""Tables fit COLUMNS and stay readable (issue 26, second fresh-eyes round #1-#3, #9-#12):
short cells (status, basis, version, mode) stay in their rows, long ones move to footnotes
numbered on across a page's tables, the op column is cut with "…", a URL is never broken,
and the table commands keep stderr to one folded basis line."""

from __future__ import annotations

import re

import pytest

from kb.store import db
from tests.conftest import run_kb

COMMANDS = [("op", "aten::add.Tensor"), ("ops", "-t", "tpu"), ("compare", "neuron", "tpu"),
            pytest.param(("gallery",), marks=pytest.mark.heavy), ("targets",),  # the gallery takes ~4 s
            ("eol",), ("eol", "python"),  # legends under the table, on stdout (kb eol printed 6 on stderr)
            ("ops", "-t", "neuron", "--status", "fallback"), ("diff", "tpu", "0.1.1", "0.2.0"), ("disagreements",)]


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    path = tmp_path_factory.mktemp("shipped-fit") / "kb.sqlite"
    db.open_kb(str(path)).close()
    return str(path)


def _url_line(line: str) -> bool:
    word = line.strip()
    return "://" in word and " " not in word


def _over(text: str, width: int) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width and not _url_line(line)]


@pytest.mark.parametrize("width", [120, 80])
@pytest.mark.parametrize("args", COMMANDS, ids=["op", "ops", "compare", "gallery", "targets", "eol", "eol-python",
                                             "ops-status", "diff", "disagreements"])
def test_table_commands_fit_columns(capsys, shipped, monkeypatch, args, width):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_kb(capsys, *args, "--db", shipped)
    assert code == 0 and not _over(out, width), _over(out, width)[:3]
    notices = err.splitlines()  # one line at most (`kb ops`: its one coverage line)
    assert len(notices) <= 1, notices
    if args[0] in ("compare", "targets", "gallery", "eol", "ops", "diff", "disagreements"):  # counts: under the table
        assert all(line.startswith("kb: basis: ") for line in notices), notices
    assert "legend" not in err


@pytest.mark.parametrize("width", [120, 80])
def test_short_cells_stay_in_the_rows(capsys, shipped, monkeypatch, width):
    monkeypatch.setenv("COLUMNS", str(width))
    _, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    cpu = next(line for line in out.splitlines() if line.startswith("cpu "))
    assert "2.13.0" in cpu and "eager" in cpu and "✔ native" in cpu and "evidence" in cpu
    assert not re.search(r"^\[\d+\] (eager|✔ native|evidence)$", out, re.M)
    _, out, _ = run_kb(capsys, "ops", "-t", "tpu", "--db", shipped)
    rows = [line for line in out.splitlines() if line.startswith("aten::__and__.")]
    assert rows and "decomposed" in rows[0] and "evidence" in rows[0]
    assert not re.search(r"^\[\d+\] (◐ decomposed|evidence|✔ native)$", out, re.M)
    names = [line.split("  ")[0] for line in out.splitlines() if line.startswith(("aten", "…"))]
    assert max(map(len, names)) <= width * 0.4 + 1 and any("…" in n for n in names)  # cut, not padding every row


def test_footnotes_number_on_across_a_pages_tables(capsys, shipped, monkeypatch):
    """The op page's later tables go on from the main table's last footnote: "[1]" means one thing."""
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    numbers = [int(n) for n in re.findall(r"^\[(\d+)\] ", out, re.M)]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) > 5


def test_footnote_urls_are_never_broken(capsys, shipped, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    _, js, _ = run_kb(capsys, "op", "aten::add.Tensor", "--json", "--db", shipped)
    urls = set(re.findall(r"https?://[^\s\"]+", js))
    long_urls = [u for u in urls if len(u) > 70 and u in out]
    assert long_urls  # whole, on a line of their own
    for line in out.splitlines():
        for url in re.findall(r"https?://\S+", line):
            assert url.rstrip(")") in urls or any(u.startswith(url.rstrip(")")) for u in urls)


def test_wrap_keeps_a_url_whole_on_its_own_line():
    from cli.render import _wrap

    url = "https://example.test/" + "a" * 100 + "/page.html"
    lines = _wrap(f"[4] release notes · history · {url} and after", 60, "    ")
    assert lines[0] == "[4] release notes · history ·" and lines[1] == "    " + url and lines[2] == "    and after"
    assert _wrap("x" * 130, 60)[0] == "x" * 60  # another long word is still split


def test_fit_keeps_short_cells_and_cuts_the_name():
    from cli.render import fit

    note = "a note of more than twenty characters, the same in every row"
    rows = [["aten::" + "x" * 70, "✔ native", "evidence", note], ["aten::y", "◐ decomposed", "presumed ᵖ", "short"]]
    fitted, notes = fit(["op", "status", "basis", "note"], rows, 60, first_number=7)
    assert [r[1:3] for r in fitted] == [["✔ native", "evidence"], ["◐ decomposed", "presumed ᵖ"]]
    assert fitted[0][0].endswith("…") and len(fitted[0][0]) < 40
    assert notes == [note] and fitted[0][3] == "[7]" and fitted[1][3] == "short"


@pytest.mark.parametrize("value, expected", [("10", 40), ("0", 120), ("-5", 120), ("abc", 120), ("100", 100)])
def test_columns_too_small_or_invalid_is_clamped_or_ignored(monkeypatch, value, expected):
    from cli.render import width_limit

    monkeypatch.setenv("COLUMNS", value)
    assert width_limit() == expected  # in a pipe (pytest's stdout is not a terminal)


def test_too_small_columns_still_fits_the_op_page(capsys, shipped, monkeypatch):
    monkeypatch.setenv("COLUMNS", "10")
    _, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    # clamped to 40: an 8-column table cannot quite fit it, but the 250-char note is a
    # footnote and no row is the old 397-column one
    assert "[1] " in out and not _over(out, 70)


# ---------------------------------------------------------------- whole words (issue 26: kb gallery at 80)


def _words(cells: list[str]) -> set[str]:
    return {word for cell in cells for word in cell.split() if len(word) > 1}


def test_a_table_too_wide_for_whole_words_becomes_records(capsys, monkeypatch):
    """Ten short columns at 80: wrapping would break words ("neuro/n", "presum/ed"), so
    each row is a record instead: its name on a line, `column: value` pairs under it."""
    from cli.render import fit_layout, table

    columns = ["model", "target", "mode", "calls on device", "FLOPs on device", "fallback", "unsupported/unknown",
               "torch.compile", "basis", "fully on device"]
    rows = [["ConvNeXt-T", "neuron 2.14.3.1", "eager", "99.6%", ">99.9%", "adaptive_avg_pool2d", "-", "fails",
             "presumed ᵖ", "✘"],
            ["all-MiniLM-L6-v2", "tpu 0.2.0", "compile", "100.0%", "100.0%", "-", "-", "clean", "evidence", "✔"]]
    layout, _, notes = fit_layout(columns, rows, 80)
    assert layout == "records" and notes == []
    monkeypatch.setenv("COLUMNS", "80")
    table(columns, rows, title="gallery · inference graph", status_column=None)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[:2] == ["gallery · inference graph", "ConvNeXt-T"] and all(len(line) <= 80 for line in lines)
    assert lines[2].startswith("  target: neuron 2.14.3.1 · mode: eager · calls on device: 99.6%")
    flat = " ".join(line.strip() for line in lines)
    for column, cell in zip(columns[1:], rows[0][1:]):
        assert f"{column}: {cell}" in flat  # every pair whole, on its line
    assert _words(sum(rows, [])) <= set(out.split())


def test_a_table_that_fits_whole_words_stays_a_table_and_breaks_none(capsys, monkeypatch, shipped):
    """`kb op` at 80 stays a table and wraps only between words ("◐" over "decomposed",
    never "decompos" / "ed"); versions wrap after their dots."""
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = run_kb(capsys, "op", "aten::add.Tensor", "--db", shipped)
    assert "target      version" in out and "decompos\n" not in out and "decomposed" in out
    assert not re.search(r"\b(decompos|presum|unkno|evide)\s*$", out, re.M)


def test_targets_at_80_shows_whole_words(capsys, monkeypatch, shipped):
    monkeypatch.setenv("COLUMNS", "80")
    _, out, _ = run_kb(capsys, "targets", "--db", shipped)
    _, js, _ = run_kb(capsys, "targets", "--json", "--db", shipped)
    import json

    labels = [t["label"] for t in json.loads(js)["targets"] if t.get("label")]
    flat = " ".join(line.strip() for line in out.splitlines())
    for label in labels:
        assert label in flat or any(f"[{n}]" in flat for n in range(1, 40)), label
    assert "PrivateU\n" not in out and "PrivateUse1" in out and not _over(out, 80)


@pytest.mark.heavy
def test_gallery_at_80_breaks_no_word(capsys, shipped, monkeypatch):
    """The gallery at COLUMNS=80: every line fits and every cell's words are whole (the
    fallback ops, the targets and versions, the basis), as records under each model."""
    import json

    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_kb(capsys, "gallery", "--db", shipped)
    assert code == 0 and not _over(out, 80)
    _, js, _ = run_kb(capsys, "gallery", "--json", "--db", shipped)
    words = set(out.split())
    for row in json.loads(js)["rows"][:40]:
        expected = [row["target"], row["backend_version"] or "", row["basis"], row["mode"],
                    *(op.removeprefix("aten::") for op in row["fallback_ops"][:3])]
        missing = [w for w in expected if w and w not in words and f"{w}," not in words]
        assert not missing, (row["name"], missing)


def test_a_wrapped_cell_breaks_at_its_spaces_first():
    from cli.render import _wrap_head

    assert _wrap_head("neuron 2.14.3.1", 12) == "neuron\n2.14.3.1"  # not "neuron 2.14." over "3.1"
    assert _wrap_head("0.1.0.dev0+g98154b8", 9) == "0.1.0.\ndev0+\ng98154b8"  # no space: after its dots


# ---------------------------------------------------------------- t26b #7, #8


def test_a_status_cell_wraps_in_its_row_never_a_footnote():
    """t26b #7: `◐ decomposed (leaves on the device)ᵖ` (over SHORT_CELL) stays in its row,
    wrapped at its spaces, while a long note still becomes a footnote."""
    from cli.render import fit

    status = "◐ decomposed (leaves on the device)ᵖ"
    note = "a note that is much longer than twenty characters, " * 2
    rows = [["aten::add.Scalar", status, status, "✔ native", note], ["aten::add_.Scalar", status, "✔ nativeᵖ", status, "x"]]
    fitted, notes = fit(["related kernel", "neuron", "tpu", "cpu", "note"], rows, 80)
    assert notes == [note]
    for row in fitted:
        assert not any(re.fullmatch(r"\[\d+\]", c) for c in row[1:4]), row
        assert "decomposed" in " ".join(row[1:4]) and all(len(line) <= 80 for line in "  ".join(row).split("\n"))
    assert fitted[0][1].replace("\n", " ") == status  # wrapped between its words, nothing lost


@pytest.mark.parametrize(("name", "width", "cut"), [
    ("aten::add_.Scalar", 16, "aten…add_.Scalar"),
    ("aten::add.Scalar_out", 16, "…add.Scalar_out"),
    ("aten::add.Scalar_out", 19, "aten…add.Scalar_out"),
    ("aten::_scaled_dot_product_flash_attention.default", 24, "_scaled_dot_pro….default"),
    ("model.layers.0.self_attn.q_proj", 16, "model.layers.0.…"),  # no op name: cut at its end
])
def test_an_op_name_is_cut_in_its_middle_keeping_its_overload(name, width, cut):
    from cli.render import _cut_name

    assert _cut_name(name, width) == cut and len(cut) <= width


def test_cut_op_names_stay_apart_from_their_neighbours():
    """t26b #7: at 80 columns `aten::add_.Scalar` is no longer `aten::add_.Scal…` under a row
    `aten::add.Scalar`: every cut name differs from every other name of the table."""
    from cli.render import fit

    names = ["aten::add.Scalar", "aten::add.Scalar_out", "aten::add_.Scalar", "aten::add_.Tensor", "aten::add.out"]
    rows = [[n, "✔ native", "x" * 30] for n in names]
    fitted, _ = fit(["op", "status", "note"], rows, 40)
    shown = [row[0] for row in fitted]
    assert len(set(shown)) == len(names) and any("…" in s for s in shown)
    for name, cut in zip(names, shown):
        assert cut == name or (cut.split("…")[-1] and name.endswith(cut.split("…")[-1].split(".")[-1]))


@pytest.mark.parametrize("value", ["0", "-5", " -1 ", "abc"])
def test_columns_that_is_no_width_is_ignored_as_the_readme_says(monkeypatch, value):
    """t26b #8: README and code agree: a COLUMNS of 0, negative or no number is no width, so
    a pipe gets the default width (120), never the unfitted table nor 40."""
    from cli.render import DEFAULT_WIDTH, width_limit
    from tests.conftest import REPO

    monkeypatch.setenv("COLUMNS", value)
    assert width_limit() == DEFAULT_WIDTH == 120
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "a `COLUMNS` that is no width (no number, `0` or negative) is ignored: the terminal's width, or 120 in a pipe" in readme
