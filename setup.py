"""Build hook: the wheel carries the repository's `data/` as `kb/_data`.

`data/` stays the one source of truth in git (scripts and reviews write there); a built wheel
gets a copy inside the package, where kb.paths.shipped_data_dir looks first. Editable installs
copy nothing and keep reading the checkout's `data/`. Everything else is in pyproject.toml.
"""

from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
BUNDLED = os.path.join("kb", "_data")


def _shipped(folder: str, names: list[str]) -> list[str]:
    """What not to copy: caches and hidden files that may lie in a working copy."""
    return [n for n in names if n.startswith(".") or n == "__pycache__" or n.endswith((".pyc", ".sqlite", ".db"))]


class BuildWithData(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not os.path.isdir(DATA):
            raise SystemExit(f"setup.py: {DATA} is missing; the wheel would carry no knowledge")
        target = os.path.join(self.build_lib, BUNDLED)
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(DATA, target, ignore=_shipped)

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
        return outputs


setup(cmdclass={"build_py": BuildWithData})
