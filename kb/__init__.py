"""kb: which ATen operators run natively, decompose, fall back to the CPU or fail on
Trainium (TorchNeuron) and TPU (TorchTPU), with the evidence behind every verdict.

Import submodules directly (`kb.store.queries`, `kb.store.ingest`...): this package imports nothing
heavy so that plain queries start fast.
"""

__version__ = "0.1.0"
# The name on the package index (`pip install torch-accel-kb`); "kb" there is an unrelated project.
DIST_NAME = "torch-accel-kb"
