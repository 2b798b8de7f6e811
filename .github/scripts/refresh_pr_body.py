"""The body of the scheduled refresh's pull request: the change report of `kb ingest --all
--json` (per source: new evidence, verdicts that changed, new releases and support
windows) and the `git diff --stat` of data/. Standard library only: it runs in CI.

    python .github/scripts/refresh_pr_body.py ingest.json diffstat.txt > body.md
"""

from __future__ import annotations

import json
import sys

MAX_ROWS = 200  # a pull request body has a size limit; the diff has everything


def _cell(value) -> str:
    return str(value if value is not None else "").replace("|", "\\|").replace("\n", " ")


def _table(headers: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows[:MAX_ROWS]]
    if len(rows) > MAX_ROWS:
        lines.append(f"\n…and {len(rows) - MAX_ROWS} more (see the diff).")
    return lines


def render(report: dict, diffstat: str) -> str:
    results = report.get("results") or []
    out = ["Scheduled refresh of the KB from the vendors' public pages (`kb ingest --all`, then "
           "`kb data export`).", "", "### Sources", ""]
    out += _table(["source", "new evidence", "unchanged"],
                  [[r.get("source"), r.get("added", 0), "yes" if r.get("unchanged") else "no"] for r in results])
    changes = [c for r in results for c in r.get("changes") or []]
    out += ["", f"### Changed verdicts ({len(changes)})", ""]
    out += _table(["op", "target", "version", "mode", "old", "new"],
                  [[c.get("op"), c.get("target"), c.get("backend_version"), c.get("mode"), c.get("old"), c.get("new")]
                   for c in changes]) if changes else ["none"]
    releases = [v for r in results for v in r.get("new_releases") or []]
    if releases:
        out += ["", "### New releases", ""] + [f"- {v}" for v in releases]
    windows = [w for r in results for w in r.get("new_support_windows") or []]
    if windows:
        out += ["", "### New support windows", ""]
        out += _table(["product", "cycle", "end of support", "kind", "ends with"],
                      [[w.get("product"), w.get("cycle"), w.get("eol"), w.get("eol_kind"), w.get("eol_release")]
                       for w in windows])
    if report.get("errors"):
        out += ["", "### Errors", ""] + [f"- {e}" for e in report["errors"]]
    out += ["", "### data/", "", "```", diffstat.strip() or "(no change)", "```", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        sys.stderr.write("usage: refresh_pr_body.py INGEST_JSON DIFFSTAT_TXT\n")
        return 2
    with open(argv[0], encoding="utf-8") as fh:
        report = json.load(fh)
    with open(argv[1], encoding="utf-8") as fh:
        diffstat = fh.read()
    sys.stdout.write(render(report, diffstat))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
