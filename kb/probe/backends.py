"""The backends a probe knows: which package to import, which dispatch key to read, and
what the backend's boxed fallback does in each mode (its *fallback policy*).

The policy is what turns a ``[backend fallback]`` dispatch entry into a verdict:
``"cpu"`` (the fallback runs the op on the host: *fallback*), ``"raise"`` (it errors:
*unsupported*) or ``"per-op"`` (the backend decides op by op; the probe asks it). Facts
behind each policy are in the ``source`` field, restated from the vendors' documents.

Policy readers run in the probe's child process, after the backend is imported, so they
report the switches as the installed package has them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kb.errors import KBError


class ProbeError(KBError):
    """A probe that cannot run (bad backend, missing package, crashing import...)."""


class UnknownBackendError(ProbeError):
    def __init__(self, name: str):
        super().__init__(f"unknown backend {name!r} (known: {', '.join(sorted(BACKENDS))})")


class BackendNotInstalledError(ProbeError):
    """The backend's package is not importable from the probe's Python path."""


class BackendImportError(ProbeError):
    """Importing the backend raised or killed the probe process."""


TPU_POLICY_URL = "https://github.com/google-pytorch/torch_tpu"
NEURON_POLICY_URL = "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/torch/about-pytorch-neuron.html"


@dataclass(frozen=True)
class Backend:
    """One probe-able backend."""

    name: str  # what users pass to --backend
    target: str  # kb target name the verdicts are filed under
    dispatch_key: str  # the key whose column of the dispatch table is read
    module: str | None = None  # package imported in the child (None: built into torch)
    distribution: str | None = None  # distribution whose version is the backend version
    modes: tuple[str, ...] = ("eager",)
    read_policy: Callable[[dict[str, Any]], dict[str, Any]] = field(default=lambda options: {"eager": "raise"})
    per_op_action: Callable[[str], str] | None = None  # for "per-op" policies (runs in the child)
    needs: Callable[[Any], str | None] | None = None  # torch -> why this torch cannot serve the key, or None
    options: tuple[str, ...] = ()  # option names this backend accepts (e.g. "cpu_fallback")
    activate: Callable[[], None] | None = None  # registers the backend (default: import `module`)
    companions: tuple[str, ...] = ()  # other distributions whose versions the run records (e.g. libtpu)


def _tpu_policy(options: dict[str, Any]) -> dict[str, Any]:
    """TorchTPU's fallback checks a process-wide switch, off by default."""
    switch = None
    try:
        from torch_tpu._internal import execution_mode

        if options.get("cpu_fallback") is not None:
            execution_mode.enable_cpu_fallback = bool(options["cpu_fallback"])
        switch = bool(execution_mode.enable_cpu_fallback)
    except Exception:  # a private module: report what we could not read
        switch = options.get("cpu_fallback")
    return {
        "eager": "cpu" if switch else "raise",
        "compile": "raise",
        "enable_cpu_fallback": switch,
        "switch": "torch_tpu execution_mode.enable_cpu_fallback",
        "note": "an op without a TPU kernel runs on the CPU only when the switch is on, else it raises; "
        "compile mode is assumed not to reach the eager CPU fallback",
        "source": TPU_POLICY_URL,
    }


def _neuron_policy(options: dict[str, Any]) -> dict[str, Any]:
    """TorchNeuron (2.33): eager falls back to the CPU with a warning; compile fails."""
    return {
        "eager": "cpu",
        "compile": "raise",
        "fallback_only_for_unimplemented_ops": os.environ.get("TORCH_NEURONX_FALLBACK_ONLY_FOR_UNIMPLEMENTED_OPS"),
        "note": "eager: an operator without a Neuron kernel falls back to the CPU (listed by "
        "torch_neuronx.get_fallback_ops()); compile: an op that cannot be lowered fails compilation",
        "source": NEURON_POLICY_URL,
    }


def _sim_load() -> None:
    from kb.probe import sim

    sim.load()


def _sim_policy(options: dict[str, Any]) -> dict[str, Any]:
    from kb.probe import sim

    return {"eager": "per-op", "compile": "raise", "note": sim.POLICY["note"], "source": "kb.probe.sim"}


def _sim_action(op: str) -> str:
    from kb.probe import sim

    return sim.fallback_action(op)


def _builtin_policy(options: dict[str, Any]) -> dict[str, Any]:
    return {"eager": "raise", "note": "PyTorch's own fallback on this key (if any) raises"}


def _xla_policy(options: dict[str, Any]) -> dict[str, Any]:
    return {"eager": "cpu", "note": "PyTorch/XLA runs ops without an XLA lowering on the CPU"}


def _needs_cuda(torch) -> str | None:
    return None if torch.backends.cuda.is_built() else f"torch {torch.__version__} is built without CUDA"


BACKENDS: dict[str, Backend] = {
    b.name: b
    for b in (
        Backend("torch_tpu", "tpu", "PrivateUse1", "torch_tpu", "torch_tpu", ("eager", "compile"),
                _tpu_policy, options=("cpu_fallback",), companions=("libtpu",)),
        Backend("torch_neuronx", "neuron", "PrivateUse1", "torch_neuronx", "torch-neuronx", ("eager", "compile"),
                _neuron_policy, companions=("neuronx-cc", "libneuronxla")),
        Backend("sim", "sim", "PrivateUse1", "kb.probe.sim", None, ("eager", "compile"), _sim_policy, _sim_action,
                activate=_sim_load),
        Backend("cpu", "cpu", "CPU", read_policy=_builtin_policy),
        Backend("meta", "meta", "Meta", read_policy=_builtin_policy),
        Backend("cuda", "cuda", "CUDA", read_policy=_builtin_policy, needs=_needs_cuda),
        Backend("xla", "xla", "XLA", "torch_xla", "torch_xla", read_policy=_xla_policy),
    )
}


def get_backend(name: str) -> Backend:
    try:
        return BACKENDS[name]
    except KeyError:
        raise UnknownBackendError(name) from None


def action_for(policy: dict[str, Any], mode: str, per_op: str | None) -> str:
    """What the boxed fallback does with one op in `mode`: "cpu" or "raise"."""
    action = policy.get(mode, "raise")
    if action == "per-op":
        return per_op or "raise"
    return action if action in ("cpu", "raise") else "raise"


ENTRY_STATUS = {"kernel": "native", "math kernel": "decomposed", "default backend kernel": "decomposed"}


def status_for(entry: str | None, mode: str, policy: dict[str, Any], per_op: str | None = None) -> str:
    """The verdict for one dispatch entry: own kernel → native, composite → decomposed,
    boxed fallback → fallback or unsupported per the policy; nothing, a fallthrough or a
    default kernel that only raises → unsupported."""
    if entry in ENTRY_STATUS:
        return ENTRY_STATUS[entry]
    if entry == "backend fallback":
        return "fallback" if action_for(policy, mode, per_op) == "cpu" else "unsupported"
    return "unsupported"
