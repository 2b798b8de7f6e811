"""Hostile model files, written on demand (issue 16): each function writes one case into
`folder` and returns its path. Payloads only ever touch `marker`, a file the tests
assert never appears."""

from __future__ import annotations

import io
import pickle
import struct
import zipfile


def _payload_pickle(marker: str, protocol: int = 2) -> bytes:
    """A pickle whose loading would create `marker` through os.system."""
    return (b"\x80" + bytes([protocol]) + b"cos\nsystem\n" + pickle.dumps(f"touch {marker}", protocol=2)[2:-1]
            + b"\x85R.")


# An nn.Identity, pickled the way torch.save pickles a module class (NEWOBJ, no state).
_MODULE_PICKLE = b"\x80\x02ctorch.nn.modules.linear\nIdentity\n)\x81."


def commands_check_call(folder, marker: str) -> str:
    """Protocol 2, `commands check_call` (the Python 2 name of subprocess)."""
    body = pickle.dumps(["touch", marker], protocol=2)[2:-1]
    data = b"\x80\x02ccommands\ncheck_call\n" + body + b"\x85R."
    return _write(folder, "commands.pt", data)


def cprofile_run(folder, marker: str) -> str:
    code = f"open({marker!r}, 'w').close()"
    data = b"\x80\x02ccProfile\nrun\n" + pickle.dumps(code, protocol=2)[2:-1] + b"\x85R."
    return _write(folder, "cprofile.pt", data)


def pydoc_pipepager(folder, marker: str) -> str:
    text = pickle.dumps("x", protocol=2)[2:-1]
    cmd = pickle.dumps(f"touch {marker}", protocol=2)[2:-1]
    data = b"\x80\x02cpydoc\npipepager\n" + text + cmd + b"\x86R."
    return _write(folder, "pydoc.pt", data)


def computed_global(folder, marker: str) -> str:
    """STACK_GLOBAL whose module name is the result of a call (builtins.str('os'))."""
    inner = b"\x8c\x08builtins\x8c\x03str\x93" + b"\x8c\x02os\x85R"  # str('os') → 'os'
    data = b"\x80\x04" + inner + b"\x8c\x06system\x93" + b"\x8c" + bytes([len(f"touch {marker}")]) \
        + f"touch {marker}".encode() + b"\x85R."
    return _write(folder, "computed.pt", data)


def legacy_fifth_pickle(folder, marker: str) -> str:
    """A legacy torch.save layout (magic, protocol, sys info, object, storage keys) whose
    fifth pickle, the storage keys, is the payload."""
    parts = [pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2), pickle.dumps(1001, protocol=2),
             pickle.dumps({"protocol_version": 1001, "little_endian": True}, protocol=2),
             _MODULE_PICKLE, _payload_pickle(marker)]
    return _write(folder, "legacy5.pt", b"".join(parts))


def polyglot(folder, marker: str) -> str:
    """A malicious pickle followed by a zip whose data.pkl is harmless."""
    zbuf = io.BytesIO()
    with zipfile.ZipFile(zbuf, "w") as zf:
        zf.writestr("archive/data.pkl", _MODULE_PICKLE)
    return _write(folder, "polyglot.pt", _payload_pickle(marker) + zbuf.getvalue())


def zip_bomb_json(folder, inflated: int = 1 << 30) -> str:
    """A .pt2-like archive whose models/model.json inflates to `inflated` bytes."""
    return _zip_with(folder, "bomb.pt2", "archive/models/model.json", b" " * 0, inflated, fill=b" ")


def zip_bomb_pickle(folder, inflated: int = 1 << 30) -> str:
    """A torch zip whose data.pkl is `inflated` bytes of NONE opcodes."""
    return _zip_with(folder, "bomb.pt", "archive/data.pkl", b"\x80\x02", inflated, fill=b"N")


def _zip_with(folder, name: str, member: str, head: bytes, inflated: int, fill: bytes) -> str:
    """A zip whose single deflated member is `head` + `fill` × (inflated - len(head)),
    compressed in chunks so writing a 1 GiB member costs little memory."""
    path = f"{folder}/{name}"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        with zf.open(member, "w", force_zip64=inflated > (1 << 31)) as out:
            out.write(head)
            chunk = fill * (1 << 20)
            left = inflated - len(head)
            while left > 0:
                out.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
    return path


def sparse_legacy(folder, size: int = 3 << 30) -> str:
    """A legacy-looking pickle file of `size` bytes, almost all a sparse hole."""
    path = f"{folder}/sparse.pt"
    with open(path, "wb") as fh:
        fh.write(pickle.dumps(0x1950A86A20F9469CFC6C, protocol=2)[:-1])  # no STOP: the rest is "data"
        fh.truncate(size)
    return path


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def encrypted_flag(folder) -> str:
    data = bytearray(_zip_bytes({"archive/data.pkl": pickle.dumps({"w": 1}, protocol=2)}))
    for sig, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(sig)
        struct.pack_into("<H", data, at + flag_at, struct.unpack_from("<H", data, at + flag_at)[0] | 1)
    return _write(folder, "encrypted.pt", bytes(data))


def unknown_compression(folder) -> str:
    data = bytearray(_zip_bytes({"archive/data.pkl": pickle.dumps({"w": 1}, protocol=2)}))
    for sig, method_at in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(sig)
        struct.pack_into("<H", data, at + method_at, 77)
    return _write(folder, "method77.pt", bytes(data))


def deep_nesting(folder, depth: int = 20_000) -> str:
    data = b"\x80\x02" + b"]" * depth + b"a" * (depth - 1) + b"."
    return _write(folder, "deep.pt", _zip_bytes({"archive/data.pkl": data}))


def non_utf8_name(folder, model_json: bytes = b"{}") -> str:
    """A .pt2-like archive with a member whose name is not UTF-8."""
    data = bytearray(_zip_bytes({"archive/models/model.json": model_json, "archive/extra/\u00ff.bin": b"x"}))
    # the name was written as UTF-8 (flag 0x800) — clear the flag and put a lone 0xff byte in
    for sig, flag_at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = 0
        while True:
            at = data.find(sig, at)
            if at < 0:
                break
            flags = struct.unpack_from("<H", data, at + flag_at)[0]
            if flags & 0x800:
                struct.pack_into("<H", data, at + flag_at, flags & ~0x800)
            at += 4
    blob = bytes(data).replace("\u00ff".encode(), b"\xff\xff")
    return _write(folder, "nonutf8.pt2", blob)


def _write(folder, name: str, data: bytes) -> str:
    path = f"{folder}/{name}"
    with open(path, "wb") as fh:
        fh.write(data)
    return path

