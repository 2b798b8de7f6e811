"""kb serve on schema 8: `observation` and `support_stored` are views of packed tables, so a
verdict's observation is linked to the observation page filtered to that row (a view has no
row pages), and the views' pages show the rows written out."""

from __future__ import annotations

import re
import sqlite3

from kb.serve import launch as serve
from tests.serve.test_serve_app import fetch


def test_a_verdicts_observation_links_to_its_whole_row(kb_file):
    ds = serve.make_datasette(kb_file)
    (support,) = fetch(ds, "/kb/support?op=aten::silu&target=neuron")
    links = re.findall(r'<td class="col-observation_id[^"]*"><a href="([^"]+)">(\d+)</a></td>', support.text)
    assert links and all(href == f"/kb/observation?id={number}" for href, number in links)
    (observation,) = fetch(ds, links[0][0])
    assert observation.status_code == 200
    url = sqlite3.connect(kb_file).execute("SELECT source_url FROM observation WHERE id = ?",
                                            (int(links[0][1]),)).fetchone()[0]
    assert url and url in observation.text


def test_the_packed_tables_are_hidden(kb_file):
    ds = serve.make_datasette(kb_file)
    (index,) = fetch(ds, "/kb")
    for hidden in ("observation_packed", "support_packed", "kbtext", "provenance_source", "provenance_batch"):
        assert f'href="/kb/{hidden}"' not in index.text, hidden
