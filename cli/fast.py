"""Plain `kb op NAME [--target T[=VERSION]]... [--json] [--verbose] [--db PATH]` and plain
`kb check MODEL [--target T]... [--format F] [--fail-on L]...` without typer.

Typer, click and rich together take several times Python's own start-up (typer builds
every option through pydantic); a look-up that scripts run in loops, and a CI check of a
`.pt2` that should cost a fraction of `import torch`, should not pay that. Anything this parser does not
recognise (help, other commands, unknown flags) goes to the typer app instead, so
there is one behaviour and this is only a shortcut to it.
"""

from __future__ import annotations

import os


def _parse_op(args: list[str]) -> dict | None:
    opts: dict = {"name": None, "target": [], "json": False, "verbose": False, "db": os.environ.get("KB_DB")}
    flags = {"--target": "target", "-t": "target", "--db": "db"}
    i = 0
    while i < len(args):
        arg = args[i]
        key, eq, value = arg.partition("=")
        if arg in ("--verbose", "-v"):
            if opts["verbose"]:
                return None
            opts["verbose"] = True
        elif arg == "--json":
            if opts["json"]:
                return None  # repeated: the typer app says so
            opts["json"] = True
        elif (key in flags and eq) or (arg in flags and i + 1 < len(args)):
            if not eq:
                value = args[i + 1]
                i += 1
            if flags[key] == "target":
                opts["target"].append(value)
            elif "db_given" in opts:
                return None
            else:
                opts["db"], opts["db_given"] = value, True
        elif arg.startswith("-") or opts["name"] is not None:
            return None
        else:
            opts["name"] = arg
        i += 1
    return opts if opts["name"] else None


# `kb check` options the fast path takes (others go to typer): option -> (parameter, kind)
_CHECK_OPTIONS = {
    "--target": ("target", "list"), "-t": ("target", "list"), "--backend-version": ("backend_version", "list"),
    "--allow": ("allow", "list"), "--mode": ("mode", "one"), "--format": ("fmt", "one"), "-f": ("fmt", "one"),
    "--fail-on": ("fail_on", "one"), "--db": ("db", "one"), "--json": ("as_json", "flag"),
    "--verbose": ("verbose", "flag"), "-v": ("verbose", "flag"), "--suggest": ("suggest", "flag"),
    "--fail-on-unknown": ("fail_on_unknown", "flag"), "--config": ("config", "one"), "--no-config": ("no_config", "flag"),
}


def _parse_check(args: list[str]) -> dict | None:
    """cli.check.run's arguments for a plain `kb check`, or None for the typer app (an
    option not listed above, a single-value option given twice, help, `--`)."""
    opts: dict = {"model": None}
    i = 0
    while i < len(args):
        arg = args[i]
        key, eq, value = arg.partition("=")
        if arg.startswith("-"):
            if key not in _CHECK_OPTIONS:
                return None
            param, kind = _CHECK_OPTIONS[key]
            if kind == "flag":
                if eq or param in opts:
                    return None
                opts[param] = True
            else:
                if not eq:
                    if i + 1 >= len(args):
                        return None
                    value = args[i + 1]
                    i += 1
                if kind == "list":
                    opts.setdefault(param, []).append(value)
                elif param in opts:
                    return None  # given twice: the typer app refuses it in one line
                else:
                    opts[param] = value
        elif opts["model"] is not None:
            return None
        else:
            opts["model"] = arg
        i += 1
    if not opts["model"]:
        return None
    opts.setdefault("db", os.environ.get("KB_DB") or None)
    return opts


def try_run(argv: list[str]) -> int | None:
    """Exit code when handled here, None to hand over to the typer app."""
    if argv[:1] == ["check"]:
        opts = _parse_check(argv[1:])
        if opts is None:
            return None
        from cli import check, render

        render.COMMAND = "check"
        return check.run(**opts)
    if not argv or argv[0] != "op":
        return None
    opts = _parse_op(argv[1:])
    namespace = opts["name"].strip().split("::", 1)[0] if opts is not None and "::" in opts["name"] else None
    if opts is None or (namespace is not None and namespace.isidentifier() and namespace != "aten"):
        return None  # s30b (#30): a custom op goes to the typer command (cli.gallery.custom_op_page)
    from cli import render, views
    from kb.store import api

    render.COMMAND = "op"
    render.VERBOSE = opts["verbose"]
    views.op_report(api.op(opts["name"], opts["target"], db=opts["db"], on_note=render.note), opts["json"])
    return 0
