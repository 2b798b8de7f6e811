"""Who served a call on the device: the backend's own kernel, a composite kernel, or the
backend's boxed CPU fallback.

Each detector is asked around one dispatched call (`before(name)` then
`after(name, token)`) and answers (status, ops that fell back inside the call). The
backend's own report comes first where it has one:

* ``sim``: kb.probe.sim's per-op fallback counters (what its boxed fallback actually ran);
* ``neuron``: ``torch_neuronx.get_fallback_ops()`` and the warnings it emits;
* any other backend (``tpu``, an unknown PrivateUse1 name, cpu, meta, cuda): the
  dispatcher's computed table for the backend's key — an overload whose entry is the
  ``[backend fallback]`` ran through the boxed fallback (it did not raise, so the
  fallback ran it on the host), a ``[default backend kernel]`` or ``[math kernel]``
  decomposed into other ops, anything else is the backend's own kernel.
"""

from __future__ import annotations

from typing import Any

from kb.probe.dispatch import BACKEND_FALLBACK, DEFAULT_BACKEND, MATH, parse_line

ENTRY_STATUS = {BACKEND_FALLBACK: "fallback", DEFAULT_BACKEND: "decomposed", MATH: "decomposed"}


class DispatchTableDetector:
    """Generic: what the dispatcher's table says `key` resolves to for the overload."""

    name = "dispatch_table"

    def __init__(self, key: str):
        self.key = key
        self._cache: dict[str, str | None] = {}

    def entry(self, op: str) -> str | None:
        if op not in self._cache:
            self._cache[op] = dispatch_entry(op, self.key)
        return self._cache[op]

    def before(self, op: str) -> Any:
        return None

    def after(self, op: str, token: Any) -> tuple[str, list[str]]:
        return ENTRY_STATUS.get(self.entry(op), "native"), []


def dispatch_entry(op: str, key: str) -> str | None:
    """The computed dispatch-table label of `key` for overload `op` ("kernel", "backend
    fallback"...), or None when nothing is registered for it."""
    import torch

    text = torch._C._dispatch_dump_table(op)
    prefix = key + ": "
    for line in text.splitlines():
        if line.startswith(prefix):
            return parse_line(line)[0]
    return None


class SimDetector(DispatchTableDetector):
    """kb.probe.sim: its fallback counters say exactly which ops its boxed fallback ran."""

    name = "sim_counters"

    def __init__(self):
        super().__init__("PrivateUse1")
        from kb.probe import sim

        self.counts = sim.fallback_counts

    def before(self, op: str) -> Any:
        return dict(self.counts)

    def after(self, op: str, token: Any) -> tuple[str, list[str]]:
        grew = sorted(name for name, n in self.counts.items() if n > token.get(name, 0))
        if op in grew:
            return "fallback", [name for name in grew if name != op]
        status, _ = super().after(op, token)
        return ("native" if status == "fallback" else status), grew


class NeuronDetector(DispatchTableDetector):
    """torch_neuronx: the ops its trackers report as run on the CPU, plus fallback warnings.

    Its trackers (`get_fallback_ops()`, `get_executed_ops()`) are process-wide sets that
    record a name only the first time it is seen, so they are cleared
    (`clear_op_tracking()`) before each call; names come as `aten::name.overload` or as a
    short op name, and both are matched."""

    name = "torch_neuronx.get_fallback_ops"

    def __init__(self, module=None):
        super().__init__("PrivateUse1")
        if module is None:
            import torch_neuronx as module  # the backend is loaded by then
        self.module = module

    def _names(self, getter: str) -> set[str]:
        found = getattr(self.module, getter, None)
        return {str(name) for name in (found() or ())} if found is not None else set()

    def before(self, op: str) -> Any:
        import warnings

        clear = getattr(self.module, "clear_op_tracking", None)
        if clear is not None:
            clear()
        seen = set() if clear is not None else self._names("get_fallback_ops")
        catcher = warnings.catch_warnings(record=True)
        caught = catcher.__enter__()
        warnings.simplefilter("always")
        return seen, catcher, caught

    def after(self, op: str, token: Any) -> tuple[str, list[str]]:
        seen, catcher, caught = token
        catcher.__exit__(None, None, None)
        fell = sorted(self._names("get_fallback_ops") - seen)
        warned = any("fallback" in str(w.message).lower() or "fall back" in str(w.message).lower() for w in caught)
        mine = [name for name in fell if same_op(name, op)]
        others = sorted({normalize(name) for name in fell if not same_op(name, op)})
        if mine or (warned and not fell):
            return "fallback", others
        status, _ = super().after(op, token)
        if status == "fallback" and any(same_op(name, op) for name in self._names("get_executed_ops")):
            status = "native"  # the tracker saw it run on the device
        return status, others


def same_op(reported: str, op: str) -> bool:
    """Whether a backend's name for an op (`aten::add.Tensor`, `add`) names overload `op`."""
    name = normalize(reported)
    if name == op:
        return True
    short = reported.strip()
    return "." not in short.split("::")[-1] and name.split(".")[0] == op.split(".")[0]


def normalize(name: str) -> str:
    """A backend's op name (`aten.add.Tensor`, `add.Tensor`, `aten::add.Tensor`) in kb's spelling."""
    from kb.opnames import OpNameError, canonical

    try:
        return canonical(str(name))
    except OpNameError:
        return str(name)


def for_device(device_type: str, dispatch_key: str, generic: bool = False):
    """The detector for a device: the backend's own report where it has one (unless
    `generic`), else the dispatch table of its key."""
    if not generic and device_type == "sim":
        return SimDetector()
    if not generic and device_type == "neuron":
        return NeuronDetector()
    return DispatchTableDetector(dispatch_key)
