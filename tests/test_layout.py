"""The layout stays true: rooms import downward only, and no module imports itself back.

Rooms, from the top: cli → chat / migrate → gallery → check → probe / eol / serve / scrapers →
store / units → the loose basics in kb/. Every import counts, also one inside a function: a
late import hides a circle, it does not remove it. Rooms of the same rank stay out of
each other (chat does not reach into migrate, nor probe into eol).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import REPO

PACKAGES = ("kb", "scrapers", "cli")
RANKS = {"basics": 0, "units": 1, "store": 1, "probe": 2, "eol": 2, "serve": 2, "scrapers": 2, "check": 3, "gallery": 3.5,
         "chat": 4, "migrate": 4, "cli": 5}
BASICS = {"kb", "kb.vocab", "kb.opnames", "kb.paths", "kb.errors", "kb.tolerances", "kb.products",
          "kb.neutral", "kb.userfiles"}
MAX_BASICS = 8


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in sorted((REPO / package).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules `name` imports, anywhere in the file (`from kb import x` is kb.x)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:  # `import kb.probe.live.worker` names a module; attributes do not
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _room(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "kb":
        return parts[0]
    if len(parts) > 1 and parts[1] in RANKS:
        return parts[1]
    return "basics"


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_every_kb_module_lives_in_a_room_or_is_a_basic():
    loose = {m for m in _modules() if m.startswith("kb") and _room(m) == "basics"}
    assert loose <= BASICS, f"loose in kb/, not a basic: {sorted(loose - BASICS)}"
    assert len(loose - {"kb"}) <= MAX_BASICS


def test_rooms_import_downward_only():
    upward = []
    for module, deps in _graph().items():
        room = _room(module)
        for dep in deps:
            other = _room(dep)
            if other != room and RANKS[other] >= RANKS[room] and not (room == "cli" and other == "cli"):
                upward.append(f"{module} ({room}) imports {dep} ({other})")
    assert not upward, "imports that go up or sideways:\n" + "\n".join(sorted(upward))


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for dep in graph.get(node, ()):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in on_stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles():
    graph = _graph()
    # a package's __init__ importing nothing, a module importing its own package (for
    # `from kb.probe import live`) is not a circle worth the name: drop parent links
    for module, deps in graph.items():
        graph[module] = {d for d in deps if not module.startswith(d + ".")}
    assert _cycles(graph) == []


def test_the_checker_sees_a_circle_and_an_upward_import():
    graph = {"kb.store.a": {"kb.store.b"}, "kb.store.b": {"kb.store.a"}, "kb.store.c": set()}
    assert _cycles(graph) == [["kb.store.a", "kb.store.b"]]
    assert RANKS[_room("kb.chat.answer")] > RANKS[_room("kb.store.queries")]
    assert _room("kb.vocab") == "basics" and _room("scrapers.http") == "scrapers" and _room("kb.probe.live.task") == "probe"


# The public API (kb/__init__'s lazy table): each function in its room, and `import kb`
# loads none of them (another rule of the layout, kept where the others are).
API_ROOMS = {"check": "check", "eol": "eol", "op": "store", "ops": "store", "ask": "chat"}


def test_each_api_function_lives_in_its_room():
    import kb

    for name, room in API_ROOMS.items():
        module, _attribute = kb.API[name]
        assert _room(module) == room, f"kb.{name} comes from {module}, outside kb/{room}"
        assert module in _modules()


def test_import_kb_loads_no_room():
    import subprocess
    import sys

    code = "import sys, kb; print(sorted(m for m in sys.modules if m == 'kb' or m.startswith('kb.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "['kb']"
    code = "import sys, cli.app; print([m for m in sys.modules if m.startswith('kb.check')])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert out.strip() == "[]"  # the commands' module loads kb.check only when a check runs


def test_check_and_eol_are_packages_and_functions():
    import kb
    import kb.check.assess  # noqa: F401 - the package's modules import as before

    assert callable(kb.check) and callable(kb.eol) and kb.check.__name__ == "kb.check"
    assert kb.check.assess.annotate is not None and callable(kb.op) and callable(kb.ask)
