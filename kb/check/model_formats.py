"""Recognise a model file by its content and open it without running code from it.

Model files are untrusted input. A `torch.save` file is a pickle, and unpickling runs
whatever callables the pickle names, so this module never unpickles one unless the user
passed `--trust`: it reads the pickle's opcodes with `pickletools` and lists the globals it
would import. An ExportedProgram archive is read from its JSON graph with meta tensors in
place of the weights (`torch.export.load` would unpickle parts of the archive and read
every weight). A TorchScript archive is code too (`torch.jit.load` compiles its code/*.py
and runs its `__setstate__` methods, which can write files): it is recognised and bounded
here, and loaded only with `--trust`, in a child process with a time and memory limit
(`kb.check.ts_child`), never in kb's own.

What comes out is a `ModelSource`: what the thing is and, for traceable kinds, enough to
trace it (see `kb.check.tracing`).
"""

from __future__ import annotations

import ast
import contextlib
import io
import logging
import os
import re
import zipfile
from dataclasses import dataclass, field
from typing import Any

from kb import userfiles
from kb.check import bounded_io as bio
from kb.check import trusted_pickle as tp
from kb.errors import KBError

# Kinds of model input.
EXPORTED_PROGRAM = "exported_program"
TORCHSCRIPT = "torchscript"
PICKLED_MODULE = "pickled_module"
STATE_DICT = "state_dict"
FACTORY = "factory"


class ModelInputError(KBError):
    """The model input cannot be read or is not a model (exit 2, one line)."""


class UntrustedPickleError(ModelInputError):
    """Reading the file would run code from it and the user did not pass --trust."""


class UnsafeContentError(ModelInputError):
    """The file holds something that would be evaluated as code on loading (refused always)."""


class NotTraceableError(ModelInputError):
    """The file is readable but holds no code to trace (a state_dict)."""


@dataclass
class ModelSource:
    """A recognised model input. `path` is the file; `attribute` names a factory function."""

    kind: str
    path: str
    attribute: str | None = None
    globals: list[str] = field(default_factory=list)  # what a pickle would import
    detail: str = ""
    trusted_modules: tuple[str, ...] = ()  # --trust-module: modules a pickle may name


# Globals a plain tensor checkpoint may name: the same spirit as torch's weights_only
# allowlist. A pickle naming only these is data.
_DATA_GLOBAL_PREFIXES = (
    "collections.OrderedDict",
    "torch._utils._rebuild_",
    "torch._tensor._rebuild_",
    "torch.serialization._get_layout",
    "torch.Size",
    "torch.device",
    "torch.nn.parameter.Parameter",
    "torch._utils._rebuild_parameter",
    "builtins.set",
    "__builtin__.set",
    "builtins.frozenset",
    "builtins.slice",
    "builtins.complex",
    "builtins.bytearray",
    "_codecs.encode",
    "numpy.core.multiarray._reconstruct",
    "numpy._core.multiarray._reconstruct",
    "numpy.dtype",
    "numpy.ndarray",
)
_DATA_GLOBAL_SUFFIXES = ("Storage",)  # torch.FloatStorage, torch.BFloat16Storage...
_DATA_DTYPE_MODULE = "torch"  # torch.float32 etc. appear as globals in some checkpoints
COMPUTED_GLOBAL = "?.?"  # a STACK_GLOBAL whose names are not literal strings
LEGACY_PICKLES = 5  # torch.load of a legacy file runs five: magic, protocol, sys info, object, storage keys


def _is_data_global(name: str) -> bool:
    if any(name.startswith(p) for p in _DATA_GLOBAL_PREFIXES):
        return True
    module, _, attr = name.rpartition(".")
    if module == "torch" and attr.endswith(_DATA_GLOBAL_SUFFIXES):
        return True
    if module == _DATA_DTYPE_MODULE and attr in _TORCH_DTYPE_NAMES:
        return True
    return False


_TORCH_DTYPE_NAMES = {
    "float16", "float32", "float64", "bfloat16", "half", "float", "double", "int8", "int16",
    "int32", "int64", "uint8", "bool", "complex64", "complex128", "long", "int", "short",
    "float8_e4m3fn", "float8_e5m2",
}


