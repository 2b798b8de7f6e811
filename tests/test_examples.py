"""The example notebook (examples/check_in_notebook.ipynb) runs under a real Jupyter kernel and
shows the check as a coloured table; `python -m tests.test_examples OUT.png` draws it
(nbconvert to HTML, then headless Chromium) for the docs."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

from tests.conftest import REPO

NOTEBOOK = REPO / "examples" / "check_in_notebook.ipynb"


def execute(path=NOTEBOOK, timeout: int = 600):
    """The notebook, executed in a fresh python3 kernel (this interpreter's) in examples/."""
    import nbformat
    from nbclient import NotebookClient

    notebook = nbformat.read(str(path), as_version=4)
    NotebookClient(notebook, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return notebook


def test_the_notebook_is_valid_and_ships_without_outputs():
    nbformat = pytest.importorskip("nbformat")

    notebook = nbformat.read(str(NOTEBOOK), as_version=4)
    nbformat.validate(notebook)
    assert all(not cell.get("outputs") for cell in notebook.cells if cell.cell_type == "code")


@pytest.mark.heavy  # starts a Jupyter kernel that imports torch and checks a model (~30 s)
def test_the_notebook_runs_under_a_real_kernel(isolated_kb):
    pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    from kb.store.db import open_kb

    open_kb(None).close()  # the kernel finds this test's KB (KB_DB) built, as a second run would
    notebook = execute()
    outputs = [out for cell in notebook.cells for out in cell.get("outputs", [])]
    assert not [out for out in outputs if out.output_type == "error"]
    html = [out.data["text/html"] for out in outputs if "text/html" in out.get("data", {})]
    assert len(html) == 1 and "kb-status kb-native" in html[0] and "<table" in html[0]
    assert "neuron" in html[0] and "tpu" in html[0]
    text = "".join(out.get("text", "") for out in outputs if out.output_type == "stream")
    assert "fails on fallback: True" in text and "fails on unsupported: False" in text


def screenshot(out: str) -> str:
    """The executed notebook as HTML (nbconvert), drawn by headless Chromium into `out`."""
    from nbconvert import HTMLExporter

    from tests.serve.browser import screenshot as shoot

    notebook = execute()
    body, _ = HTMLExporter().from_notebook_node(notebook)
    with tempfile.TemporaryDirectory(prefix="kb-notebook-") as folder:
        page = os.path.join(folder, "notebook.html")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write(body)
        return shoot(f"file://{page}", out, width=1200, height=1900)


if __name__ == "__main__":
    print(screenshot(sys.argv[1] if len(sys.argv) > 1 else "notebook.png"))
