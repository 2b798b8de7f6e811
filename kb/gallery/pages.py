"""What the gallery pages of `kb serve` show (kb.serve.plugin renders them; it may not
import this room, so `kb serve` hands `page` in): the models × targets table with the
Baseline line, or one model's entry with its kb check report per target."""

from __future__ import annotations

from kb.gallery import views


def page(conn, model: str | None, target: str | None, mode: str, graph: str = "inference") -> dict:
    targets = [target] if target else list(views.DEFAULT_TARGETS)
    if model is None:
        result = views.table(conn, targets, None, (mode,), graph)
        for row in result["rows"]:  # the page shows what the CLI shows: never 100.0% beside a fallback
            row["device_call_pct"], row["device_flop_pct"] = views.pct(row["device_call_share"]), \
                views.flop_pct(row)
        return {"kind": "table", **result, "flops_footnote": views.flops_footnote(result["rows"])}
    entry = views.model_entry(conn, model)
    lookups = views.Lookups(conn)
    reports = []
    if views.census_rows_exist(conn, entry["model"], graph):
        for name in targets:
            rep = views.report(conn, entry["model"], name, None, mode, graph, lookups)
            reports.append({"summary": views.summary_row(entry, rep), "report": rep.to_dict()})
    return {"kind": "model", "entry": entry, "reports": reports, "graph": graph}