def pickle_globals(data: bytes | Any, max_pickles: int = LEGACY_PICKLES, what: str = "pickle") -> list[str]:
    """Every `module.name` the pickle(s) would import, in order, without unpickling them.

    `data` is bytes or a binary file positioned at the first pickle. Follows GLOBAL/INST
    (names inline) and STACK_GLOBAL (names pushed as strings, possibly through the memo;
    anything else is COMPUTED_GLOBAL). Legacy `torch.save` files are five pickles in a row
    followed by raw storage bytes, and torch.load runs all five, so up to `max_pickles` are
    read. Bounded in bytes, opcodes and nesting (kb.check.bounded_io); raises
    ModelInputError when the bytes do not start with a readable pickle.
    """
    stream = io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data
    walker, guard = _GlobalWalker(), bio.AllocationGuard(what)

    def on_op(opcode, arg) -> None:
        walker.on_op(opcode, arg)
        guard.on_op(opcode, arg)

    try:
        bio.scan_pickles(bio.BoundedStream(stream, bio.MAX_PICKLE_BYTES, what), what, max_pickles, on_op)
    except bio.BoundExceeded:
        raise
    except KBError as exc:
        raise ModelInputError(str(exc)) from None
    return walker.found


class _GlobalWalker:
    """Collects the globals of a stream of opcodes (see pickle_globals)."""

    _STRINGS = ("SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINSTRING", "BINSTRING", "STRING")

    def __init__(self) -> None:
        self.found: list[str] = []
        self.recent: list[Any] = []
        self.memo: dict[int, Any] = {}

    def on_op(self, opcode, arg) -> None:
        name, recent = opcode.name, self.recent
        if name == "STOP":
            # the next pickle of a legacy file starts with an empty memo; a PROTO in the middle
            # of one does not empty it (the unpickler keeps its memo), so neither may we
            self.memo.clear()
            recent.clear()
            return
        if name in ("EXT1", "EXT2", "EXT4"):  # a global named by copyreg's extension registry
            self.found.append(COMPUTED_GLOBAL)
            recent.append(None)
        elif name in ("GLOBAL", "INST"):
            module, _, attr = str(arg).partition(" ")
            self.found.append(f"{module}.{attr}")
            recent.append(None)
        elif name == "STACK_GLOBAL":
            attr = recent[-1] if recent else None
            module = recent[-2] if len(recent) > 1 else None
            ok = isinstance(module, str) and isinstance(attr, str)
            self.found.append(f"{module}.{attr}" if ok else COMPUTED_GLOBAL)
            recent.append(None)
        elif name in self._STRINGS:
            recent.append(arg)
        elif name == "MEMOIZE":
            self.memo[len(self.memo)] = recent[-1] if recent else None
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            self.memo[int(arg)] = recent[-1] if recent else None
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            recent.append(self.memo.get(int(arg)))
        elif name == "MARK" or name == "POP" or name == "POP_MARK":
            recent.append(None)
        else:
            recent.append(None)
        if len(recent) > 64:
            del recent[:-8]


def _looks_like_pickle(head: bytes) -> bool:
    # Protocol 2+ starts with PROTO (0x80) and the protocol number.
    return len(head) >= 2 and head[0] == 0x80 and 1 < head[1] <= 5


def _strip_root(path: str, names: list[str]) -> tuple[str, set[str]]:
    """torch archives put everything under one top folder; return it and the inner names.
    torch reads the records under the first entry's folder, so an archive with several
    top folders could show kb one data.pkl and torch another: refused."""
    roots = {n.split("/", 1)[0] for n in names if "/" in n}
    if len(roots) > 1:
        shown = ", ".join(sorted(roots)[:3])
        raise ModelInputError(f"{path}: a zip archive with several top folders ({shown}); torch archives have one")
    root = roots.pop() if roots else ""
    inner = {n.split("/", 1)[1] if root and n.startswith(root + "/") else n for n in names}
    return root, inner


