"""Hostile inputs for issue 24's model-file and bounded-reader promises, written on demand.

Each function writes one case into `folder` and returns its path. They are small on disk
and aim at one promise each: code that runs on loading (TorchScript `__setstate__`), a
few bytes that ask for gigabytes, paths that are not files (devices, FIFOs, symlinks to
them), counts and nesting taken from a file. Payloads only touch `marker`, a file the
tests assert never appears. The TorchScript cases need torch to be written.
"""

from __future__ import annotations

import io
import json
import os
import struct
import zipfile

# --- TorchScript archives whose __setstate__ does something on loading ----------------

_SETSTATE = {
    # writes `marker` through aten::from_file (shared=True creates and maps the file)
    "marker": ("t = torch.from_file({marker!r}, True, 4, dtype=torch.uint8)\n"
               "        self.training = bool(t.fill_(65).sum() > 0)"),
    "print": "print('{{\"not\": \"kb json\"}}')\n        self.training = state[1]",
    "loop": "i = 0\n        while i >= 0:\n            i = i + 1\n        self.training = i > 0",
    "allocate": "self.w = torch.ones(1 << 33, dtype=torch.uint8)\n        self.training = state[1]",
}


def torchscript_case(folder, kind: str, marker: str = "") -> str:
    """A scripted module whose __setstate__ (run by torch.jit.load) does `kind`."""
    import textwrap
    import warnings

    import torch

    body = _SETSTATE[kind].format(marker=marker)
    source = textwrap.dedent("""
        import torch
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = torch.ones(2)
            def forward(self, x):
                return torch.relu(x + self.w)
            @torch.jit.export
            def __getstate__(self):
                return (self.w, self.training)
            @torch.jit.export
            def __setstate__(self, state: tuple[torch.Tensor, bool]):
                self.w = state[0]
                {body}
        """).replace("{body}", body)
    path = os.path.join(str(folder), f"ts_{kind}.pt")
    namespace: dict = {}
    script = os.path.join(str(folder), f"_ts_{kind}_src.py")
    with open(script, "w", encoding="utf-8") as fh:  # TorchScript needs the source on disk
        fh.write(source)
    code = compile(source, script, "exec")
    exec(code, namespace)  # noqa: S102 - our own test source, written just above
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = namespace["M"]()
        # scripting runs __setstate__ once on a copy for the marker case: do it without the marker
        scripted = torch.jit.script(module)
        scripted.save(path)
    if marker and os.path.exists(marker):
        os.remove(marker)
    return path


def torchscript_bomb(folder, base: str, inflated: int = 256 << 20) -> str:
    """`base` (a TorchScript archive) with constants.pkl replaced by a pickled string that
    inflates to `inflated` bytes (deflated about 1000-fold)."""
    path = os.path.join(str(folder), "ts_bomb.pt")
    with zipfile.ZipFile(base) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            if info.filename.endswith("/constants.pkl"):
                bomb = zipfile.ZipInfo(info.filename)
                bomb.compress_type = zipfile.ZIP_DEFLATED
                with out.open(bomb, "w", force_zip64=True) as member:
                    member.write(b"\x80\x02X" + struct.pack("<I", inflated))
                    chunk = b"a" * (1 << 20)
                    for _ in range(inflated >> 20):
                        member.write(chunk)
                    member.write(b"\x85q\x00.")
            else:
                out.writestr(info, src.read(info.filename))
    return path


