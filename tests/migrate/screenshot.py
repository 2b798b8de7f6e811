"""Draw the `kb report` HTML of the test fixtures in headless Chromium, for the docs:

    PYTHONPATH=. python -m tests.migrate.screenshot docs/migration-report.png

Fixture code base, model, KB records and cost file from `report_fixtures`; the parity
result is a real `kb parity` run on the simulator with a drifting cumsum kernel (so the
chart shows an error that grows with the sequence length)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from tests.migrate import report_fixtures as fx
from tests.migrate.conftest import run_fresh
from tests.migrate.models import factory
from tests.serve import browser


def main(argv: list[str]) -> int:
    out = os.path.abspath(argv[0] if argv else os.path.join(fx.REPO, "docs", "migration-report.png"))
    html_copy = argv[1] if len(argv) > 1 else None
    with tempfile.TemporaryDirectory(prefix="kb-report-shot-") as tmp:
        root = Path(tmp)
        os.environ.update(KB_DATA_DIR=str(fx.small_data_dir(root)), KB_DB=str(root / "kb.sqlite"),
                          KB_CACHE_DIR=str(root / "cache"), KB_TODAY=fx.TODAY)
        fx.ingest(root / "kb.sqlite")
        made = fx.make_all(root)
        parity = run_fresh("parity", factory("running"), "--device", "sim", "--input-shape", "BxSx4", "--batch", "2",
                           "--sweep", "seq=16,128,1024,4096", "--sim-drift", "aten::cumsum=1e-10", "--json")
        (root / "parity.json").write_text(parity.stdout)
        page = root / "report.html"
        from cli.entry import main as kb

        code = kb(["report", made["repo"], "--model", made["model"], "--input-shape", "2x4", "--target", "neuron",
                   "--parity", str(root / "parity.json"), "--cost", made["costs"], "--next-cycle", fx.NEXT_CYCLE,
                   "--out", str(page)])
        if code != 0:
            return code
        if html_copy:
            Path(html_copy).write_text(page.read_text())
        os.makedirs(os.path.dirname(out), exist_ok=True)
        print(browser.screenshot(page.as_uri(), out, 1200, 1600))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
