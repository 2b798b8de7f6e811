"""Print the gallery's figures as markdown (dev only): the table for neuron and tpu in eager
and compile mode, the ten ops that block the most models per target, the Baseline lines,
build time and data size. `python tools/gallery_figures.py > notes.md`"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def kb(*args: str) -> str:
    env = {**os.environ, "COLUMNS": "250"}
    out = subprocess.run([sys.executable, "-m", "cli.entry", *args], capture_output=True, text=True, cwd=REPO, env=env)
    return out.stdout.rstrip()


def main() -> int:
    folder = REPO / "data" / "gallery"
    models = [json.loads(line) for line in (folder / "models.jsonl").read_text().splitlines()]
    built = [m for m in models if (m["graphs"].get("inference") or {}).get("status") == "exported"]
    trained = [m for m in models if (m["graphs"].get("training") or {}).get("status") == "exported"]
    seconds = sum(m.get("build_seconds") or 0 for m in models)
    size = sum(p.stat().st_size for p in folder.iterdir())
    print("# Gallery figures\n")
    print(f"- models: {len(models)} listed, {len(built)} exported for inference, {len(trained)} also as a training step")
    print(f"- build time (sum of per-model builds, 2 shared cores, nice 10): {seconds / 60:.1f} min")
    print(f"- data size: {size:,} bytes in data/gallery ({', '.join(f'{p.name} {p.stat().st_size:,}' for p in sorted(folder.iterdir()))})")
    versions = sorted({f"{k} {v}" for m in models for k, v in m["built_with"].items() if v})
    print(f"- built with: {', '.join(versions)}\n")
    for target in ("neuron", "tpu"):
        print(f"## {target}: eager and compile\n\n```")
        print(kb("gallery", "-t", target, "--mode", "eager", "--mode", "compile"))
        print("```\n")
        print(f"## {target}: the ten ops that block the most models\n\n```")
        print(kb("gallery", "--blockers", "-t", target, "--mode", "eager", "--mode", "compile"))
        print("```\n")
    print("## Baseline, every version\n\n```")
    print(kb("gallery", "--baseline"))
    print("```")
    return 0


if __name__ == "__main__":
    sys.exit(main())