def parse_factory_spec(spec: str) -> tuple[str, str] | None:
    """`path/to/model.py:build` → (path, "build") when the file exists; else None."""
    path, sep, attr = spec.rpartition(":")
    if not sep or not attr.isidentifier() or not path:
        return None
    if not os.path.exists(path):  # a device or FIFO named x.py:build is refused when read
        return None
    return path, attr


def detect(spec: str, *, trust: bool = False, trust_modules: tuple[str, ...] | list[str] = ()) -> ModelSource:
    """Say what `spec` is (by content, the way torch.load decides), refusing what cannot be
    opened safely. Every read is bounded (kb.check.bounded_io)."""
    trusted = tp.normalise_modules(trust_modules)
    trust = trust or bool(trusted)
    factory = parse_factory_spec(spec)
    if factory is not None and not os.path.exists(spec):
        path, attr = factory
        _check_python_source(path)
        return ModelSource(FACTORY, path, attribute=attr)
    if not os.path.lexists(spec):
        raise ModelInputError(f"{spec}: no such file (a factory is written path/to/model.py:function)")
    if os.path.isdir(spec):
        raise ModelInputError(f"{spec}: is a directory, not a model file")
    try:  # a regular file only (never a device or FIFO, nor a link to one), checked before opening
        with userfiles.open_file(spec, userfiles.MAX_MODEL_BYTES) as fh:
            size = os.fstat(fh.fileno()).st_size
            head = fh.read(8)
    except userfiles.FileRefused as exc:
        raise ModelInputError(str(exc)) from None
    except OSError as exc:
        raise ModelInputError(f"{spec}: cannot read ({exc.strerror})") from None
    if size == 0:
        raise ModelInputError(f"{spec}: empty file")
    try:
        source = _detect_file(spec, head, trust, trusted)
    except bio.BoundExceeded as exc:
        raise ModelInputError(str(exc)) from None
    except bio.DamagedInput as exc:
        raise ModelInputError(str(exc)) from None
    source.trusted_modules = trusted
    return source


def _detect_file(spec: str, head: bytes, trust: bool, trusted: tuple[str, ...]) -> ModelSource:
    import tarfile

    if _is_tar(spec, tarfile):  # torch.load tries the legacy tar format first
        raise ModelInputError(f"{spec}: a tar archive (PyTorch's pre-1.0 format); kb does not read it — re-save the model")
    if head.startswith(bio.ZIP_MAGIC):  # torch.load's own test: the zip signature at byte 0
        return _detect_zip(spec, trust, trusted)
    other_zip = zipfile.is_zipfile(spec)
    if _looks_like_pickle(head):
        if other_zip:
            raise UnsafeContentError(f"{spec}: a pickle followed by a zip archive (a polyglot): torch.load would run "
                                     "the pickle, not the archive — refusing it")
        with open(spec, "rb") as fh:
            found = pickle_globals(fh, LEGACY_PICKLES, what=spec)
        return _classify_pickle(spec, found, trust, trusted, legacy=True)
    if other_zip or head.startswith(b"PK"):
        raise ModelInputError(f"{spec}: a damaged zip archive, or one with data before it (not a PyTorch model)")
    if spec.endswith(".py"):
        raise ModelInputError(f"{spec}: a Python file; name the factory function too: {spec}:build")
    raise ModelInputError(f"{spec}: not a model file kb knows (ExportedProgram, TorchScript, torch.save pickle or model.py:factory)")


def _is_tar(path: str, tarfile) -> bool:
    try:
        return tarfile.is_tarfile(path)
    except Exception:
        return False


def _check_python_source(path: str) -> None:
    try:
        source = userfiles.read_bytes(path)
        compile(source, path, "exec")
    except userfiles.FileRefused as exc:
        raise ModelInputError(str(exc)) from None
    except (RecursionError, MemoryError):
        raise ModelInputError(f"{path}: Python nested too deep to compile (bound)") from None
    except SyntaxError as exc:
        raise ModelInputError(f"{path}:{exc.lineno}: not valid Python ({exc.msg})") from None
    except (OSError, ValueError) as exc:
        raise ModelInputError(f"{path}: not a readable Python file ({exc})") from None


