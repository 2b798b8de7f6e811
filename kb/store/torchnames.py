"""Torch names → the ATen ops they dispatch, from the shipped traced maps (no torch import).

Two maps ship per torch release, each generated once by importing torch and committed as
data: data/functions/torch-X.json (kb.chat.function_map: torch.*, torch.nn.functional.*,
Tensor methods) and data/modules/torch-X.json (kb.probe.module_map: torch.nn layers, with
the constructor arguments and input shapes used and the forward / training ops). This is
the one reader and resolver every face shares (`kb op`, the web op page, `kb ask`, MCP):
a name → its kind (module or function), canonical name, ATen ops and the map it came from.

Spellings: `nn.Linear`, `torch.nn.Linear`, `torch.nn.modules.linear.Linear`, `Linear` (a bare
class name, exact case: `linear` stays the ATen op), a call (`nn.Linear(16, 8)`); and
`F.gelu`, `nn.functional.gelu`, `torch.nn.functional.gelu`, `torch.gelu`, `Tensor.view`.
The map files are bounded and type-checked on reading: KB_DATA_DIR may name anyone's folder.
"""

from __future__ import annotations

import json
import os
import re
from functools import lru_cache

from kb import paths

TYPE_CHECKING = False  # typing/dataclasses stay unimported: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

# torch.nn classes that hold other modules or are abstract bases: no forward of their own to trace
# (kb.probe.module_map leaves them out; a question about one is told so).
NOT_LAYERS = frozenset({"Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
                        "ParameterDict", "DataParallel", "RNNBase", "RNNCellBase"})
MAX_MAP_BYTES = 16 * 1024 * 1024  # the shipped maps are ~60-200 KB
MAX_NAME = 200
_FUNCTION_PREFIXES = (("torch.nn.functional.", "torch.nn.functional."), ("nn.functional.", "torch.nn.functional."),
                      ("F.", "torch.nn.functional."), ("torch.Tensor.", "torch.Tensor."), ("Tensor.", "torch.Tensor."),
                      ("torch.", "torch."))
_MODULE_PREFIX = re.compile(r"^(?:torch\.nn\.modules\.[a-z_0-9]+\.|torch\.nn\.|nn\.)")
_CALL = re.compile(r"\s*\(.*\)\s*$", re.S)


class TorchName:
    """What a torch name stands for. `ops` is what a backend sees: for a module, its forward
    in eval mode (`entry` has the training lists, constructor and inputs). A plain class, not
    a dataclass: importing dataclasses (inspect, ast…) costs a plain `kb op` a tenth of its start."""

    __slots__ = ("kind", "asked", "canonical", "ops", "map_file", "torch_version", "entry")

    def __init__(self, kind: str, asked: str, canonical: str, ops: tuple[str, ...], map_file: str,
                 torch_version: str, entry: dict[str, Any] | None = None) -> None:
        self.kind = kind  # "module" | "function"
        self.asked = asked
        self.canonical = canonical  # torch.nn.Linear, torch.nn.functional.gelu
        self.ops = tuple(ops)
        self.map_file = map_file  # relative to the data folder: modules/torch-2.13.0.json
        self.torch_version = torch_version
        self.entry = entry if entry is not None else {}

    def _key(self) -> tuple:
        return (self.kind, self.asked, self.canonical, self.ops, self.map_file, self.torch_version)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TorchName) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"TorchName(kind={self.kind!r}, canonical={self.canonical!r}, ops={self.ops!r})"

    def training_ops(self) -> list[str]:
        """The training step's ops (train-mode forward, then backward), each once."""
        if self.kind != "module":
            return list(self.ops)
        forward = self.entry.get("train_forward", self.entry.get("forward", []))
        return list(dict.fromkeys([*forward, *self.entry.get("backward", [])]))

    def traced_as(self) -> str:
        """One line: how the ops were found (constructor, inputs, device, map)."""
        if self.kind != "module":
            return f"{self.canonical} dispatches to these ATen ops (traced: {self.map_file})"
        e = self.entry
        return (f"{self.canonical} is a module: {e.get('constructor', '?')} on {', '.join(e.get('inputs', []))} "
                f"({e.get('device', 'meta')} tensors, eval mode, torch {self.torch_version}; {self.map_file})")


def _newest(kind: str) -> str | None:
    """Path of the newest map of `kind` (functions | modules): the data folder, else the shipped one."""
    from kb.store.queries import version_key

    for root in dict.fromkeys((paths.data_dir(), paths.shipped_data_dir())):
        folder = os.path.join(root, kind)
        if not os.path.isdir(folder):
            continue
        files = sorted((f for f in os.listdir(folder) if f.startswith("torch-") and f.endswith(".json")),
                       key=lambda f: version_key(f[len("torch-"):-len(".json")]))
        if files:
            return os.path.join(folder, files[-1])
    return None


def _ops_list(value: Any) -> list[str] | None:
    if not isinstance(value, list) or not all(isinstance(v, str) and len(v) <= MAX_NAME for v in value):
        return None
    return value


