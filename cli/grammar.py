"""One grammar for every command, enforced in one place rather than per command.

- Targets: `--target` repeats wherever targets are taken, and a target may carry its
  version as `TARGET=VERSION` (`--target tpu=0.2.0`).
- One value per single-value option: `--mode eager --mode compile` is a usage error,
  not "the last one wins" (click's default, which silently drops what was typed first).
- Usage errors are one line on stderr and exit 2 (typer's own format is three lines).
- `--json` output is one envelope: a JSON object that starts with `kb_version` and
  `command`, then the command's own fields (lists under a named key), so a script can
  always read `doc["command"]` and never meets a bare list.
"""

from __future__ import annotations

from kb.errors import KBError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing: this module is on `kb op`'s start path
if TYPE_CHECKING:
    from typing import Any

JSON_ENVELOPE_DOC = ('every --json output is one JSON object: {"kb_version": "...", "command": "op", '
                     '...the command\'s fields}')


def split_targets(specs: list[str] | None, versions: list[str] | None = None,
                  flag: str = "--backend-version") -> tuple[list[str], dict[str, str]]:
    """(targets in the order given, without repeats; {target: version}) from
    `--target neuron --target tpu=0.2.0` plus `--backend-version V` (every target) or
    `--backend-version TARGET=V` (one): kb.store.targetspec.split_specs, the API's grammar too."""
    from kb.store.targetspec import split_specs

    return split_specs(specs, versions, flag)


def resolve_versions(conn: Any, versions: dict[str, str], *, single: bool) -> dict[str, Any]:
    """Every `TARGET=VERSION` through kb's one resolver (kb.store.targetspec), each
    resolution that is not the version itself said in one line on stderr. `single`: the
    command reads one version per target (the newest the spelling stands for); else it
    gets every package version the spelling stands for."""
    from cli.render import note
    from kb.store.targetspec import resolve_versions as resolve

    return resolve(conn, versions, single=single, on_note=note)


def merge_alias(value: Any, alias: Any, name: str, alias_name: str) -> Any:
    """The value of an option that has an old spelling kept as a hidden alias."""
    if value is not None and alias is not None:
        raise KBError(f"{name} and {alias_name} are the same option; give it once")
    return alias if value is None else value


def repeated_option(command: Any, args: list[str]) -> str | None:
    """The first single-value option given twice in `args` for this (click) command, or None."""
    single: dict[str, str] = {}
    takes_value: set[str] = set()
    for param in command.params:
        if param.param_type_name != "option":
            continue
        names = [*param.opts, *param.secondary_opts]
        if not getattr(param, "is_flag", False) and not getattr(param, "count", False):
            takes_value.update(param.opts)
        if not param.multiple and not getattr(param, "count", False):
            single.update(dict.fromkeys(names, param.name))
    seen: dict[str, str] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            break
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        if name in single:
            if single[name] in seen:
                first = seen[single[name]]
                return f"{name} given twice ({first} already set it); it takes one value"
            seen[single[name]] = name
        if name in takes_value and "=" not in arg:
            i += 1
        i += 1
    return None


def install_single_value_check(group: Any) -> None:
    """Make every leaf command of the click tree reject a repeated single-value option."""
    for sub in getattr(group, "commands", {}).values():
        if hasattr(sub, "commands"):
            install_single_value_check(sub)
            continue
        if getattr(sub, "_kb_single_value", False):
            continue
        original = sub.parse_args

        def parse_args(ctx, args, _original=original, _cmd=sub):
            problem = repeated_option(_cmd, list(args))
            if problem:
                from typer._click.exceptions import UsageError

                raise UsageError(problem, ctx)
            return _original(ctx, args)

        sub.parse_args = parse_args
        sub._kb_single_value = True


def command_path(group: Any, argv: list[str]) -> str:
    """`db path` for `kb db path --json`: the command words of argv (options skipped)."""
    words, node = [], group
    for arg in argv:
        if arg.startswith("-"):
            continue
        sub = getattr(node, "commands", {}).get(arg)
        if sub is None:
            break
        words.append(arg)
        node = sub
        if not hasattr(node, "commands"):
            break
    return " ".join(words)


def usage_message(exc: Any) -> str:
    """A click UsageError as one line: what is wrong, and where help is."""
    ctx = getattr(exc, "ctx", None)
    where = ctx.command_path if ctx is not None else "kb"
    message = exc.format_message() if hasattr(exc, "format_message") else str(exc)
    message = message[:1].lower() + message[1:] if message[:2] != message[:2].upper() else message
    words = where.partition(" ")[2]
    return f"{words + ': ' if words else ''}{message.rstrip('.')} (see {where} --help)"
