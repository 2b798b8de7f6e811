"""The live probe: run every OpInfo's samples on a device and on the CPU, and record per
ATen overload × dtype whether it ran natively, decomposed, fell back to the CPU, raised,
crashed or hung, and whether its results match the CPU's.

Pieces, in the order data flows: `opinfos` (which ops and samples, from PyTorch's OpInfo
database), `detect` (who served a call: the backend's own kernel or its CPU fallback),
`numerics` (device result vs CPU result), `device` (loads the backend), `task` (one
OpInfo × dtype: record, compare, blame), `beacon` (the call in progress, readable after
a crash), `worker` (the child process that runs tasks),
`journal` (each finished task is one appended line: the commit), `runner` (the pool of
workers, timeouts, crashes, resume), `report` (journal → kb.store.records), `probe` (the
one call the CLI makes: run, write the report, ingest; and `contradictions` with the
static probe), `shard` (one machine's share of a fleet's sweep: `--shard I/N|auto`) and
`merge` (shard reports → the single-machine run's records). `_preload` is what the workers' forkserver imports before forking.

Usage: `kb probe --device sim|meta|cpu|cuda|neuron|tpu [--dtypes ...] [--ops ...]`,
`kb probe --resume RUN_ID`, `kb probe --compare-static`, `kb probe --device neuron --shard auto`.
"""
