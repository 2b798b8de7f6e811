"""Probes: evidence read from an installed backend (static) or a live device (later).

`kb.probe.static` asks PyTorch's dispatcher, in a child process that loads exactly one
backend, what each ATen overload resolves to on that backend's dispatch key; the result
is a `ProbeRun` plus one `OpStatus` per overload and mode (see ARCHITECTURE.md §4).
"""
