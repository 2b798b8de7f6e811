"""Build hook: the wheel carries the repository's `data/` as `kb/_data`, and the KB built
from it as `kb/_prebuilt/kb.sqlite`.

`data/` stays the one source of truth in git (scripts and reviews write there); a built wheel
gets a copy inside the package, where kb.paths.shipped_data_dir looks first, and the KB file a
first use would build from it (kb.store.build.write_prebuilt: plain sqlite3 and kb's own
modules, so it builds in the isolated build environment), which a first use copies instead of
building. Editable installs copy nothing and keep reading the checkout's `data/`; they build
the KB into the source tree's kb/_prebuilt/ (ignored by git), which a first use copies while
its data digest still matches `data/` (KB_NO_PREBUILD=1 skips it). Everything else is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
BUNDLED = os.path.join("kb", "_data")
PREBUILT = os.path.join("kb", "_prebuilt", "kb.sqlite")


def _shipped(folder: str, names: list[str]) -> list[str]:
    """What not to copy: caches and hidden files that may lie in a working copy."""
    return [n for n in names if n.startswith(".") or n == "__pycache__" or n.endswith((".pyc", ".sqlite", ".db"))]


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            # `pip install -e .` of a checkout: the KB is built here, once, into the source tree
            # (kb/_prebuilt/, ignored by git), so the first command after the install copies it
            # instead of building; after a `git pull` that changes data/ its digest no longer
            # matches and kb builds anew, as without it.
            if os.path.isdir(DATA) and os.environ.get("KB_NO_PREBUILD") != "1":
                try:
                    _prebuild(os.path.join(HERE, PREBUILT))
                except SystemExit as exc:  # an editable install still works without it
                    print(f"setup.py: no prebuilt KB ({exc}); the first kb command will build it", flush=True)
            return
        if not os.path.isdir(DATA):
            raise SystemExit(f"setup.py: {DATA} is missing; the wheel would carry no knowledge")
        target = os.path.join(self.build_lib, BUNDLED)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(DATA, target, ignore=_shipped)
        _prebuild(os.path.join(self.build_lib, PREBUILT))

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = super().get_outputs(include_bytecode)
        if getattr(self, "editable_mode", False) or not os.path.isdir(DATA):
            return outputs
        for folder, dirs, files in os.walk(DATA):
            dirs[:] = [d for d in dirs if d not in _shipped(folder, dirs)]
            for name in files:
                if name not in _shipped(folder, [name]):
                    rel = os.path.relpath(os.path.join(folder, name), DATA)
                    outputs.append(os.path.join(self.build_lib, BUNDLED, rel))
        outputs.append(os.path.join(self.build_lib, PREBUILT))
        return outputs


def _prebuild(out: str) -> None:
    """Build the KB from data/ with this checkout's kb (which needs nothing beyond the standard
    library to build), in a child process so that no kb module stays imported here."""
    import subprocess
    import sys

    if os.path.exists(out):
        os.remove(out)
    env = {**os.environ, "KB_DATA_DIR": DATA, "PYTHONPATH": HERE}
    code = "import sys; from kb.store.build import write_prebuilt; write_prebuilt(sys.argv[1])"
    done = subprocess.run([sys.executable, "-c", code, out], env=env, cwd=HERE, capture_output=True, text=True)
    if done.returncode != 0 or not os.path.isfile(out):
        raise SystemExit(f"setup.py: building the prebuilt KB failed: {done.stderr.strip()[-2000:]}")


setup(cmdclass={"build_py": BuildWithData})
