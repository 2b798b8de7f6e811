"""Draw the op page and a product page of the KB built from the shipped data/ in headless
Chromium, for the docs:

    PYTHONPATH=. python -m tests.serve.screenshot_pages docs/

writes docs/op-page.png (F.scaled_dot_product_attention) and docs/product-page.png (python).
"""

from __future__ import annotations

import os
import sys
import tempfile

from tests.serve.browser import REPO, kb_serve, screenshot

PAGES = (("op-page.png", "/-/op?q=F.scaled_dot_product_attention", 1400, 2200),
         ("product-page.png", "/-/eol/torch-neuronx-xla", 1400, 800))


def main(argv: list[str]) -> int:
    out_dir = os.path.abspath(argv[0] if argv else os.path.join(REPO, "docs"))
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kb-shot-") as tmp:
        os.environ["KB_CACHE_DIR"] = tmp  # the shipped KB, not the user's
        with kb_serve(os.path.join(tmp, "kb.sqlite")) as base:
            for name, path, width, height in PAGES:
                print(screenshot(base + path, os.path.join(out_dir, name), width, height))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