def _detect_zip(path: str, trust: bool, trusted: tuple[str, ...]) -> ModelSource:
    with bio.open_zip(path) as archive:
        names = archive.namelist()
        root, inner = _strip_root(path, names)
        if any(n.startswith("models/") and n.endswith(".json") for n in inner) or "archive_format" in inner \
                or "serialized_exported_program.json" in inner:  # the flat archive torch <= 2.6 wrote
            for info in archive.infolist():  # the graph reader inflates these: bound them first
                if info.filename.endswith(".json"):
                    bio.check_member(archive, info.filename, bio.MAX_JSON_BYTES)
                elif not info.is_dir():
                    bio.check_member(archive, info.filename, limit=1 << 62)
            return ModelSource(EXPORTED_PROGRAM, path, detail=root)
        if any(n.startswith("code/") for n in inner) and "constants.pkl" in inner:
            _bound_members(archive)
            return ModelSource(TORCHSCRIPT, path, detail=root)
        if "data.pkl" in inner:
            member = f"{root}/data.pkl" if root else "data.pkl"
            data = bio.read_member(archive, member, bio.MAX_PICKLE_BYTES)
            found = pickle_globals(data, 1, what=f"{path}: {member}")
            return _classify_pickle(path, found, trust, trusted, legacy=False)
    raise ModelInputError(f"{path}: a zip archive but not a PyTorch model (no model graph, TorchScript code or data.pkl)")


def _bound_members(archive: zipfile.ZipFile) -> None:
    """A TorchScript archive's members within the bounds torch.jit.load would read them
    under: code and pickles at most MAX_PICKLE_BYTES, every member within the zip ratio
    (weights may be large, but not inflated 1000-fold from a small file)."""
    for info in archive.infolist():
        if info.is_dir():
            continue
        small = info.filename.endswith((".py", ".pkl", ".debug_pkl"))
        bio.check_member(archive, info.filename, bio.MAX_PICKLE_BYTES if small else 1 << 62)


def refuse_torchscript(source: ModelSource) -> None:
    """TorchScript without --trust: one line naming --trust and the torch.export route."""
    raise UntrustedPickleError(
        f"{source.path}: a TorchScript archive; loading it runs code from the file (its __setstate__ methods) — "
        "pass --trust if you trust its source (kb then loads it in a separate process with a time and memory "
        "limit), or save the model with torch.export.save and check the .pt2"
    )


def _classify_pickle(path: str, found: list[str], trust: bool, trusted: tuple[str, ...], *, legacy: bool) -> ModelSource:
    if COMPUTED_GLOBAL in found:
        raise UnsafeContentError(f"{path}: the pickle computes the name of something it imports at load time — "
                                 "refusing it, even with --trust")
    code_globals = [g for g in dict.fromkeys(found) if not _is_data_global(g)]
    if not code_globals:
        return _state_dict_source(path, found, legacy=legacy)
    if not trust:
        shown = ", ".join(code_globals[:3]) + (" …" if len(code_globals) > 3 else "")
        raise UntrustedPickleError(
            f"{path}: a pickled Python object ({shown}); loading it runs code from the file — "
            "pass --trust if you trust its source, or save the model with torch.export.save"
        )
    refused = [g for g in code_globals if not tp.allowed_global(g, trusted)]
    if refused:
        shown = ", ".join(refused[:3]) + (" …" if len(refused) > 3 else "")
        top = refused[0].split(".")[0]
        raise UntrustedPickleError(
            f"{path}: the pickle names {shown}, not on --trust's allow-list (torch, containers and the "
            f"modules given with --trust-module) — refusing it; if that is your own code, add --trust-module {top}"
        )
    return ModelSource(PICKLED_MODULE, path, globals=code_globals, detail="legacy" if legacy else "zip")


def _state_dict_source(path: str, found: list[str], *, legacy: bool) -> ModelSource:
    """Confirm a data-only pickle with torch's weights-only loader, then say it cannot be traced.
    A legacy file is not loaded (torch would read its raw storages whole): the scan said enough."""
    what = "weights only"
    if not legacy:
        what = _describe_state_dict(path)
    raise NotTraceableError(
        f"{path}: a state_dict ({what}) — weights without the model's code cannot be traced; "
        "check the factory that builds it instead (kb check model.py:build --input-shape 1x128:int64), "
        "or save the model with torch.export.save or torch.jit.save"
    )


