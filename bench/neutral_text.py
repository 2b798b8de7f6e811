"""What neutral output costs (issue 24), as ratios to the escaping each renderer already did.

kb.neutral runs on every string a renderer shows: each cell of a 1,000-row `kb serve`
page (render_cell asks `acts` first), each cell of a `kb check` table, each markdown and
JUnit value. Measured on the shipped op catalog's names (3,110 overloads, the common case:
nothing to change) plus a few hostile ones, against the escaping the renderer did before
in the same run: markupsafe.escape (Datasette cells), html.escape (reports), the old
markdown cell escape (backslash, pipe, newline: cli.audit and kb.migrate.report), three
replaces (Slack). Target: each ratio ≤ 8× (markdown escapes twelve characters where the
old cell escape did two, and strips controls: about 6× of a ~0.1 µs baseline, still under a
microsecond per value, so a table of thousands of values gains a millisecond or two).
Run: python bench/neutral_text.py   (BENCH_RUNS=5 by default)
"""

from __future__ import annotations

import html
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from markupsafe import escape  # noqa: E402

from kb import neutral, paths  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "5"))
TARGET = 8.0


def values() -> list[str]:
    with open(os.path.join(paths.PACKAGE_ROOT, "data", "ops", "aten-torch-2.13.0.jsonl"), encoding="utf-8") as fh:
        names = [json.loads(line)["name"] for line in fh if line.strip()]
    urls = [f"https://awsdocs-neuron.readthedocs-hosted.com/en/latest/ops/{n}.html" for n in names[:500]]
    hostile = ["evil\x1b[2J[/]\n| Gate passed |", "<!channel> <https://evil|click>", "javascript:alert(1)"] * 10
    return names + urls + hostile


def best(fn, items: list[str]) -> float:
    times = []
    for _ in range(RUNS):
        start = time.perf_counter()
        for item in items:
            fn(item)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    items = values()
    pairs = [
        ("serve cell: acts() vs markupsafe.escape", neutral.acts, escape),
        ("report HTML: neutral.html vs html.escape", neutral.html, lambda s: html.escape(s, quote=True)),
        ("markdown cell: neutral.markdown vs the old cell escape (\\, |, newline)", neutral.markdown,
         lambda s: s.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")),
        ("terminal cell: neutral.terminal vs str()", neutral.terminal, str),
        ("slack: neutral.slack vs three replaces", neutral.slack,
         lambda s: s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")),
    ]
    worst = 0.0
    print(f"{len(items)} values, median of {RUNS} runs")
    for label, new, old in pairs:
        t_new, t_old = best(new, items), best(old, items)
        ratio = t_new / t_old
        # terminal vs str() is a floor, not what the renderer did (it did nothing): shown, not gated
        if "str()" not in label:
            worst = max(worst, ratio)
        print(f"  {label}: {t_new / len(items) * 1e9:.0f} ns vs {t_old / len(items) * 1e9:.0f} ns per value = {ratio:.2f}×")
    print(f"worst ratio (gated): {worst:.2f}× (target ≤ {TARGET}×): {'ok' if worst <= TARGET else 'OVER'}")


if __name__ == "__main__":
    main()
