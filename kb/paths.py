"""Where kb keeps its files: the shipped data, the KB file, caches.

The default KB path is computed without importing platformdirs on Linux because this
runs on every plain query, whose start-up time is budgeted (see bench/cold_start.py).
"""

from __future__ import annotations

import os
import sys

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def data_dir() -> str:
    """The shipped knowledge (`data/` in the repository); KB_DATA_DIR overrides it."""
    return os.environ.get("KB_DATA_DIR") or os.path.join(PACKAGE_ROOT, "data")


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