def _describe_state_dict(path: str) -> str:
    import torch

    try:  # memory-mapped, on meta: a large checkpoint is recognised without reading it
        obj = torch.load(path, map_location="meta", weights_only=True, mmap=True)
        bio.check_depth(obj, path)
    except KBError:
        raise
    except Exception as exc:
        raise ModelInputError(f"{path}: a pickle of data only, but torch cannot read it ({type(exc).__name__})") from None
    tensors = _count_tensors(obj)
    example = _first_key(obj)
    return f"{tensors} tensors" + (f", e.g. {example}" if example else "")


def _count_tensors(obj: Any) -> int:
    """Tensors in nested dicts/lists (walked without recursion; depth checked before)."""
    import torch

    count, stack = 0, [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, torch.Tensor):
            count += 1
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return count


def _first_key(obj: Any) -> str | None:
    parts: list[str] = []
    while isinstance(obj, dict) and obj and len(parts) < 8:
        key, obj = next(iter(obj.items()))
        parts.append(str(key))
        if not isinstance(obj, dict):
            break
    return ".".join(parts) or None


# --- opening what `detect` recognised -------------------------------------------------


def load_exported_program(source: ModelSource, *, trust: bool = False):
    """The ExportedProgram's graph with meta tensors standing in for weights and constants.

    Reads `models/<name>.json` through torch's own deserializer and never unpickles: the
    archive's pickled members (tensor subclasses, custom objects, sample inputs) are only
    loaded with `--trust`, through `torch.export.load`.
    """
    import torch

    try:
        from torch._export.serde import schema
        from torch._export.serde.serialize import (
            ExportedProgramDeserializer,
            _dict_to_dataclass,
        )
        from torch.export.pt2_archive._package import PT2ArchiveReader
    except ImportError as exc:  # private modules: guard against torch moving them
        raise ModelInputError(f"this torch ({torch.__version__}) cannot read ExportedProgram archives here ({exc})") from None
    path = source.path
    try:
        with PT2ArchiveReader(path) as reader:
            names = reader.get_file_names()
            models = sorted(n for n in names if n.startswith("models/") and n.endswith(".json"))
            if not models:
                raise ModelInputError(f"{path}: an export archive without a model graph (legacy format? re-save with torch.export.save)")
            model_file = "models/model.json" if "models/model.json" in models else models[0]
            model_name = model_file[len("models/"):-len(".json")]
            document = bio.load_json(reader.read_bytes(model_file), f"{path}: {model_file}")
            check_expressions(document, path)
            serialized = _dict_to_dataclass(schema.ExportedProgram, document)
            weights, pickled_w = _meta_payload(reader, names, f"data/weights/{model_name}_weights_config.json")
            constants, pickled_c = _meta_payload(reader, names, f"data/constants/{model_name}_constants_config.json")
    except (bio.BoundExceeded, bio.DamagedInput) as exc:
        raise ModelInputError(str(exc)) from None
    except KBError:
        raise
    except Exception as exc:
        raise ModelInputError(f"{path}: unreadable ExportedProgram archive ({type(exc).__name__}: {_short(exc)})") from None
    pickled = pickled_w + pickled_c
    if pickled:
        if not trust:
            raise UntrustedPickleError(
                f"{path}: the archive holds pickled objects ({', '.join(pickled[:3])}); loading them runs code — pass --trust if you trust its source"
            )
        _refuse_unlisted_members(path, source.trusted_modules)
        try:
            with quiet_torch_logs():
                return torch.export.load(path)
        except Exception as exc:
            raise ModelInputError(f"{path}: torch.export.load failed ({type(exc).__name__}: {_short(exc)})") from None
    try:
        with quiet_torch_logs():
            return ExportedProgramDeserializer().deserialize(serialized, weights, constants, b"")
    except Exception as exc:
        raise ModelInputError(f"{path}: cannot rebuild the exported graph ({type(exc).__name__}: {_short(exc)})") from None


