"""Rebuild data/gallery (dev only: `pip install -e '.[torch,gallery]'`).

    python tools/gallery_build.py [--only SLUG ...] [--timeout 900] [--out data/gallery]

Each model is built in its own child process (a crash or a runaway export costs one model,
and its memory goes back) on the meta device at its published size, exported with
torch.export (forward; for the entries marked train also a training step: a forward whose
first output is a scalar loss, then torch's joint forward+backward export), saved as a
`.pt2`, and read back by kb's own `.pt2` reader (kb.gallery.census): the census is what
`kb check` would list for that export. A model that does not export is kept with the
exporter's one-line reason. Results merge into the shipped files as each model finishes, so a
cut run keeps what it did.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO)]

MODELS_FILE = "models.jsonl"
CENSUS_FILE = "census.jsonl"


def _short(exc: BaseException, limit: int = 200) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"{type(exc).__name__}: {text[:limit]}" + ("…" if len(text) > limit else "")


def failure_reason(exc: BaseException) -> str:
    """Why a graph did not export. A device mismatch against the meta device is this builder's
    limit (the model is built on meta, a tensor it makes in forward lands on the CPU), not the
    model's nor torch.export's: say so, so that nobody reads it as the model failing (t30 #13)."""
    text = _short(exc)
    if "(meta)" in text and "cpu" in text.lower() and "device" in text.lower():
        return ("gallery build on the meta device: a tensor the model creates during forward lands on the CPU "
                "beside meta parameters, which this build cannot trace (not a limit of the model or of "
                "torch.export on a real device) — " + text)
    return "torch.export: " + text


def _declare_torchvision_ops(torch) -> None:
    """torchvision's wheel may not load beside a CPU torch build: declare its two op schemas
    so that transformers/timm can import it (shared/design/ENVIRONMENT.md)."""
    try:
        lib = torch.library.Library("torchvision", "DEF")
        lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _declare_torchvision_ops.lib = lib
    except Exception:
        pass


def _construct(entry: dict, torch):
    lib, cls = entry["lib"], entry["cls"]
    config = dict(entry["config"])
    if lib == "transformers":
        import transformers

        config_cls = getattr(transformers, entry["config_cls"])
        model_cls = getattr(transformers, cls)
        cfg = config_cls(**config)
        if hasattr(cfg, "use_cache"):
            cfg.use_cache = False
        return model_cls(cfg)
    if lib == "timm":
        import importlib

        module_name, _, name = cls.rpartition(".")
        module = importlib.import_module(module_name)
        if "block" in config:
            config["block"] = getattr(module, config["block"])
        return getattr(module, name)(**config)
    if lib == "diffusers":
        import diffusers

        return getattr(diffusers, cls.split(".", 1)[1])(**config)
    raise ValueError(f"unknown library {lib}")


def _tensors(out, torch) -> list:
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = tuple(out.values())
    if isinstance(out, (tuple, list)):
        return [t for item in out for t in _tensors(item, torch)]
    return []


def _first_tensor(out, torch):
    if isinstance(out, torch.Tensor):
        return out
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = tuple(out.values())
    for item in out:
        found = _first_tensor(item, torch) if not isinstance(item, torch.Tensor) else item
        if found is not None:
            return found
    return None


def _wrap(model, names, torch, loss: bool):
    class Forward(torch.nn.Module):
        """Calls the model with named inputs and returns its first tensor (or a scalar loss)."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *tensors):
            kwargs = dict(zip(names, tensors))
            out = self.model(**kwargs) if names[0] != "_positional" else self.model(*tensors)
            if loss:  # every floating output, so that every parameter gets a gradient
                return (sum(t.float().mean() for t in _tensors(out, torch) if t.is_floating_point()),)
            return _first_tensor(out, torch)

    return Forward()


def _untie(wrapped, torch) -> int:
    """Tied weights (an LM head sharing the embedding) are one parameter under two names; the
    joint export lists both and finds one without a gradient. For the training step each name
    gets its own (meta) copy: the same ops, one more weight gradient (counted in the entry)."""
    seen: set[int] = set()
    untied = 0
    for name, param in list(wrapped.named_parameters(remove_duplicate=False)):
        if id(param) in seen:
            owner_name, _, attr = name.rpartition(".")
            owner = wrapped.get_submodule(owner_name) if owner_name else wrapped
            setattr(owner, attr, torch.nn.Parameter(param.detach().clone(), requires_grad=param.requires_grad))
            untied += 1
        seen.add(id(param))
    return untied


def _freeze_unreached(wrapped, inputs, torch) -> int:
    """Parameters the training step's loss never reaches (a pooler nobody reads, an embedding
    used only under masking) get no gradient, and the joint export refuses those: one backward
    on meta finds them, and they are frozen (counted in the gallery entry)."""
    for p in wrapped.parameters():
        p.grad = None
    try:
        wrapped(*inputs)[0].backward()
    except Exception:  # an eager step that cannot run on meta (an .item() on a mask): leave it to export
        return 0
    unreached = [p for p in wrapped.parameters() if p.requires_grad and p.grad is None]
    for p in wrapped.parameters():
        p.grad = None
    for p in unreached:
        p.requires_grad_(False)
    return len(unreached)


def build_one(slug: str, workdir: str) -> dict:
    """Build, export and census one model (runs in the child)."""
    import torch

    _declare_torchvision_ops(torch)
    import gallery_models

    from kb.gallery import census as gc

    entry = gallery_models.BY_SLUG[slug]
    result = {"slug": slug, "census": [], "graphs": {}}
    started = time.monotonic()
    try:
        with torch.device("meta"):
            model = _construct(entry, torch)
        result["parameters"] = sum(p.numel() for p in model.parameters())
    except Exception as exc:
        result["graphs"]["inference"] = {"status": "not built", "reason": "building the model: " + _short(exc)}
        return result
    names = [name for name, _, _ in entry["inputs"]]
    if entry["lib"] == "timm":
        names = ["_positional"]
    dtypes = {"int64": torch.int64, "float32": torch.float32}
    inputs = tuple(torch.zeros(shape, dtype=dtypes[dtype], device="meta") for _, shape, dtype in entry["inputs"])
    graphs = [("inference", False)] + ([("training", True)] if entry["train"] else [])
    for graph, train in graphs:
        t0 = time.monotonic()
        try:
            model.train(train)
            if train:  # batch statistics without running-stat buffers: the joint export takes no buffer updates
                for module in model.modules():
                    if isinstance(module, torch.nn.modules.batchnorm._BatchNorm):
                        module.track_running_stats = False
                        module.running_mean = module.running_var = module.num_batches_tracked = None
            wrapped = _wrap(model, names, torch, loss=train)
            untied = _untie(wrapped, torch) if train else 0
            frozen = _freeze_unreached(wrapped, inputs, torch) if train else 0
            program = torch.export.export(wrapped, inputs, strict=False)
            if train:
                from torch.export.experimental import _export_forward_backward

                program = _export_forward_backward(program.run_decompositions())
            path = os.path.join(workdir, f"{slug}-{graph}.pt2")
            torch.export.save(program, path)
            rows = gc.census_from_archive(path, slug, graph)
            result["census"].extend(rows)
            result["graphs"][graph] = {"status": "exported", "calls": sum(r["calls"] for r in rows),
                                       "ops": len({r["op"] for r in rows}), "seconds": round(time.monotonic() - t0, 1)}
            if frozen:
                result["graphs"][graph]["frozen_parameters"] = frozen
            if untied:
                result["graphs"][graph]["untied_parameters"] = untied
            os.unlink(path)
        except Exception as exc:
            result["graphs"][graph] = {"status": "failed", "reason": failure_reason(exc),
                                       "seconds": round(time.monotonic() - t0, 1)}
    result["seconds"] = round(time.monotonic() - started, 1)
    return result


def versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for name in ("torch", "transformers", "timm", "diffusers"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            pass
    return out


def model_row(entry: dict, result: dict, libs: dict) -> dict:
    inputs = [{"name": n, "shape": list(s), "dtype": d} for n, s, d in entry["inputs"]]
    built = {"torch": libs.get("torch"), entry["lib"]: libs.get(entry["lib"])}
    return {"model": entry["slug"], "name": entry["name"], "family": entry["family"], "library": entry["lib"],
            "architecture": entry["cls"], "config": entry["config"], "config_source": entry["source"],
            "inputs": inputs, "parameters": result.get("parameters"), "graphs": result["graphs"],
            "built_with": built, "build_seconds": result.get("seconds"),
            **({"note": entry["note"]} if entry.get("note") else {})}


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _write(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows))
    tmp.replace(path)


def merge(out: Path, entry: dict, result: dict, libs: dict) -> None:
    """Replace the model's lines in the shipped files (sorted, so a diff shows what changed)."""
    from kb.gallery import census as gc

    models = [r for r in _read(out / MODELS_FILE) if r["model"] != entry["slug"]] + [model_row(entry, result, libs)]
    census = [r for r in _read(out / CENSUS_FILE) if r["model"] != entry["slug"]] + result["census"]
    _write(out / MODELS_FILE, sorted(models, key=lambda r: r["model"]))
    _write(out / CENSUS_FILE, sorted(census, key=gc.sort_key))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="slugs to (re)build; default: every model not yet built")
    parser.add_argument("--all", action="store_true", help="rebuild every model")
    parser.add_argument("--timeout", type=float, default=900, help="seconds per model")
    parser.add_argument("--out", default=str(REPO / "data" / "gallery"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--result", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        with tempfile.TemporaryDirectory() as workdir:
            result = build_one(args.child, workdir)
        Path(args.result).write_text(json.dumps(result))
        return 0
    import gallery_models

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    done = {r["model"] for r in _read(out / MODELS_FILE)}
    todo = [m for m in gallery_models.MODELS
            if (args.only and m["slug"] in args.only) or (not args.only and (args.all or m["slug"] not in done))]
    libs = versions()
    for entry in todo:
        started = time.monotonic()
        with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
            result_path = fh.name
        try:
            proc = subprocess.run([sys.executable, __file__, "--child", entry["slug"], "--result", result_path],
                                  timeout=args.timeout, capture_output=True, text=True)
            if proc.returncode == 0:
                result = json.loads(Path(result_path).read_text())
            else:
                last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                result = {"graphs": {"inference": {"status": "not built",
                                                   "reason": f"builder exited {proc.returncode}: {last[:200]}"}},
                          "census": []}
        except subprocess.TimeoutExpired:
            result = {"graphs": {"inference": {"status": "not built",
                                               "reason": f"export did not finish within {args.timeout:.0f} s"}},
                      "census": []}
        finally:
            os.unlink(result_path)
        result.setdefault("seconds", round(time.monotonic() - started, 1))
        merge(out, entry, result, libs)
        states = ", ".join(f"{g}: {v['status']}" for g, v in result["graphs"].items())
        print(f"{entry['slug']}: {states} ({time.monotonic() - started:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
