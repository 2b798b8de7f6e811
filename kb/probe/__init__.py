"""Probes: evidence read from an installed backend (static), from a live device
(`live/`), and the simulated PrivateUse1 backend both are tested on (`sim`).

`kb.probe.static` asks PyTorch's dispatcher, in a child process that loads exactly one
backend, what each ATen overload resolves to on that backend's dispatch key; the result
is a `ProbeRun` plus one `OpStatus` per overload and mode (see ARCHITECTURE.md §4).

    kb probe --static --backend meta --out meta.jsonl      # PyTorch's own keys: cpu, meta, cuda
    kb probe --static --backend sim                        # kb's simulated PrivateUse1 backend
    kb probe --static --backend torch_tpu --python-path /opt/tpu-site --out tpu.jsonl

A backend installed outside the running environment (e.g. torch-tpu put aside with
``pip install --no-deps --target DIR torch-tpu libtpu absl-py portpicker frozendict
immutabledict pyzmq``, so the environment's torch stays untouched) is reached with
``--python-path DIR`` or ``KB_PROBE_PYTHONPATH``. Modules: `backends` (what each backend
is and what its fallback does per mode), `dispatch` (reading the table), `_child` (the
child process), `static` (records, run ids, the parent side).
"""
