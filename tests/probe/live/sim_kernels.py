"""Test-only sim kernels, loaded in each live-probe worker with `--setup`: an op that
kills its process, one that hangs, and one that computes a wrong result."""

import os
import time

import torch

from kb.probe import sim

sim.load()
_lib = torch.library.Library("aten", "IMPL")


def _abort(*args, **kwargs):
    os.abort()


def _hang(*args, **kwargs):
    time.sleep(float(os.environ.get("KB_TEST_HANG_SECONDS", "60")))
    raise RuntimeError("woke up")


_lib.impl("cos", _abort, "PrivateUse1")
_lib.impl("tan", _hang, "PrivateUse1")
sim.install_drifting_kernel("aten::exp", 0.01)
