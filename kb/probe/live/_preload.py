"""Imported once by the live probe's forkserver, before it forks any worker: torch and
the OpInfo database (so a worker starts, or restarts after a crash, in a fork rather
than a 5-second import), then `gc.freeze()`, so the garbage collector of each forked
worker leaves those objects alone instead of copying every page it touches."""

import gc

try:
    import torch  # noqa: F401

    from kb.probe.live.opinfos import OPINFO_MODULE

    __import__(OPINFO_MODULE)
except Exception:  # the worker imports it again and reports the failure clearly
    pass
import kb.probe.live.worker  # noqa: E402, F401

gc.collect()
gc.freeze()
