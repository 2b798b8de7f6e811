"""Dev-only: `kb check` of real Hugging Face and timm exports, in a process without them.

Not part of the test suite (it needs transformers and timm, which kb does not depend
on). Give the folder where they are installed, e.g.
    pip install --target /tmp/hf --no-deps transformers timm huggingface-hub tokenizers safetensors regex tqdm
    python bench/real_exports.py --hf-path /tmp/hf
A child process with that folder on its path builds each model from a small config
(random weights: nothing is downloaded), exports it the normal way
(`torch.export.export(model, ...)` then `torch.export.save`) and counts the op calls in
the graph (subgraphs included; wrappers that only set a grad or autocast mode excluded,
as kb lists what they wrap). Then `kb check --format json` runs per archive in a process WITHOUT that
folder: the model's output classes (ModelOutput dataclasses) and any custom ops are not
importable there, as on a user's CI machine. Reported per model: calls in the graph vs
calls kb reported, distinct ops, unknown and custom ops, whether torch was imported.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_EXPORT = r'''
import json, sys, warnings
warnings.simplefilter("ignore")
import torch
out_dir, wanted = sys.argv[1], sys.argv[2].split(",")

def hf(name):
    import transformers as t
    ids = torch.randint(0, 90, (1, 16))
    small = dict(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                 use_cache=False)
    if name == "gpt2":
        return t.GPT2LMHeadModel(t.GPT2Config(vocab_size=100, n_embd=64, n_layer=2, n_head=4, use_cache=False)), (ids,), {}
    if name == "llama":
        return t.LlamaForCausalLM(t.LlamaConfig(**small, num_key_value_heads=2)), (ids,), {}
    if name == "bert":
        return t.BertForMaskedLM(t.BertConfig(**small)), (ids,), {}
    if name == "t5":
        cfg = t.T5Config(vocab_size=100, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_heads=4, use_cache=False)
        return t.T5ForConditionalGeneration(cfg), (), {"input_ids": ids, "decoder_input_ids": ids}
    if name == "whisper":
        cfg = t.WhisperConfig(vocab_size=100, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                              decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, num_mel_bins=80,
                              max_source_positions=50, max_target_positions=64, pad_token_id=0, bos_token_id=1,
                              eos_token_id=2, decoder_start_token_id=1, use_cache=False)
        return (t.WhisperForConditionalGeneration(cfg), (),
                {"input_features": torch.randn(1, 80, 100), "decoder_input_ids": ids})
    if name == "mixtral":
        cfg = t.MixtralConfig(**small, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2)
        return t.MixtralForCausalLM(cfg), (ids,), {}
    import timm
    if name == "vit":
        return timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=64), (torch.randn(1, 3, 64, 64),), {}
    if name == "resnet":
        return timm.create_model("resnet18", pretrained=False), (torch.randn(1, 3, 64, 64),), {}
    raise SystemExit(f"unknown model {name}")

for name in wanted:
    try:
        model, args, kwargs = hf(name)
        model.eval()
        program = torch.export.export(model, args, kwargs)
        path = f"{out_dir}/{name}.pt2"
        torch.export.save(program, path)
        calls = sum(1 for gm in program.graph_module.modules() if isinstance(gm, torch.fx.GraphModule)
                    for n in gm.graph.nodes if n.op == "call_function"
                    and (isinstance(n.target, torch._ops.OpOverload) or (isinstance(n.target, torch._ops.HigherOrderOperator)
                         and n.target.name() not in ("wrap_with_set_grad_enabled", "wrap_with_autocast"))))
        print(json.dumps({"model": name, "path": path, "calls": calls, "output": type(model(*args, **kwargs)).__name__}))
    except Exception as exc:
        print(json.dumps({"model": name, "error": f"{type(exc).__name__}: {str(exc)[:300]}"}))
'''

_CHECK = r'''
import json, sys, time
sys.path.insert(0, {repo!r})
from cli.entry import main
import io, contextlib
buffer = io.StringIO()
start = time.perf_counter()
with contextlib.redirect_stdout(buffer):
    code = main(["check", {path!r}, "--format", "json", "--db", {db!r}])
took = time.perf_counter() - start
doc = json.loads(buffer.getvalue()) if buffer.getvalue() else None
print(json.dumps({{"code": code, "seconds": took, "torch": "torch" in sys.modules,
                  "transformers": "transformers" in sys.modules, "doc": doc}}))
'''

MODELS = "gpt2,llama,bert,t5,whisper,mixtral,vit,resnet"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hf-path", required=True, help="folder where transformers and timm are installed")
    parser.add_argument("--models", default=MODELS)
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    with tempfile.TemporaryDirectory() as tmp:
        env["KB_CACHE_DIR"] = os.path.join(tmp, "cache")
        made = subprocess.run([sys.executable, "-c", _EXPORT, tmp, args.models], capture_output=True, text=True,
                              env={**env, "PYTHONPATH": args.hf_path})
        if made.returncode != 0:
            raise SystemExit(made.stderr[-2000:])
        db = os.path.join(tmp, "kb.sqlite")
        subprocess.run([sys.executable, "-m", "cli.entry", "targets", "--db", db], cwd=REPO, env=env,
                       capture_output=True)  # build the KB once, outside the timings
        for line in made.stdout.splitlines():
            entry = json.loads(line)
            if "error" in entry:
                print(f"{entry['model']:8} export failed: {entry['error']}")
                continue
            start = time.perf_counter()
            proc = subprocess.run([sys.executable, "-c", _CHECK.format(repo=REPO, path=entry["path"], db=db)],
                                  capture_output=True, text=True, env=env)
            if proc.returncode != 0 or not proc.stdout.strip():
                print(f"{entry['model']:8} kb check crashed: {proc.stderr.strip()[-300:]}")
                continue
            result = json.loads(proc.stdout.strip().splitlines()[-1])
            doc = result["doc"]
            if doc is None:
                print(f"{entry['model']:8} kb check exit {result['code']}: {proc.stderr.strip()[-300:]}")
                continue
            report = doc["reports"][0]
            by_status = report["summary"]["ops_by_status"]
            custom = [op["op"] for op in report["ops"] if op["op"].split("::")[0] not in ("aten", "prims", "higher_order")]
            unknown = [op["op"] for op in report["ops"] if op["status"] == "unknown"]
            print(f"{entry['model']:8} output {entry['output']}: {entry['calls']} calls in the graph, "
                  f"{report['call_sites']} reported, {report['summary']['distinct_ops']} distinct ops {by_status}"
                  f"{'; custom: ' + ', '.join(custom) if custom else ''}{'; unknown: ' + ', '.join(unknown) if unknown else ''}; exit {result['code']}, "
                  f"{result['seconds']:.2f} s in-process ({time.perf_counter() - start:.2f} s with start-up), "
                  f"torch imported: {result['torch']}, transformers importable: {result['transformers']}")


if __name__ == "__main__":
    main()
