"""`kb serve` through Datasette's own ASGI client, on a real KB file built by ingest:
every canned query's rows, facets and labels, the plugin's rendering, and writes refused."""

from __future__ import annotations

import asyncio
import hashlib
import sqlite3
from urllib.parse import urlencode

import pytest

from kb.serve import launch as serve
from tests.serve import kbfixture

# The tables `kb check --save` should write (asked of the lead as a migration step); used
# here to show the model_check canned query works on them.


def fetch(ds, *paths: str):
    """GET each path on the app; returns the httpx responses."""
    async def run():
        return [await ds.client.get(p) for p in paths]
    return asyncio.run(run())


def rows(ds, path: str) -> list[dict]:
    sep = "&" if "?" in path else "?"
    (response,) = fetch(ds, f"{path}{sep}_shape=array")
    assert response.status_code == 200, response.text
    return response.json()


def sha(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def test_coverage_matrix_newest_version_per_target(kb_file):
    ds = serve.make_datasette(kb_file)
    got = rows(ds, "/kb/coverage.json")
    assert {r["op"]: {k: v for k, v in r.items() if k != "op"} for r in got} == kbfixture.COVERAGE
    assert list(got[0]) == ["op", "neuron", "tpu"]  # device targets first, only those with data
    assert rows(ds, "/kb/coverage.json?mode=compile") == [{"op": "aten::nonzero", "neuron": "unsupported", "tpu": None}]
    assert [r["op"] for r in rows(ds, "/kb/coverage.json?grep=add")] == ["aten::add.Scalar", "aten::add.Tensor"]
    assert [r["op"] for r in rows(ds, "/kb/coverage.json?after=aten::relu")] == ["aten::silu"]
    (page,) = fetch(ds, "/kb/coverage")
    assert f"neuron {kbfixture.NEURON}: " in page.text and f"; tpu {kbfixture.TPU}: " in page.text  # versions shown


def test_native_vs_fallback(kb_file):
    ds = serve.make_datasette(kb_file)
    got = rows(ds, "/kb/native_vs_fallback.json")
    assert [(r["op"], r["native_on"], r["other"], r["other_status"]) for r in got] == [
        ("aten::add.Scalar", "tpu", "neuron", "unsupported"),
        ("aten::silu", "neuron", "tpu", "fallback"),
    ]
    assert got[1]["native_version"] == kbfixture.NEURON and got[1]["other_version"] == kbfixture.TPU
    assert [r["op"] for r in rows(ds, "/kb/native_vs_fallback.json?native_on=neuron")] == ["aten::silu"]


def test_disagreements_with_each_source(kb_file):
    ds = serve.make_datasette(kb_file)
    (row,) = rows(ds, "/kb/disagreements.json")
    assert (row["op"], row["target"], row["status"], row["source_kind"]) == ("aten::relu", "tpu", "native", "static_probe")
    assert row["sources"] == '{"probe@static-tpu-0001": "native", "tpu-doc": "fallback"}'


def test_probe_runs_with_counts(kb_file):
    ds = serve.make_datasette(kb_file)
    (run,) = rows(ds, "/kb/probe_runs.json")
    assert run["run_id"] == kbfixture.RUN and run["backend_version"] == kbfixture.TPU
    assert (run["observations"], run["native"], run["fallback"], run["failing"]) == (5, 3, 1, 1)


def test_upcoming_end_of_support_newest_statement(kb_file):
    ds = serve.make_datasette(kb_file)
    got = rows(ds, "/kb/upcoming_eol.json")
    assert [(r["product"], r["cycle"], r["eol"], r["eol_kind"]) for r in got] == [
        ("neuron-sdk", "2.33", "2099-06-01", "announced")]
    assert got[0]["source_url"] == "https://example.test/neuron/eol"
    assert len(rows(ds, "/kb/upcoming_eol.json?on_or_after=2000-01-01")) == 2


def test_upcoming_end_of_support_resolves_releases_drops_the_past_soonest_first(kb_file):
    from kb.store import records as rec
    from kb.store.ingest import ingest_records
    from tests.conftest import prov

    src = prov(name="neuron-eol", url="https://example.test/neuron/eol")
    ingest_records(kb_file, [
        rec.Release(product="neuron-sdk", version="2.40.0", date="2099-01-15", provenance=src),
        rec.Release(product="neuron-sdk", version="2.10.0", date="2001-05-01", provenance=src),
        rec.SupportWindow(product="PyTorch/XLA on Neuron", cycle="training", eol_kind="with_release",
                          eol_release="2.40", provenance=src),
        rec.SupportWindow(product="python", cycle="3.8", eol_kind="with_release", eol_release="2.10",
                          provenance=src),
        rec.SupportWindow(product="nxdi", cycle="inference", eol_kind="with_release", eol_release="2.99",
                          provenance=src),
    ], source_name="neuron-eol")
    got = rows(serve.make_datasette(kb_file), "/kb/upcoming_eol.json")
    assert [(r["product"], r["cycle"], r["end_of_support"]) for r in got] == [
        ("torch-neuronx-xla", "training", "2099-01-15"),  # "ends with 2.40", resolved; kb eol's name
        ("neuron-sdk", "2.33", "2099-06-01"),
        ("nxd-inference", "inference", "pending"),  # not yet released: last
    ]  # python 3.8 ended with 2.10 in 2001: dropped
    assert got[0]["how_known"] == "ends with release 2.40 (shipped 2099-01-15)" and got[0]["days_left"] > 0


def test_model_check_query_left_out_without_its_tables(kb_file):
    """A KB file from before schema 3 (no check tables) still serves, without that query."""
    conn = sqlite3.connect(kb_file)
    conn.executescript("DROP TABLE checkop; DROP TABLE checkreport;")
    conn.close()
    ds = serve.make_datasette(kb_file)
    assert "model_check" not in ds.metadata("queries", database="kb")
    home, missing = fetch(ds, "/kb", "/kb/model_check.json")
    assert home.status_code == 200 and missing.status_code == 404


def test_model_check_query_on_saved_reports(kb_file):
    conn = sqlite3.connect(kb_file)
    for rid in (1, 2):
        conn.execute("INSERT INTO checkreport VALUES (?, '2026-11-30T10:00:00Z', 'model.pt2', NULL, 'neuron', "
                     "'2.14.3.0', 'eager', 'fallback', '{}', '0.1.0')", (rid,))
    conn.executemany("INSERT INTO checkop (report_id, op, count, status, via) VALUES (?, ?, ?, ?, ?)", [
        (1, "aten::relu", 9, "native", "kb"),
        (2, "aten::relu", 3, "native", "kb"),
        (2, "aten::nonzero", 1, "fallback", "kb"),
        (2, "aten::silu", 2, "unknown", "kb"),
    ])
    conn.commit()
    conn.close()
    ds = serve.make_datasette(kb_file)
    got = rows(ds, "/kb/model_check.json")
    assert [(r["report_id"], r["op"], r["status"]) for r in got] == [
        (2, "aten::silu", "unknown"), (2, "aten::nonzero", "fallback"), (2, "aten::relu", "native")]
    assert [r["count"] for r in rows(ds, "/kb/model_check.json?report_id=1")] == [9]


def test_facets_and_labels(kb_file):
    ds = serve.make_datasette(kb_file)
    (response,) = fetch(ds, "/kb/support.json?_labels=on")
    data = response.json()
    facets = data["facet_results"]
    assert {"target", "status", "effective_status", "basis", "mode", "release_id"} <= set(facets)
    assert {f["value"]: f["count"] for f in facets["target"]["results"]} == {"neuron": 8, "tpu": 5}
    assert {f["label"] for f in facets["release_id"]["results"]} == {kbfixture.NEURON, kbfixture.NEURON_OLD,
                                                                      kbfixture.TPU}
    release = data["rows"][0]["release_id"]
    assert release["label"] in (kbfixture.NEURON, kbfixture.NEURON_OLD, kbfixture.TPU)


def test_statuses_rendered_and_linked_to_sources(kb_file):
    ds = serve.make_datasette(kb_file)
    support, matrix, css = fetch(ds, "/kb/support?op=aten::silu&target=neuron", "/kb/coverage",
                                 "/kb-static/kb.css")
    assert 'href="https://example.test/neuron/ops"' in support.text
    assert '<span class="kb-status kb-native">✔ native</span>' in support.text
    assert "/kb-static/kb.css" in support.text and css.status_code == 200 and ".kb-fallback" in css.text
    # a matrix cell links to the verdicts behind it, unknown cells say so
    assert 'href="/kb/support?op=aten%3A%3Anonzero&amp;target=neuron&amp;release_id=' in matrix.text
    assert '<span class="kb-status kb-fallback">⇄ fallback</span>' in matrix.text
    (probe_verdict,) = fetch(ds, "/kb/support?op=aten::silu&target=tpu")
    assert f'href="/kb/proberun/{kbfixture.RUN}"' in probe_verdict.text


def test_every_page_is_served(kb_file):
    ds = serve.make_datasette(kb_file)
    pages = ["/", "/kb", "/kb/target", "/kb/release", "/kb/op", "/kb/observation", "/kb/supportwindow",
             "/kb/limitation", "/kb/proberun", "/kb/ingestrun", "/kb/kbmeta", f"/kb/proberun/{kbfixture.RUN}"]
    pages += [f"/kb/{q}" for q in ds.metadata("queries", database="kb")]
    for page, response in zip(pages, fetch(ds, *pages)):
        assert response.status_code == 200, page


def test_read_only_sql_and_writes_refused(kb_file):
    before = sha(kb_file)
    ds = serve.make_datasette(kb_file)
    assert ds.get_database("kb").is_mutable  # read live (kb ingest may write meanwhile), never written
    (delete,) = fetch(ds, "/kb.json?sql=DELETE+FROM+support")
    assert delete.status_code == 400 and "SELECT" in delete.json()["error"]
    assert rows(ds, "/kb.json?sql=select+count(*)+as+n+from+support") == [{"n": 13}]
    assert sha(kb_file) == before


def test_write_canned_query_refused(kb_file):
    before = sha(kb_file)
    metadata = serve.build_metadata(kb_file)
    metadata["databases"]["kb"]["queries"]["wipe"] = {"sql": "DELETE FROM support_stored", "write": True}
    ds = serve.make_datasette(kb_file, metadata=metadata)

    async def post():
        return await ds.client.post("/kb/wipe", data={})

    response = asyncio.run(post())
    assert response.status_code in (302, 403)  # refused: every connection is query_only
    assert sha(kb_file) == before
    assert rows(ds, "/kb.json?sql=select+count(*)+as+n+from+support") == [{"n": 13}]


def test_plugin_inert_on_other_datasette_instances(kb_file):
    from datasette.app import Datasette

    serve.register_plugin()  # as after any `kb serve` in this process
    plain = Datasette(immutables=[kb_file])
    (page,) = fetch(plain, "/kb/support")
    assert page.status_code == 200 and "kb-status" not in page.text and "kb.css" not in page.text


def test_home_page_has_the_op_search_box_and_the_legend(kb_file):
    (home,) = fetch(serve.make_datasette(kb_file), "/")
    assert home.status_code == 200
    assert 'action="/-/op"' in home.text and 'name="q"' in home.text and "presumed" in home.text


@pytest.mark.parametrize("spelling", ["aten::nonzero", "nonzero", "torch.nonzero", "torch.ops.aten.nonzero"])
def test_op_page_takes_any_spelling_and_lists_every_target(kb_file, spelling):
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/op?" + urlencode({"q": spelling}))
    assert page.status_code == 200, page.text
    text = page.text
    assert "<h2>aten::nonzero</h2>" in text
    assert "kb-fallback" in text and "kb-unsupported" in text  # neuron fallback, tpu unsupported (eager)
    assert "https://example.test/neuron/ops" in text  # each verdict links its source
    assert "how to find out: <code>kb probe --static --backend cuda" in text  # a target without data: how to settle


def test_op_page_unknown_name_is_404_with_suggestions_and_search_without_q(kb_file):
    ds = serve.make_datasette(kb_file)
    (missing,) = fetch(ds, "/-/op?q=nonzer")
    assert missing.status_code == 404 and "did you mean nonzero" in missing.text
    (empty,) = fetch(ds, "/-/op")
    assert empty.status_code == 200 and 'name="q"' in empty.text


def test_op_names_in_tables_link_to_the_op_page(kb_file):
    (listing,) = fetch(serve.make_datasette(kb_file), "/kb/support?op=aten::relu")
    assert 'href="/-/op?q=aten%3A%3Arelu"' in listing.text


def test_coverage_matrix_header_says_how_much_is_known(kb_file):
    metadata = serve.build_metadata(kb_file)
    description = metadata["databases"]["kb"]["queries"]["coverage"]["description"]
    assert "neuron 2.14.3.0: 5 of 5 ops known (100.0%); 0 unknown" in description


def test_product_page_every_cycle_with_state_and_relative_day(kb_file):
    from cli.serve import register_pages

    register_pages()
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/eol/torch_tpu")
    assert page.status_code == 200
    assert "TorchTPU (torch_tpu, device tpu): end of support" in page.text
    assert "kb-eol-ended" in page.text and "2001-01-01" in page.text and "days ago" in page.text
    (sdk,) = fetch(ds, "/-/eol/neuron-sdk")
    assert "2099-06-01" in sdk.text and "2099-03-01" not in sdk.text  # the newest statement wins
    (redirect,) = fetch(ds, "/-/eol?product=tpu")
    assert redirect.status_code == 302 and redirect.headers["location"].endswith("/-/eol/tpu")
    (missing,) = fetch(ds, "/-/eol/cobol")
    assert missing.status_code == 404 and "no support windows for" in missing.text


def test_product_page_shows_whose_support_each_row_is(kb_file):
    """Python's own end of life (upstream) beside a vendor's support of it, each row labelled."""
    from cli.serve import register_pages
    from kb.store.ingest import ingest_records
    from kb.store.records import SupportWindow
    from tests.conftest import prov

    own = SupportWindow(product="Python", cycle="3.12", eol="2028-10", eol_kind="announced",
                        provenance=prov(name="upstream-eol", url="https://devguide.python.org/versions/"))
    ingest_records(kb_file, [own], source_name="upstream-eol")
    register_pages()
    (page,) = fetch(serve.make_datasette(kb_file), "/-/eol/python")
    assert page.status_code == 200 and "whose support" in page.text
    assert "upstream (own end of life)" in page.text and "2028-10-01" in page.text


def test_product_page_percent_decodes_its_path(kb_file):
    """`/-/eol/torch%5Ftpu` and `/-/eol/torch%20tpu`-style names are the names `kb eol` takes
    (the search box's redirect quotes them), shown decoded in the box (t26 r2 #7)."""
    from cli.serve import register_pages

    register_pages()
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/eol/torch%5Ftpu")
    assert page.status_code == 200 and "TorchTPU (torch_tpu, device tpu): end of support" in page.text
    assert "torch%5Ftpu" not in page.text
    (missing,) = fetch(ds, "/-/eol/no%20such")
    assert missing.status_code == 404 and "no such" in missing.text and "no%20such" not in missing.text


# ---------------------------------------------------------------- the coverage matrix, a page a person reads


def _matrix_page(text: str) -> tuple[list[str], str, dict[str, str]]:
    """(ops shown, the pager line's text, its links by rel) of one coverage page."""
    import html
    import re

    ops = re.findall(r'<td class="col-op"><a[^>]*>([^<]*)</a>', text)
    nav = re.search(r'<nav class="kb-pages"[^>]*>(.*?)</nav>', text, re.S)
    line = html.unescape(re.sub(r"<[^>]+>", "", nav.group(1))).strip() if nav else ""
    links = {rel: html.unescape(href) for href, rel in re.findall(r'href="([^"]*)" rel="(next|prev)"', text)}
    return [html.unescape(op) for op in ops], line, links


def test_coverage_page_has_no_sql_controls(kb_file):
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/kb/coverage")
    assert page.status_code == 200
    for sql_control in ("Custom SQL query", "Run SQL", "sql-editor", "Edit SQL", "_show_sql", "_hide_sql",
                        "Query parameters", "CodeMirror"):
        assert sql_control not in page.text, sql_control
    assert 'name="grep"' in page.text and '<select name="mode">' in page.text and 'value="Show"' in page.text
    ops, line, links = _matrix_page(page.text)
    assert ops == sorted(kbfixture.COVERAGE) and line == f"ops 1–{len(ops)} of {len(ops)}" and links == {}


def test_coverage_pages_reach_every_op_known_ones_first(kb_file):
    """Pages of N ops with next/previous links (keyset on `after`): walking the next links
    reaches every op, the ops no device target knows (here aten::Int, cpu only) last."""
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status

    ingest_records(kb_file, [op_status("aten::Int", "native", target="cpu", version="2.13.0", name="cpu-doc",
                                       url="https://example.test/cpu")], source_name="cpu-doc")
    ds = serve.make_datasette(kb_file, settings={"max_returned_rows": 2})
    url, seen, lines, prevs = "/kb/coverage", [], [], []
    while url:
        (page,) = fetch(ds, url)
        assert page.status_code == 200, page.text[:300]
        ops, line, links = _matrix_page(page.text)
        seen += ops
        lines.append(line)
        prevs.append(links.get("prev"))
        url = links.get("next")
    assert seen == [*sorted(kbfixture.COVERAGE), "aten::Int"]
    assert lines == ["ops 1–2 of 6 · next 2 →", "ops 3–4 of 6 · ← previous 2 · next 2 →",
                     "ops 5–6 of 6 · ← previous 2 · first page"]
    assert prevs == [None, "/kb/coverage", "/kb/coverage?after=aten%3A%3Aadd.Tensor"]
    (page,) = fetch(ds, "/kb/coverage?grep=zero&mode=eager")  # a filter counts its own ops
    ops, line, links = _matrix_page(page.text)
    assert ops == ["aten::nonzero"] and line == "ops 1–1 of 1" and links == {}
    (page,) = fetch(ds, "/kb/coverage?grep=a&after=aten::nonzero")
    ops, line, links = _matrix_page(page.text)
    assert ops == ["aten::relu", "aten::silu"] and line.startswith("ops 4–5 of 6")
    assert links["next"] == "/kb/coverage?grep=a&after=aten%3A%3Asilu"
    (page,) = fetch(ds, "/kb/coverage?grep=zzz")
    assert "No op matches “zzz”" in page.text


def test_coverage_pages_count_an_after_that_names_no_op():
    from kb.serve.matrix import coverage_pages

    order = [(0, "aten::a"), (0, "aten::c"), (1, "aten::Int"), (1, "aten::b")]
    pages = coverage_pages(order, {"after": "aten::b0"}, "/kb/coverage", 2)  # between a and c, by name
    assert pages([{"op": "aten::c"}], False)["first"] == 2
    pages = coverage_pages(order, {"after": "aten::Int"}, "/kb/coverage", 2)  # in the unknown group
    got = pages([{"op": "aten::b"}], False)
    assert (got["first"], got["last"], got["total"], got["prev"]) == (4, 4, 4, "/kb/coverage?after=aten%3A%3Aa")  # [c, Int]


# ---------------------------------------------------------------- the support page's facets and count


SUPPORT_FILTERS = ["", "target=tpu", "status__in=native,fallback&target=neuron", "op__contains=add",
                   "effective_status__isnull=1", "source_kind=doc", "release_id__gt=1", "basis__not=presumed",
                   "_where=note like '%doc%'", "_where=target = 'tpu'", "mode=compile&_facet_size=1"]
FACETS = ("target", "status", "effective_status", "basis", "mode", "release_id")


def _view_facets(kb_path: str, query: str) -> tuple[int, dict[str, dict]]:
    """(count, facets) of the support page as Datasette itself counts them on the whole view."""
    from kb.serve.launch import build_metadata
    metadata = build_metadata(kb_path)
    metadata["databases"]["kb"]["tables"]["support"]["facets"] = list(FACETS)
    from datasette.app import Datasette

    plain = Datasette([kb_path], metadata=metadata, settings={"suggest_facets": False})
    name = next(n for n, db in plain.databases.items() if db.path)
    (response,) = fetch(plain, f"/{name}/support.json?{query}")
    data = response.json()
    return data["filtered_table_rows_count"], data["facet_results"]


@pytest.mark.parametrize("query", SUPPORT_FILTERS)
def test_support_facets_and_count_on_the_narrow_view_match_the_whole_view(kb_file, query):
    """The six default facets (counted together on support_status) and the row count give
    what Datasette's own facets and count over the support view give, for any filter: a
    filter on a column support_status lacks (source_kind, note) counts on the view."""
    ds = serve.make_datasette(kb_file)
    (response,) = fetch(ds, f"/kb/support.json?{query}")
    data = response.json()
    count, expected = _view_facets(kb_file, query)
    assert data["filtered_table_rows_count"] == count
    for name in FACETS:
        got, want = data["facet_results"][name], expected[name]
        assert got["type"] == "column" and got["truncated"] == want["truncated"], name
        assert [(r["value"], r["count"], r["selected"]) for r in got["results"]] == \
               [(r["value"], r["count"], r["selected"]) for r in want["results"]], name
        assert [r["toggle_url"] for r in got["results"]] == [r["toggle_url"] for r in want["results"]], name


def test_support_page_facets_and_count_follow_an_ingest(kb_file):
    """The counted facets and row count are kept per KB file state: a write shows at once."""
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status

    ds = serve.make_datasette(kb_file)
    (before,) = fetch(ds, "/kb/support.json?target=tpu")
    ingest_records(kb_file, [op_status("aten::mul.Tensor", "native", target="tpu", version=kbfixture.TPU,
                                       name="tpu-doc2", url="https://example.test/tpu2")], source_name="tpu-doc2")
    (after,) = fetch(ds, "/kb/support.json?target=tpu")
    assert after.json()["filtered_table_rows_count"] == before.json()["filtered_table_rows_count"] + 1
    counts = {r["value"]: r["count"] for r in after.json()["facet_results"]["target"]["results"]}
    assert counts == {"tpu": after.json()["filtered_table_rows_count"]}


@pytest.mark.parametrize(("where", "narrow"), [
    ('"target" = :p0 and mode in (:p1, :p2)', True), ("op like :p0", True), ("(effective_status is null)", True),
    ("release_id > :p0", True), ("source_kind = :p0", False), ('"source_kind" = :p0', False),
    (":p0 in (select value from json_each([support].[target]))", False), ("date(mode) = :p0", False),
    ("target = 'tpu'; drop", False), ("", True)])
def test_where_clauses_counted_on_the_narrow_view(where, narrow):
    from kb.serve.facets import _where_is_narrow

    assert _where_is_narrow(where, frozenset(("op", "target", "mode", "effective_status", "release_id"))) is narrow


def test_op_page_legend_explains_every_basis_mark(kb_file):
    """The op page (and the gallery's, which share it) explains ʳ as the home page does."""
    from kb.serve.plugin import LEGEND_HTML
    from kb.vocab import BASIS_MARKS

    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/op?q=aten::add.Tensor")
    assert page.status_code == 200 and LEGEND_HTML in page.text
    for basis, mark in BASIS_MARKS.items():
        if mark:
            assert f"{mark} " in LEGEND_HTML, basis
    assert "ʳ doc rule" in LEGEND_HTML


def test_warm_counts_the_support_page_before_serving(kb_file):
    """kb serve loads /kb/support once at start (kb.serve.launch.warm): its facets and row
    count are then kept, so a person's first load is the cheap one."""
    from kb.serve import facets as counted

    counted.clear_caches()
    ds = serve.make_datasette(kb_file)
    serve.warm(ds)
    assert counted._facet_cache and counted._count_cache
    facets, counts = dict(counted._facet_cache), dict(counted._count_cache)
    (page,) = fetch(ds, "/kb/support.json")
    assert page.status_code == 200 and counted._facet_cache == facets and counted._count_cache == counts


def test_coverage_page_escapes_its_filter_values(kb_file):
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/kb/coverage?" + urlencode({"grep": '"><script>x</script>', "after": "<b>"}))
    assert page.status_code == 200 and "<script>x" not in page.text and "<b>." not in page.text
    assert "&lt;script&gt;x&lt;/script&gt;" in page.text and "after &lt;b&gt;" in page.text


def test_op_page_related_kernels_show_each_verdicts_basis(kb_file):
    """t26b #2: a related kernel's verdict carried from an older version shows ᵖ beside its
    status, as the CLI's table does (the legend above explains it); the version cell never
    breaks inside its hash."""
    import re

    from kb.serve.plugin import LEGEND_HTML
    from kb.store.ingest import ingest_records
    from tests.conftest import op_status

    ingest_records(kb_file, [op_status("aten::add.out", "fallback", target="neuron", version=kbfixture.NEURON_OLD,
                                       name="neuron-old-doc", url="https://example.test/neuron/old")],
                   source_name="neuron-old-doc")
    ds = serve.make_datasette(kb_file)
    (page,) = fetch(ds, "/-/op?q=aten::add.Tensor")
    assert page.status_code == 200 and LEGEND_HTML in page.text
    related = page.text[page.text.index('class="rows-and-columns kb-related"'):]
    related = related[:related.index("</table>")]
    cell = re.search(r'<a href="[^"]*aten%3A%3Aadd\.out">aten::add\.out</a></td>(.*?)</tr>', related, re.S)
    assert cell, related
    assert re.search(r"⇄ fallback</span>(</a>)?ᵖ", cell.group(1)), cell.group(1)
    assert f'<td class="kb-nowrap">{kbfixture.NEURON}</td>' in page.text  # a version is one unbroken cell


def test_support_facet_counts_never_break_inside_a_number():
    """t26b #10: Datasette's facet bullets break anywhere ("23,7" / "86"); kb.css lets only a
    word too long for the facet column break."""
    import re

    from tests.conftest import REPO

    css = (REPO / "data" / "datasette" / "static" / "kb.css").read_text(encoding="utf-8")
    assert re.search(r"\.facet-info ul\.tight-bullets li \{[^}]*word-break: normal", css)


def test_coverage_page_says_a_mode_is_unknown(kb_file):
    """t26b #10: `?mode=<b>` is not quietly the eager matrix: the page says the mode is
    unknown and which ones there are (escaped); a known mode says nothing of the kind."""
    ds = serve.make_datasette(kb_file)
    bad, good = fetch(ds, "/kb/coverage?mode=%3Cb%3E", "/kb/coverage?mode=compile")
    assert "unknown mode “&lt;b&gt;”: the matrix has eager and compile" in bad.text and "<b>”" not in bad.text
    assert "unknown mode" not in good.text
