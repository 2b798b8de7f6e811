"""Plain `kb op NAME [--target T[=VERSION]]... [--json] [--verbose] [--db PATH]` without typer.

Typer, click and rich together take several times Python's own start-up; a look-up
that scripts run in loops should not pay that. Anything this parser does not
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


def try_run(argv: list[str]) -> int | None:
    """Exit code when handled here, None to hand over to the typer app."""
    if not argv or argv[0] != "op":
        return None
    opts = _parse_op(argv[1:])
    if opts is None:
        return None
    from cli import render, views
    from kb.store import api

    render.COMMAND = "op"
    render.VERBOSE = opts["verbose"]
    views.op_report(api.op(opts["name"], opts["target"], db=opts["db"], on_note=render.note), opts["json"])
    return 0