# Symbolic shapes are stored as formula strings that torch's deserializer hands to
# sympy.sympify, which evaluates them with Python's eval. Only plain formulas pass.
_FORMULA_NODES = (
    ast.Expression, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare, ast.Call, ast.Name,
    ast.Constant, ast.keyword, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop,
    ast.Tuple,
)
_LOWERCASE_FUNCTIONS = {"floor", "ceiling", "sqrt", "log", "exp", "sin", "cos", "tan", "tanh", "asin", "acos",
                        "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "sign", "trunc", "erf", "round"}
_REFUSED_NAMES = {"S", "Lambda", "Function", "Expr", "Basic"}
# The functions torch writes into shape formulas (sympy's and torch.utils._sympy.functions'),
# and nothing else: sympy has many constructors that compute hugely (RisingFactorial, Matrix,
# Poly, Float with a precision) or call what they are given.
_FORMULA_FUNCTIONS = {
    "Symbol", "Dummy", "Integer", "Rational", "Float", "Add", "Mul", "Pow", "Mod", "Abs", "Min", "Max",
    "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "LessThan", "StrictLessThan", "GreaterThan", "StrictGreaterThan",
    "And", "Or", "Not", "Piecewise", "ExprCondPair", "FloorDiv", "CeilDiv", "CleanDiv", "ModularIndexing", "Where",
    "PythonMod", "IntTrueDiv", "FloatTrueDiv", "LShift", "RShift", "IsNonOverlappingAndDenseIndicator",
    "TruncToFloat", "TruncToInt", "RoundToInt", "RoundDecimal", "ToFloat", "FloatPow", "PowByNatural", "IntPow",
    "Identity", "CeilToInt", "FloorToInt",
}
_FORMULA_FUNCTION_PREFIXES = ("OpaqueUnaryFn_", "BitwiseFn_")
_FORMULA_CONSTANTS = {"oo", "zoo", "nan", "pi", "E", "true", "false"}
_SYMBOL_NAME = re.compile(r"[a-z]{1,4}[0-9]{1,9}")  # s0, u12, ps3, zuf0: the symbols torch names
MAX_FORMULA_CHARS = 4096
MAX_FORMULA_ARGS = 64


def check_expressions(document: Any, path: str) -> None:
    """Refuse an exported graph whose shape formulas are anything but formulas."""
    stack = [document]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key == "expr_str" and isinstance(value, str):
                    if not is_plain_formula(value):
                        shown = value if len(value) <= 60 else value[:59] + "…"
                        raise UnsafeContentError(f"{path}: a shape expression in the graph is not a plain formula ({shown!r}) — refusing to evaluate it")
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


@contextlib.contextmanager
def quiet_torch_logs():
    """torch logs a traceback of its own before it raises on a bad archive; kb reports the
    failure in one line, so torch's loggers stay quiet while it reads one."""
    logger = logging.getLogger("torch")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def is_plain_formula(text: str) -> bool:
    """Numbers, symbol names, arithmetic and comparisons, and calls of sympy-style
    functions by bare name; `Symbol('s0', ...)` is the only place a string may appear."""
    if len(text) > MAX_FORMULA_CHARS:
        return False
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    symbol_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Symbol", "Dummy"):
            if node.args and isinstance(node.args[0], ast.Constant):
                symbol_names.add(id(node.args[0]))
    for node in ast.walk(tree):
        if not isinstance(node, _FORMULA_NODES):
            return False
        if isinstance(node, ast.Name) and (node.id.startswith("_") or node.id in _REFUSED_NAMES):
            return False
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                return False
            name = node.func.id
            if not (name in _FORMULA_FUNCTIONS or name in _LOWERCASE_FUNCTIONS
                    or name.startswith(_FORMULA_FUNCTION_PREFIXES)):
                return False
            if len(node.args) + len(node.keywords) > MAX_FORMULA_ARGS or (name == "Float" and len(node.args) > 1):
                return False  # Float's second argument is a precision in digits
        if isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)) and id(node) not in symbol_names:
            return False
        if isinstance(node, ast.Name) and not (_SYMBOL_NAME.fullmatch(node.id) or node.id in _FORMULA_CONSTANTS
                                               or node.id in _FORMULA_FUNCTIONS or node.id in _LOWERCASE_FUNCTIONS
                                               or node.id.startswith(_FORMULA_FUNCTION_PREFIXES)):
            return False  # a bare name is a symbol, a constant or a called function; never `print`
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and abs(node.value) > _MAX_FORMULA_INT:
            return False  # a shape is an int64; a longer literal is only there to cost time
        if not _bounded_power(node):
            return False
    return True


