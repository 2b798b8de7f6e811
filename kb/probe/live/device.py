"""The device a live-probe worker runs ops on: load its backend (exactly one, chosen by
kb.probe.backends), apply the backend's switches, pick the fallback detector, and say
which versions the results hold for."""

from __future__ import annotations

from typing import Any

DEVICE_BACKENDS = {"sim": "sim", "cpu": "cpu", "meta": "meta", "cuda": "cuda", "neuron": "torch_neuronx",
                   "tpu": "torch_tpu"}


class Device:
    """The loaded device: its torch device, dispatch key, detector and versions."""

    def __init__(self, name: str, generic_detector: bool = False, options: dict[str, Any] | None = None):
        import importlib.util

        import torch

        from kb.errors import KBError
        from kb.probe.backends import get_backend
        from kb.probe.live import detect

        self.name = name
        spec = get_backend(DEVICE_BACKENDS[name]) if name in DEVICE_BACKENDS else None
        if spec is not None:
            if spec.needs is not None and spec.needs(torch):
                raise KBError(spec.needs(torch))
            if spec.activate is not None:
                spec.activate()
            elif spec.module is not None:
                if importlib.util.find_spec(spec.module) is None:
                    raise KBError(f"its backend package {spec.module} is not installed in this Python")
                __import__(spec.module)
            key = spec.dispatch_key
        else:  # any other PrivateUse1 backend: let torch's entry-point autoload find it
            torch._import_device_backends()
            key = "PrivateUse1"
        self.spec = spec
        self.key = key
        current = torch._C._get_privateuse1_backend_name()
        if key == "PrivateUse1" and current != name:
            if spec is not None:
                raise KBError(f"{spec.module} was imported but registered no device named {name!r} (PrivateUse1 "
                              f"is {current!r}): is there a {name} device on this machine?")
            raise KBError(f"no installed backend registers a device named {name!r} "
                          f"(known: {', '.join(DEVICE_BACKENDS)})")
        self.device = torch.device(name)
        # Reading the policy also applies the backend's switches (torch_tpu's CPU fallback).
        self.policy = spec.read_policy(options or {}) if spec is not None else None
        if name == "cuda":  # compare true float32 results, not TensorFloat-32 ones
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        self.detector = detect.for_device(name, key, generic=generic_detector)
        self.has_data = name != "meta"

    def info(self) -> dict[str, Any]:
        import platform
        import socket

        import torch

        from kb.probe._child import _backend_version, public_version

        version = _backend_version(self.spec, torch) if self.spec is not None else _distribution_version(self.name)
        described = str(self.device)
        if self.name == "cuda":
            described = torch.cuda.get_device_name(0)
        return {
            "versions": self.versions(),
            "device": self.name, "device_description": described, "dispatch_key": self.key,
            "backend": self.spec.name if self.spec else self.name, "backend_version": version,
            "torch_version": public_version(torch.__version__), "torch_build": torch.__version__,
            "python_version": platform.python_version(), "host": socket.gethostname(),
            "detector": self.detector.name, "fallback_policy": self.policy,
        }


    def versions(self) -> dict[str, str]:
        """Versions beyond the backend's own that explain a result: companion packages
        (libtpu...), and for CUDA the toolkit torch was built with and the driver."""
        import importlib.metadata

        import torch

        found: dict[str, str] = {}
        for name in (self.spec.companions if self.spec is not None else ()):
            try:
                found[name] = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                continue
        if self.name == "cuda":
            found["cuda"] = str(torch.version.cuda)
            driver = getattr(torch._C, "_cuda_getDriverVersion", None)
            if driver is not None:
                found["cuda_driver"] = str(driver())
        return found


def _distribution_version(name: str) -> str:
    import importlib.metadata

    for dist in (f"torch_{name}", f"torch-{name}"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return "unknown"