def _deflated(out: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    out.writestr(info, data)


# --- pickles: a few bytes that ask for gigabytes -------------------------------------


def bytearray_checkpoint(folder, size: int = 1_600_000_000) -> str:
    """A torch.save-style zip whose data.pkl is `bytearray(size)`: a global torch's
    weights-only unpickler allows, and an int argument that allocates `size` bytes."""
    path = os.path.join(str(folder), "bytearray.pt")
    pickle_bytes = b"\x80\x02cbuiltins\nbytearray\nJ" + struct.pack("<i", size) + b"\x85R."
    with zipfile.ZipFile(path, "w") as out:
        out.writestr("archive/data.pkl", pickle_bytes)
        out.writestr("archive/byteorder", b"little")
        out.writestr("archive/version", b"3\n")
    return path


# --- paths that are not files --------------------------------------------------------


def fifo(folder, name: str = "fifo.jsonl") -> str:
    path = os.path.join(str(folder), name)
    os.mkfifo(path)
    return path


def link_to(folder, target: str, name: str) -> str:
    path = os.path.join(str(folder), name)
    os.symlink(target, path)
    return path


# --- probe reports -------------------------------------------------------------------


def _run(**params) -> dict:
    return {"record": "probe_run", "run_id": "hostile", "kind": "live", "target": "sim", "backend": "sim",
            "backend_version": "0", "torch_version": "2.13.0", "python_version": "3.11", "host": "h",
            "started_at": "2026-01-01T00:00:00+00:00", "params": params}


def billion_shards(folder) -> str:
    """A shard report (one short line) claiming to be shard 1 of a billion."""
    record = _run(shard={"index": 1, "count": 1_000_000_000, "plan_sha256": "0" * 8, "tasks_total": 1},
                  journal={"header": {}, "tasks": []})
    return _write(folder, "shard-0.jsonl", (json.dumps(record) + "\n").encode())


def long_record(folder, size: int = 40 << 20) -> str:
    """One JSONL record of `size` bytes (a note that never ends)."""
    head, tail = json.dumps(_run()).split('"h"', 1)
    with open(os.path.join(str(folder), "long.jsonl"), "wb") as fh:
        fh.write(head.encode() + b'"')
        fh.write(b"h" * size)
        fh.write(b'"' + tail.encode() + b"\n")
    return fh.name


def deep_record(folder, depth: int = 100_000) -> str:
    """One JSONL line nested `depth` lists deep."""
    return _write(folder, "deep.jsonl", b'{"record": "probe_run", "params": ' + b"[" * depth + b"]" * depth + b"}\n")


def many_lines(folder, lines: int) -> str:
    return _write(folder, "lines.jsonl", b"\n" * 0 + b" \n" * lines)


# --- repositories for kb audit -------------------------------------------------------


def deep_notebook(folder, depth: int = 100_000) -> str:
    return _write(folder, "deep.ipynb", b'{"cells": ' + b"[" * depth + b"]" * depth + b"}")


def deep_pyproject(folder, depth: int = 100_000) -> str:
    return _write(folder, "pyproject.toml", b"[project]\ndependencies = " + b"[" * depth + b"]" * depth + b"\n")


def nested_folders(folder, depth: int = 1_100) -> str:
    """`depth` folders one inside the other, a Python file at the bottom."""
    os.makedirs(str(folder), exist_ok=True)
    path = str(folder)
    for _ in range(depth):  # os.makedirs recurses once per level
        path = os.path.join(path, "d")
        os.mkdir(path)
    with open(os.path.join(path, "x.py"), "w", encoding="utf-8") as fh:
        fh.write("import torch\nx = torch.zeros(1).cuda()\n")
    return str(folder)


def _write(folder, name: str, data: bytes) -> str:
    path = os.path.join(str(folder), name)
    with open(path, "wb") as fh:
        fh.write(data)
    return path


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in members.items():
            _deflated(out, name, data)
    return buffer.getvalue()


# --- running kb in a child, with its peak memory -------------------------------------

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Runs kb in a grandchild and prints (rc, peak RSS in KiB of everything it waited for) as
# JSON on the pipe named by argv[1], so each run's peak is its own (RUSAGE_CHILDREN only ever grows).
_WRAPPER = """
import json, os, resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "cli.entry", *sys.argv[2:]], stdin=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
os.write(int(sys.argv[1]), json.dumps([done.returncode, peak]).encode())
"""


def run_kb(*args, env: dict | None = None, timeout: float = 120, cwd: str | None = None) -> dict:
    """`kb ARGS` in a fresh process: {code, out, err, rss_mib, seconds}. A run past `timeout`
    fails the calling test (pytest.fail) after the process group is killed."""
    import subprocess
    import sys
    import time

    import pytest

    read, write = os.pipe()
    full = {**os.environ, "PYTHONPATH": REPO, **(env or {})}
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", _WRAPPER, str(write), *map(str, args)], cwd=cwd or REPO, env=full,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(write,),
                            start_new_session=True)
    os.close(write)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        proc.communicate()
        os.close(read)
        pytest.fail(f"kb {' '.join(map(str, args))} still running after {timeout} s")
    with os.fdopen(read, "rb") as fh:
        code, peak = json.loads(fh.read() or b"[-1, 0]")
    return {"code": code, "out": out.decode("utf-8", "replace"), "err": err.decode("utf-8", "replace"),
            "rss_mib": peak / 1024, "seconds": time.monotonic() - started}


def one_line_error(result: dict) -> str:
    """The single stderr line of a run that must fail with exit 2 (and no traceback)."""
    lines = [line for line in result["err"].splitlines() if line.strip() and not line.startswith("kb: building")]
    assert result["code"] == 2, result
    assert "Traceback" not in result["err"] and "unexpected" not in result["err"], result["err"]
    assert len(lines) == 1 and lines[0].startswith("kb: error: "), result["err"]
    return lines[0]


def remove_tree(root: str) -> None:
    """Delete a tree of any depth (shutil.rmtree recurses once per level; pytest's clean-up
    of tmp folders would fail on nested_folders)."""
    for folder, dirs, files in _deep_walk(root):
        for name in files:
            os.unlink(os.path.join(folder, name))
        for name in dirs:
            os.rmdir(os.path.join(folder, name))


def _deep_walk(root: str):
    """Bottom-up walk without recursion (links listed as files, never entered)."""
    order, stack = [], [root]
    while stack:
        folder = stack.pop()
        entries = list(os.scandir(folder))
        dirs = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
        order.append((folder, dirs, [e.name for e in entries if not e.is_dir(follow_symlinks=False)]))
        stack.extend(os.path.join(folder, d) for d in dirs)
    return reversed(order)
