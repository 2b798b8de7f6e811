"""kb.userfiles, the one reader of users' paths: a device, a FIFO or a link to one is
refused before it is opened (nothing hangs, nothing is read), sizes, lines, line counts,
nesting and folder depth are bounded, and every refusal is a KBError (one line, exit 2)."""

from __future__ import annotations

import os
import threading

import pytest

from kb import userfiles
from kb.errors import KBError
from tests import hostile_cases as hc


def _within(seconds: float, fn, *args, **kwargs):
    """fn(*args) in a thread; fails the test (instead of hanging it) when it does not return."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"{fn.__name__} still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box.get("value")


@pytest.mark.parametrize("reader", [userfiles.read_bytes, userfiles.read_text, userfiles.check_file,
                                    lambda p: list(userfiles.iter_lines(p))])
def test_fifo_is_refused_without_waiting_and_left_alone(tmp_path, reader):
    fifo = hc.fifo(tmp_path)
    before = os.stat(fifo)
    with pytest.raises(userfiles.FileRefused, match="a FIFO, not a regular file"):
        _within(5, reader, fifo)
    after = os.stat(fifo)
    assert (after.st_mtime_ns, after.st_size) == (before.st_mtime_ns, before.st_size)


@pytest.mark.parametrize("target, words", [("/dev/zero", "a character device"), ("/dev/null", "a character device")])
def test_device_and_links_to_it_are_refused(tmp_path, target, words):
    if not os.path.exists(target):
        pytest.skip(f"no {target} here")
    link = hc.link_to(tmp_path, target, "report.jsonl")
    for path in (target, link):
        with pytest.raises(userfiles.FileRefused, match=words):
            _within(5, userfiles.read_bytes, path)
    assert os.path.exists(target) and not os.path.isfile(target)  # the node is still a device


def test_refusals_are_kb_errors_and_name_the_path(tmp_path):
    assert issubclass(userfiles.FileRefused, KBError)
    with pytest.raises(userfiles.FileRefused, match="no such file"):
        userfiles.read_text(str(tmp_path / "absent"))
    with pytest.raises(userfiles.FileRefused, match="a directory"):
        userfiles.read_text(str(tmp_path))


def test_size_cap_is_checked_before_reading(tmp_path):
    big = tmp_path / "sparse.jsonl"
    with open(big, "wb") as fh:  # 8 GiB of nothing on disk
        fh.truncate(8 << 30)
    with pytest.raises(userfiles.FileRefused, match=r"8192 MiB \(bound: 64 MiB\)"):
        userfiles.read_bytes(str(big))
    small = tmp_path / "ok.txt"
    small.write_text("fine\n")
    assert userfiles.read_text(str(small), limit=5) == "fine\n"
    with pytest.raises(userfiles.FileRefused, match="bound"):
        userfiles.read_text(str(small), limit=4)


def test_a_symlink_to_a_regular_file_is_fine(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("data")
    assert userfiles.read_text(hc.link_to(tmp_path, str(real), "link.txt")) == "data"
    assert userfiles.is_regular(str(real)) and not userfiles.is_regular(str(tmp_path))


def test_line_length_and_line_count_bounds(tmp_path):
    long = tmp_path / "long.jsonl"
    long.write_bytes(b"{}\n" + b"x" * 5000 + b"\n")
    with pytest.raises(userfiles.FileRefused, match=r"long.jsonl:2: a line over"):
        list(userfiles.iter_lines(str(long), max_line=4096))
    many = hc.many_lines(tmp_path, 101)
    assert len(list(userfiles.iter_lines(many, max_lines=101))) == 101
    with pytest.raises(userfiles.FileRefused, match="more than 100 lines"):
        list(userfiles.iter_lines(many, max_lines=100))


@pytest.mark.parametrize("parse, text", [
    (userfiles.parse_json, "[" * 100_000 + "]" * 100_000),
    (userfiles.parse_json, '{"a": ' * 50_000 + "1" + "}" * 50_000),
    (userfiles.parse_toml, "x = " + "[" * 100_000 + "]" * 100_000),
    (userfiles.parse_toml, "x = " + "{a = " * 5_000 + "1" + "}" * 5_000),
])
def test_deep_documents_are_one_refusal_not_a_recursion_error(parse, text):
    with pytest.raises(userfiles.FileRefused, match="nested deeper than 200 levels"):
        parse(text, "doc")


def test_parsers_keep_brackets_in_strings_and_real_documents():
    assert userfiles.parse_json('{"a": "[[[[{{{{", "b": [1, [2]]}', "doc") == {"a": "[[[[{{{{", "b": [1, [2]]}
    assert userfiles.parse_toml('[project]\ndependencies = ["torch[cuda]>=2"]\n', "t") == \
        {"project": {"dependencies": ["torch[cuda]>=2"]}}
    with pytest.raises(userfiles.FileRefused, match="not JSON"):
        userfiles.parse_json("{", "doc")
    with pytest.raises(userfiles.FileRefused, match="not valid TOML"):
        userfiles.parse_toml("= =", "doc")


def test_walk_of_1100_nested_folders_has_no_recursion_and_reports_the_cut(tmp_path):
    root = hc.nested_folders(tmp_path / "deep", 1_100)
    skipped: list[tuple[str, str]] = []
    try:
        walked = userfiles.walk(root, on_skip=lambda p, why: skipped.append((p, why)))
        folders = [folder for folder, _dirs, _files in walked]
    finally:
        hc.remove_tree(root)  # pytest's own clean-up recurses once per level
    assert len(folders) == userfiles.MAX_WALK_DEPTH + 1
    assert len(skipped) == 1 and "nested deeper than 256 folders" in skipped[0][1]


def test_walk_never_follows_links_and_bounds_entries(tmp_path):
    (tmp_path / "a").mkdir()
    os.symlink(str(tmp_path), str(tmp_path / "a" / "loop"))
    for n in range(30):
        (tmp_path / f"f{n}").write_text("")
    walked = list(userfiles.walk(str(tmp_path)))
    assert [os.path.basename(f) for f, _d, _n in walked] == [tmp_path.name, "a"]
    assert "loop" in walked[1][2]  # listed as an entry, never entered
    with pytest.raises(userfiles.FileRefused, match="more than 10 files and folders"):
        list(userfiles.walk(str(tmp_path), max_entries=10))
