"""What the gallery pages of `kb serve` show (kb.serve.plugin renders them; it may not
import this room, so `kb serve` hands `page` in): the models × targets table with the
Baseline line, or one model's entry with its kb check report per target."""

from __future__ import annotations

from kb.gallery import views


def page(conn, model: str | None, target: str | None, mode: str) -> dict:
    targets = [target] if target else list(views.DEFAULT_TARGETS)
    if model is None:
        return {"kind": "table", **views.table(conn, targets, None, (mode,))}
    entry = views.model_entry(conn, model)
    lookups = views.Lookups(conn)
    reports = []
    if views.census_rows_exist(conn, entry["model"], "inference"):
        for name in targets:
            rep = views.report(conn, entry["model"], name, None, mode, "inference", lookups)
            reports.append({"summary": views.summary_row(entry, rep), "report": rep.to_dict()})
    return {"kind": "model", "entry": entry, "reports": reports}
