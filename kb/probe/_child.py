"""The static probe's child process: load exactly one backend, read its dispatch key's
column of the dispatch table, write the raw result as JSON to the file named by --out.

Why a child: installed backends load themselves when torch is imported (entry-point
autoload), a backend claims PrivateUse1 for the life of the process, and a backend's
import can abort the interpreter. The parent sets TORCH_DEVICE_BACKEND_AUTOLOAD=0 and
reads only the --out file, so a backend printing to stdout cannot corrupt the result.

Exit codes: 0 ok; 3 a reported failure (the JSON has "error" and "message").
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import socket
import sys
import time
from typing import Any, NoReturn

os.environ["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"  # before torch is imported, always


def _write(path: str, data: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as out:
        json.dump(data, out)


def _fail(path: str, kind: str, message: str) -> NoReturn:
    _write(path, {"error": kind, "message": message})
    sys.exit(3)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def public_version(version: str) -> str:
    """"2.13.0+cpu" -> "2.13.0": the release, without the local build tag."""
    return version.split("+", 1)[0]


def _backend_version(spec, torch) -> str:
    if spec.module is None:
        return public_version(torch.__version__)
    if spec.name == "sim":
        import kb

        return kb.__version__
    try:
        return importlib.metadata.version(spec.distribution or spec.module)
    except importlib.metadata.PackageNotFoundError:
        version = getattr(sys.modules.get(spec.module), "__version__", None)
        return str(version) if version else "unknown"


def probe(spec, out: str, options: dict[str, Any]) -> None:
    import torch

    from kb.probe.dispatch import BACKEND_FALLBACK, read_table

    if spec.needs is not None:
        why = spec.needs(torch)
        if why:
            _fail(out, "not_installed", why)
    try:
        if spec.activate is not None:
            spec.activate()
        elif spec.module is not None:
            if importlib.util.find_spec(spec.module) is None:
                _fail(out, "not_installed", f"{spec.module} is not installed here "
                      "(if it is installed elsewhere, pass --python-path DIR or set KB_PROBE_PYTHONPATH)")
            importlib.import_module(spec.module)
    except SystemExit:
        raise
    except BaseException as exc:  # a backend's import may raise anything
        _fail(out, "import_failed", f"importing {spec.module} failed: {_first_line(exc)}")
    try:
        policy = spec.read_policy(options)
        started = time.perf_counter()
        entries = read_table(torch, spec.dispatch_key)
    except Exception as exc:  # e.g. a torch whose private dispatcher API changed
        _fail(out, "probe_failed", f"reading the {spec.dispatch_key} dispatch table failed under torch "
              f"{torch.__version__}: {_first_line(exc)}")
    rows = []
    for e in entries:
        per_op = spec.per_op_action(e.op) if spec.per_op_action and e.entry == BACKEND_FALLBACK else None
        rows.append([e.op, e.entry, e.registered_at, per_op])
    companions = {}
    for name in spec.companions:
        try:
            companions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    _write(out, {
        "backend": spec.name,
        "companions": companions,
        "backend_version": _backend_version(spec, torch),
        "torch_version": public_version(torch.__version__),
        "torch_build": torch.__version__,
        "python_version": platform.python_version(),
        "host": socket.gethostname(),
        "dispatch_key": spec.dispatch_key,
        "privateuse1_name": torch._C._get_privateuse1_backend_name(),
        "policy": policy,
        "entries": rows,
        "read_seconds": round(time.perf_counter() - started, 4),
    })


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m kb.probe._child")
    parser.add_argument("--backend", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--options", default="{}", help="JSON object of backend options")
    args = parser.parse_args(argv)
    from kb.probe.backends import get_backend

    probe(get_backend(args.backend), args.out, json.loads(args.options))


if __name__ == "__main__":
    main()
