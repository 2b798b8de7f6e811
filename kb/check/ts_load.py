"""The child side of kb.check.ts_child: load one trusted TorchScript archive on the meta
device and write its CallSites to a result file. Run only as `python -m kb.check.ts_load`
by the parent, which set its time and memory limits and sent its stdout to /dev/null."""

from __future__ import annotations

import json
import sys

from kb.check.callsites import TensorSpec
from kb.check.ts_child import CHILD_MARK, encode
from kb.errors import KBError


def _child(path: str, shapes: str, result: str) -> None:
    import warnings

    warnings.simplefilter("ignore")
    import torch

    from kb.check import tracing

    specs = [TensorSpec(tuple(shape) if shape is not None else None, dtype) for shape, dtype in json.loads(shapes)]
    try:
        module = torch.jit.load(path, map_location="meta")
    except Exception as exc:
        text = " ".join(str(exc).split())
        if "can't allocate memory" in text or "DefaultCPUAllocator" in text:
            print(f"{CHILD_MARK}loading the TorchScript archive ran out of memory (limit: KB_TRUST_MEMORY_MB)", file=sys.stderr)
            raise SystemExit(3) from None
        text = text[:200]
        print(f"{CHILD_MARK}unreadable TorchScript archive ({type(exc).__name__}: {text})", file=sys.stderr)
        raise SystemExit(3) from None
    sites, shaped = tracing.sites_from_torchscript(module, tracing.meta_inputs(specs) if specs else None)
    document = {"shaped": shaped, "sites": [
        {"index": s.index, "op": s.op, "args": encode(s.args), "kwargs": encode(s.kwargs),
         "outputs": encode(s.outputs), "module_path": s.module_path, "module_type": s.module_type}
        for s in sites]}
    with open(result, "w", encoding="utf-8") as fh:
        json.dump(document, fh)


if __name__ == "__main__":
    try:
        _child(*sys.argv[1:4])
    except KBError as exc:
        print(f"{CHILD_MARK}{exc}", file=sys.stderr)
        raise SystemExit(3) from None
    except MemoryError:
        print(f"{CHILD_MARK}out of memory (KB_TRUST_MEMORY_MB)", file=sys.stderr)
        raise SystemExit(3) from None
