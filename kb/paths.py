"""Where kb keeps its files: the shipped data, the KB file, caches.

The default KB path is computed without importing platformdirs on Linux because this
runs on every plain query, whose start-up time is budgeted (see bench/cold_start.py).
"""

from __future__ import annotations

import os
import sys

# The folder that holds the `kb` package: the checkout, or site-packages once installed. The probe
# puts it on a child's PYTHONPATH; it is not where the data is looked up first.
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Where a wheel carries the repository's data/ (copied there at build time by setup.py). Looked
# up inside the installed package, never next to it: site-packages/data may belong to anyone.
BUNDLED_DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_data")
# The KB a wheel carries, built from that data/ at build time (setup.py, kb.store.build.write_prebuilt):
# a first use copies it instead of building (kb.store.build.install_prebuilt).
PREBUILT_KB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_prebuilt", "kb.sqlite")


def shipped_data_dir() -> str:
    """The knowledge that ships with kb: `kb/_data` in an installed wheel, else the checkout's `data/`
    (source tree, editable install). Not overridable: Datasette's metadata and the like live here."""
    if os.path.isdir(BUNDLED_DATA_DIR):
        return BUNDLED_DATA_DIR
    return os.path.join(PACKAGE_ROOT, "data")


def data_dir() -> str:
    """The records the KB is built from: the shipped data unless KB_DATA_DIR names another folder."""
    return os.environ.get("KB_DATA_DIR") or shipped_data_dir()


def cache_dir() -> str:
    """Per-user cache folder for kb (KB file, op catalogs, HTTP cache)."""
    override = os.environ.get("KB_CACHE_DIR")
    if override:
        return override
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        return os.path.join(base, "kb")
    import platformdirs

    return platformdirs.user_cache_dir("kb")


def default_db_path() -> str:
    """The KB file: `--db` beats `KB_DB` beats the user cache folder."""
    return os.environ.get("KB_DB") or os.path.join(cache_dir(), "kb.sqlite")