@lru_cache(maxsize=8)
def _read(path: str, stamp: tuple[float, int]) -> tuple[dict[str, Any], str]:
    """(entries, torch version) of one map file; entries that are not the right shape are left out."""
    del stamp  # (mtime, size): part of the cache key only, so a regenerated map is read again
    with open(path, "rb") as fh:
        raw = fh.read(MAX_MAP_BYTES + 1)
    if len(raw) > MAX_MAP_BYTES:
        return {}, ""
    try:
        doc = json.loads(raw)
    except ValueError:
        return {}, ""
    if not isinstance(doc, dict):
        return {}, ""
    version = doc.get("torch_version") if isinstance(doc.get("torch_version"), str) else ""
    out: dict[str, Any] = {}
    if isinstance(doc.get("functions"), dict):
        for name, ops in doc["functions"].items():
            if isinstance(name, str) and _ops_list(ops) is not None:
                out[name] = ops
    if isinstance(doc.get("modules"), dict):
        for name, entry in doc["modules"].items():
            if not (isinstance(name, str) and isinstance(entry, dict) and _ops_list(entry.get("forward")) is not None):
                continue
            clean = {k: entry[k] for k in ("forward", "train_forward", "backward") if _ops_list(entry.get(k)) is not None}
            clean.update({k: entry[k] for k in ("constructor", "device") if isinstance(entry.get(k), str)})
            if isinstance(entry.get("inputs"), list):
                clean["inputs"] = [str(i) for i in entry["inputs"]]
            clean["guessed"] = entry.get("guessed") is True
            out[name] = clean
    return out, version


def load(kind: str) -> tuple[dict[str, Any], str | None, str]:
    """(entries, map file relative to its data folder, torch version) of the newest map of `kind`."""
    path = _newest(kind)
    if path is None:
        return {}, None, ""
    info = os.stat(path)
    entries, version = _read(path, (info.st_mtime, info.st_size))
    return entries, f"{kind}/{os.path.basename(path)}", version


def function_map() -> tuple[dict[str, list[str]], str | None]:
    """torch function → the ATen ops it dispatches to, and the map file."""
    entries, where, _ = load("functions")
    return entries, where


def module_names() -> list[str]:
    return sorted(load("modules")[0])


def _plain(text: str) -> str:
    return _CALL.sub("", (text or "").strip()[:MAX_NAME]).strip()


def resolve_module(text: str) -> TorchName | None:
    """A module spelling → its entry; None when it names no module of the map."""
    name = _plain(text)
    if not name or name.startswith(("nn.functional.", "torch.nn.functional.")):
        return None
    modules, where, version = load("modules")
    if not modules:
        return None
    qualified = _MODULE_PREFIX.match(name)
    rest = name[qualified.end():] if qualified else name
    if not rest or "." in rest:
        return None
    key = "torch.nn." + rest
    if key not in modules and qualified:  # nn.multiheadattention: the one class it can mean
        close = [k for k in modules if k.lower() == key.lower()]
        key = close[0] if len(close) == 1 else key
    if key not in modules:
        return None
    entry = modules[key]
    return TorchName("module", text, key, tuple(entry["forward"]), where or "", version, entry)


def function_key(text: str) -> str | None:
    """F.silu / nn.functional.silu / Tensor.view / torch.nonzero → the function map's spelling."""
    name = _plain(text)
    for prefix, canonical in _FUNCTION_PREFIXES:
        if name.startswith(prefix):
            return canonical + name[len(prefix):]
    return None


def resolve_function(text: str) -> TorchName | None:
    key = function_key(text)
    if key is None:
        return None
    functions, where, version = load("functions")
    ops = functions.get(key)
    return TorchName("function", text, key, tuple(ops), where or "", version) if ops else None


def resolve(text: str) -> TorchName | None:
    """Any torch spelling: a module first (nn.Linear is no function), else a function."""
    return resolve_module(text) or resolve_function(text)


def search(text: str, limit: int = 20) -> list[str]:
    """Module names containing `text` (case-insensitive), for search boxes and MCP search."""
    needle = _plain(text).lower().removeprefix("torch.").removeprefix("nn.")
    if not needle:
        return []
    return [m for m in module_names() if needle in m.lower()[len("torch.nn."):]][:limit]


def looks_like_module(text: str) -> bool:
    """`nn.X` / `torch.nn.X` (not nn.functional): meant as a module, even when none matches."""
    name = _plain(text)
    match = _MODULE_PREFIX.match(name)
    return bool(match) and not name.startswith(("nn.functional.", "torch.nn.functional.")) \
        and "." not in name[match.end():]


def close_modules(text: str, limit: int = 3) -> list[str]:
    """Module names close to a misspelt one (nn.MultiHeadAttention → torch.nn.MultiheadAttention)."""
    import difflib

    name = _plain(text)
    match = _MODULE_PREFIX.match(name)
    rest = (name[match.end():] if match else name).lower()
    by_lower = {m[len("torch.nn."):].lower(): m for m in module_names()}
    return [by_lower[c] for c in difflib.get_close_matches(rest, list(by_lower), n=limit, cutoff=0.6)]


def container_of(text: str) -> str | None:
    """`nn.Sequential`, `torch.nn.ModuleList`...: the class name when TEXT names a container or base."""
    name = _plain(text)
    match = _MODULE_PREFIX.match(name)
    rest = name[match.end():] if match else ""
    return rest if rest in NOT_LAYERS else None