_MAX_FORMULA_INT = 2**64
_MAX_FORMULA_EXPONENT = 64
_POWER_FUNCTIONS = {"Pow", "PowByNatural", "FloatPow", "IntPow"}


def _bounded_power(node: ast.AST) -> bool:
    """A power in a shape formula has a small literal exponent and a base with no power in
    it: sympy works out an integer power exactly, so `9**9**10` would run for hours."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
        base, exponent = node.left, node.right
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _POWER_FUNCTIONS:
        if len(node.args) != 2 or node.keywords:
            return False
        base, exponent = node.args
    else:
        return True
    if isinstance(exponent, ast.Call) and isinstance(exponent.func, ast.Name) and exponent.func.id == "Integer" \
            and len(exponent.args) == 1:
        exponent = exponent.args[0]
    if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, (ast.USub, ast.UAdd)):
        exponent = exponent.operand
    if not (isinstance(exponent, ast.Constant) and isinstance(exponent.value, int)
            and abs(exponent.value) <= _MAX_FORMULA_EXPONENT):
        return False
    return not any(isinstance(inner, ast.BinOp) and isinstance(inner.op, ast.Pow)
                   or isinstance(inner, ast.Call) and isinstance(inner.func, ast.Name) and inner.func.id in _POWER_FUNCTIONS
                   for inner in ast.walk(base))


def _refuse_unlisted_members(path: str, trusted: tuple[str, ...]) -> None:
    """With --trust, refuse an archive whose pickled members name anything off the allow-list
    (kb.check.trusted_pickle): torch.export.load unpickles them with the plain unpickler."""
    try:
        with bio.open_zip(path) as archive:
            declared = _declared_pickles(archive)
            for name in archive.namelist():
                if "/data/" not in f"/{name}" or name.endswith(".json"):
                    continue
                # a member the config declares pickled is scanned whatever its first bytes (a
                # protocol 0 or 1 pickle starts with any opcode); others when they look like one
                is_declared = name.rsplit("/", 1)[-1] in declared
                head = archive.open(name).read(4)
                if not (is_declared or head.startswith(bio.ZIP_MAGIC) or _looks_like_pickle(head)):
                    continue  # raw tensor bytes: torch reads them as a buffer, never unpickles them
                payload = bio.read_member(archive, name, bio.MAX_PICKLE_BYTES)
                if payload.startswith(bio.ZIP_MAGIC):
                    with bio.open_zip(io.BytesIO(payload)) as inner:  # type: ignore[arg-type]
                        pickles = [bio.read_member(inner, n, bio.MAX_PICKLE_BYTES) for n in inner.namelist() if n.endswith(".pkl")]
                else:
                    pickles = [payload]
                for data in pickles:
                    found = pickle_globals(data, 1, what=f"{path}: {name}")
                    refused = sorted({g for g in found if g == COMPUTED_GLOBAL or not tp.allowed_global(g, trusted)})
                    if refused:
                        raise UntrustedPickleError(
                            f"{path}: {name} names {', '.join(refused[:3])}, not on --trust's allow-list — refusing to load it"
                        )
    except (bio.BoundExceeded, bio.DamagedInput) as exc:
        raise ModelInputError(str(exc)) from None


def _declared_pickles(archive) -> set[str]:
    """The member names (`path_name`) the archive's weights/constants configs mark as
    pickled: torch.export.load unpickles exactly those."""
    declared: set[str] = set()
    for name in archive.namelist():
        if "/data/" in f"/{name}" and name.endswith("_config.json"):
            config = bio.load_json(bio.read_member(archive, name, bio.MAX_PICKLE_BYTES), name)
            entries = config.get("config", {}) if isinstance(config, dict) else {}
            for entry in entries.values() if isinstance(entries, dict) else ():
                if isinstance(entry, dict) and (entry.get("use_pickle") or entry.get("tensor_meta") is None):
                    declared.add(str(entry.get("path_name", "")).rsplit("/", 1)[-1])
    return declared


def _meta_payload(reader, names, config_file: str) -> tuple[dict, list[str]]:
    """Meta tensors shaped like the archive's weights or constants, and the pickled ones' names."""

    import torch
    from torch._export.serde.serialize import (
        _SERIALIZE_TO_TORCH_DTYPE,
        deserialize_size,
        deserialize_stride,
    )

    if config_file not in names:
        return {}, []
    config = bio.load_json(reader.read_bytes(config_file), config_file)
    config = config.get("config", {}) if isinstance(config, dict) else {}
    out: dict[str, Any] = {}
    pickled: list[str] = []
    for fqn, payload in config.items():
        meta = payload.get("tensor_meta")
        if payload.get("use_pickle") or meta is None:
            pickled.append(fqn)
            continue
        from torch._export.serde.schema import TensorMeta
        from torch._export.serde.serialize import _dict_to_dataclass

        tm = _dict_to_dataclass(TensorMeta, meta)
        tensor = torch.empty_strided(
            deserialize_size(tm.sizes), deserialize_stride(tm.strides),
            dtype=_SERIALIZE_TO_TORCH_DTYPE[tm.dtype], device="meta",
        )
        out[fqn] = torch.nn.Parameter(tensor, requires_grad=tm.requires_grad) if payload.get("is_param") else tensor
    return out, pickled


def load_pickled_module(source: ModelSource, map_location: str = "meta"):
    """Unpickle an nn.Module, only with --trust, and only through the allow-list unpickler
    (kb.check.trusted_pickle): torch.load is handed it as its pickle module, so every
    pickle torch.load runs — all five of a legacy file — resolves globals through it."""
    import torch

    restricted = tp.pickle_module(source.trusted_modules)
    try:
        obj = torch.load(source.path, map_location=map_location, weights_only=False, pickle_module=restricted)
    except tp.NotAllowedGlobal as exc:
        raise UntrustedPickleError(f"{source.path}: {exc} — refusing it") from None
    except Exception as exc:
        obj = _plain_pickle(source.path, exc, restricted)
    if not isinstance(obj, torch.nn.Module):
        raise ModelInputError(f"{source.path}: the pickle holds a {type(obj).__name__}, not an nn.Module")
    return obj


def _plain_pickle(path: str, torch_error: BaseException, restricted):
    """A pickle written by `pickle.dump` rather than `torch.save` (still the allow-list)."""
    try:
        with open(path, "rb") as fh:
            return restricted.load(bio.BoundedStream(fh, bio.MAX_PICKLE_BYTES, path))
    except tp.NotAllowedGlobal as exc:
        raise UntrustedPickleError(f"{path}: {exc} — refusing it") from None
    except Exception:
        raise ModelInputError(f"{path}: loading the pickle failed ({type(torch_error).__name__}: {_short(torch_error)})") from None


def load_factory(source: ModelSource):
    """Import the factory's file and return its function (running the user's own code)."""
    import importlib.util
    import sys

    path, attr = source.path, source.attribute or "build"
    module_name = "_kb_factory_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ModelInputError(f"{path}: cannot import")
    module = importlib.util.module_from_spec(spec)
    folder = os.path.dirname(os.path.abspath(path))
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)  # let the factory import its neighbours
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        raise ModelInputError(f"{path}: importing it raised {type(exc).__name__}: {_short(exc)}") from None
    finally:
        if added:
            sys.path.remove(folder)
    function = getattr(module, attr, None)
    if not callable(function):
        raise ModelInputError(f"{path}: has no function {attr!r}")
    return function


def _short(exc: BaseException, limit: int = 160) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
