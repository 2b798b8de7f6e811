"""The question bank: what people ask about releases, versions, dtypes, feature areas and op
families, each group of phrasings with the facts its answer must state (substrings of the
answer text) and a source it must cite (part of a URL or a probe run id). Asked against
the shipped KB (data/), so the facts are the shipped ones.

Phrasings vary wording, case, typos and product nicknames (Trainium, trn2, Neuron,
TorchNeuron, torch-neuronx; TPU, TorchTPU, torch_tpu)."""

from __future__ import annotations

NEURON_RN = "torchneuron.html"
NEURON_234 = "torchao-neuron"  # the page naming torch-neuronx 2.14.3.1 for Neuron 2.34 (TorchAO Neuron requirements)
SDK_234 = "release-notes/2.34.0"
MANIFEST = "n2-manifest.json"
TPU_PROBE = "static-tpu-0.2.0"
TPU_REPLAY = "replay-tpu-0.1.1"
NEURON_REPLAY = "replay-neuron-0.1.0"
COMPILE_DOC = "reference-torch-compile.html"

# (phrasings, facts every answer must contain, a source it must cite, intent)
GROUPS: list[tuple[list[str], list[str], str, str]] = [
    # ---- releases: latest
    (["what's the latest torch-neuronx version", "latest torch-neuronx?", "What is the newest TorchNeuron release",
      "whats the most recent torchneuron version", "latest torch_neuronx release", "LATEST TORCH-NEURONX VERSION",
      "newest version of torch-neuronx please", "current torchneuron version?"],
     ["2.14.3.1", "2.34.0"], NEURON_234, "release"),
    (["latest neuron sdk", "what is the latest Neuron SDK release?", "newest neuron sdk version",
      "which Neuron SDK is the most recent"],
     ["2.34.0", "torchneuron 2.14.3.1", "2026-11-30"], SDK_234, "release"),
    (["latest torch_tpu version", "what's the newest TorchTPU release?", "latest tpu release", "most recent torch-tpu",
      "newest TPU version"],
     ["0.2.0"], "pypi.org/project/torch-tpu", "release"),
    (["latest torch-neuronx-xla version", "what is the latest neuron-xla release"],
     ["2.9.0.2.15.32035"], MANIFEST, "release"),
    # ---- releases: what a release ships
    (["which python versions does torch-neuronx 2.14.3 support", "python versions for torchneuron 2.14.3.0?",
      "what python does torch-neuronx 2.14.3 need", "Which Python works with TorchNeuron 2.14.3",
      "pythons supported by torch_neuronx 2.14.3"],
     ["3.12", "3.13", "3.14"], NEURON_RN, "release"),
    (["which pytorch version does torch-neuronx 2.13.3 ship with", "torch version of torchneuron 2.13.3.0",
      "what PyTorch does torch-neuronx 2.13.3 use"],
     ["2.13.0"], NEURON_RN, "release"),
    (["which instances does torchneuron 2.14.3 support", "what hardware does torch-neuronx 2.14.3 run on",
      "instance types for TorchNeuron 2.14.3?"],
     ["Trn2", "Trn3", "Trn1"], NEURON_RN, "release"),
    (["which OS does torch-neuronx 2.14.3 support", "ubuntu versions for torchneuron 2.14.3",
      "operating systems supported by torch-neuronx 2.14.3?"],
     ["Linux x86_64", "Ubuntu 24.04"], NEURON_RN, "release"),
    (["what's in neuron sdk 2.33", "what ships in Neuron SDK 2.33?", "which torch-neuronx versions are in neuron sdk 2.33",
      "Neuron SDK 2.33 release contents"],
     ["2.13.3.0", "2.14.3.0"], NEURON_RN, "release"),
    (["which python versions does neuron sdk 2.30 support", "python versions of Neuron SDK 2.30.0?"],
     ["3.9", "3.13"], "2.30.0", "release"),
    (["which pytorch versions does neuron sdk 2.31 support", "torch versions in Neuron SDK 2.31"],
     ["2.9.0", "2.12.0"], "2.31.0", "release"),
    (["which instances does neuron sdk 2.21 support", "instance types of neuron sdk 2.21.0"],
     ["trn2", "inf1"], "release-notes/index.html", "release"),
    (["does torch-neuronx 2.14.3 support python 3.11?", "is python 3.11 supported by torchneuron 2.14.3?",
      "does TorchNeuron 2.14.3 support python 3.11"],
     ["**No**", "3.12"], NEURON_RN, "release"),
    (["does torch-neuronx 2.14.3 support python 3.13?", "does torchneuron 2.14.3 work with python 3.13"],
     ["**Yes**", "3.13"], NEURON_RN, "release"),
    (["what python does torch_tpu 0.2.0 need", "which python versions does TorchTPU 0.2.0 support",
      "torch versions for torch_tpu 0.2.0"],
     ["0.2.0", ">=3.11"], "pypi.org/project/torch-tpu", "release"),
    # ---- releases: dates
    (["when was torch-neuronx 2.14.3 released", "release date of torchneuron 2.14.3.0",
      "When did TorchNeuron 2.14.3 come out?", "torch-neuronx 2.13.3 release date"],
     ["2026-10-19"], NEURON_RN, "release"),
    (["when was neuron sdk 2.33 released", "Neuron SDK 2.33 release date?"],
     ["2026-10-19"], NEURON_RN, "release"),
    (["when was neuron sdk 2.32 released", "release date of Neuron SDK 2.32.0"],
     ["2026-08-17"], "2.32.0", "release"),
    (["when was neuron sdk 2.21 released", "when did neuron sdk 2.21.0 come out"],
     ["2024-12-03"], "release-notes/index.html", "release"),
    (["when was torch_tpu 0.2.0 released", "TorchTPU 0.2.0 release date"],
     ["2026-10"], "pypi.org/project/torch-tpu", "release"),
    # ---- releases: unknown version
    (["when was torch-neuronx 9.9 released", "which python does torchneuron 9.9 support"],
     ["**Unknown**", "kb ingest --all"], NEURON_234, "release"),
    # ---- version comparisons
    (["what changed between tpu 0.1.1 and 0.2.0", "What changed between TorchTPU 0.1.1 and 0.2.0?",
      "diff tpu 0.1.1 0.2.0", "differences between torch_tpu 0.1.1 and 0.2.0", "what's new in tpu 0.2.0",
      "tpu 0.1.1 to 0.2.0 changes", "which kernels were gained between TPU 0.1.1 and 0.2.0",
      "what changed from tpu 0.1.1 to 0.2.0?"],
     ["0.1.1 → 0.2.0", "166", "aten::_scaled_dot_product_flash_attention"], TPU_PROBE, "diff"),
    (["what changed between tpu 0.1.1 and 0.2.0 for conv", "conv changes between torch_tpu 0.1.1 and 0.2.0"],
     ["convolution family", "0.1.1 → 0.2.0"], TPU_PROBE, "diff"),
    (["what changed between neuron 2.13.3.0 and 2.14.3.0", "diff trainium 2.13.3.0 2.14.3.0"],
     ["2.13.3.0 → 2.14.3.0", "presumed"], NEURON_REPLAY, "diff"),
    (["what changed between tpu 0.1.1 and 0.3.0", "what's new in tpu 0.3.0"],
     ["**Unknown**", "kb probe --static --backend torch_tpu"], TPU_PROBE, "diff"),
    # ---- op families: list questions
    (["which conv ops fall back on neuron", "Which convolution ops fall back on Trainium?",
      "which conv ops fall back on trn2", "list conv ops that fall back on TorchNeuron",
      "what conv operators run on the cpu on neuron", "which convs fall back on neuron?"],
     ["convolution", "30 convolution ops fall back", "aten::conv_depthwise3d"], NEURON_REPLAY, "family"),
    (["what ops does torch_tpu not support for conv?", "which conv ops are unsupported on tpu",
      "Which CONV ops does TorchTPU not support?", "conv ops unsupported on TPU", "what conv kernels are missing on tpu"],
     ["convolution", "unsupported", "aten::cudnn_convolution"], TPU_PROBE, "family"),
    (["which conv ops are native on tpu", "list native conv ops on torch_tpu"],
     ["convolution", "own kernel", "aten::convolution"], TPU_PROBE, "family"),
    (["which attention ops are unsupported on tpu", "what attention ops does TPU not support?",
      "which sdpa ops fail on torchtpu"],
     ["attention", "aten::_scaled_dot_product_flash_attention"], TPU_PROBE, "family"),
    (["which attention ops fall back on neuron", "attention ops that fall back on trainium"],
     ["attention", "fall back"], NEURON_REPLAY, "family"),
    (["which normalization ops fall back on neuron", "which norm ops fall back on trn2", "layer norm ops on neuron"],
     ["normalization"], NEURON_REPLAY, "family"),
    (["which pooling ops are unsupported on tpu", "which pool ops does tpu not support"],
     ["pooling", "unsupported"], TPU_PROBE, "family"),
    (["which fft ops fall back on neuron", "list the fft ops that fall back on Trainium"],
     ["fft", "fall back"], NEURON_REPLAY, "family"),
    (["which linalg ops fall back on neuron", "linear algebra ops that fall back on trn2?"],
     ["linalg", "fall back", "aten::linalg_"], NEURON_REPLAY, "family"),
    (["which embedding ops are unsupported on tpu", "which loss ops are unsupported on tpu",
      "which rnn ops are unsupported on tpu", "which upsample ops are unsupported on tpu"],
     ["unsupported", "tpu 0.2.0"], TPU_PROBE, "family"),
    (["which matmul ops fall back on neuron", "which random ops fall back on neuron", "which sort ops fall back on neuron"],
     ["neuron"], NEURON_REPLAY, "family"),
    (["does conv fall back on neuron?", "do conv ops fall back on trainium"],
     ["convolution", "fall back"], NEURON_REPLAY, "family"),
    # ---- yes/no answered by where the op runs
    (["is scaled_dot_product_attention native on tpu?", "Is scaled_dot_product_attention native on TorchTPU?",
      "is aten::scaled_dot_product_attention native on tpu 0.2.0", "is sdpa aka scaled_dot_product_attention native on TPU",
      "is F.scaled_dot_product_attention native on tpu?"],
     ["runs on tpu", "not as one kernel", "leaves on the device"], TPU_PROBE, "op"),
    (["does scaled_dot_product_attention work on tpu?", "does scaled_dot_product_attention run on TPU"],
     ["**Yes**", "leaves on the device"], TPU_PROBE, "op"),
    (["is nonzero native on tpu?", "is aten::nonzero native on torchtpu", "Is nonzero native on TPU 0.2.0?"],
     ["**Yes**", "own kernel"], TPU_PROBE, "op"),
    (["is nonzero native on neuron?", "is nonzero native on trainium", "Is nonzero native on trn2?"],
     ["**Presumably yes**", "presumed", "pre-release snapshot"], "98154b8", "op"),
    # a headline resting on presumed / inferred verdicts says so (issue 25: fresh-eyes answers)
    (["is nonzero native on neuron 2.34?", "Is nonzero native on Trainium with Neuron 2.34"],
     ["**Presumably yes**", "no evidence for 2.14.3.1"], "98154b8", "op"),
    (["is nonzero native on tpu 0.1.1?", "is aten::nonzero native on torch_tpu 0.1.1"],
     ["**Yes, inferred**", "dispatcher replay"], TPU_REPLAY, "op"),
    (["is _scaled_dot_product_flash_attention native on tpu?", "is aten::_scaled_dot_product_flash_attention native on tpu"],
     ["**No**", "unsupported"], TPU_PROBE, "op"),
    (["does conv2d run on tpu?", "does aten::conv2d work on TPU"],
     ["**Yes**", "aten::conv2d"], TPU_PROBE, "op"),
    (["is conv2d native on neuron?", "is conv2d native on trainium"],
     ["aten::conv2d", "neuron"], NEURON_REPLAY, "op"),
    (["is layer_norm native on tpu?", "is layer_norm native on TorchTPU"],
     ["aten::layer_norm", "tpu"], TPU_PROBE, "op"),
    (["is convolution native on tpu?", "is convolution native on torch_tpu"],
     ["aten::convolution", "convolution family"], TPU_PROBE, "op"),
    # ---- limitations: dtypes
    (["does neuron support float64?", "does trainium support fp64", "Does TorchNeuron support double?",
      "is float64 supported on trn2", "float64 on torch-neuronx?", "does neuron support torch.float64",
      "can I use double precision on Trainium?", "does neuron 2.33 support float64"],
     ["float64", "runs as float32"], NEURON_RN, "limitation"),
    (["does TPU support float64", "does torch_tpu support fp64?", "is double supported on TorchTPU",
      "float64 on tpu?", "Does TPU support float64?"],
     ["**Unknown**", "float64", "kb probe --device tpu --dtypes float64"], "torch_tpu", "limitation"),
    (["does neuron support fp8", "does trainium support mxfp8", "is MXFP8 supported on trn2?"],
     ["MXFP8", "unsupported"], NEURON_RN, "limitation"),
    (["does neuron support bf16?", "is bfloat16 supported on trainium"],
     ["**Unknown**", "bfloat16", "kb probe --device neuron --dtypes bfloat16"], NEURON_RN, "limitation"),
    # ---- limitations: feature areas
    (["does neuron support sparse tensors", "any sparse support on trn2?", "is torch.sparse supported on trainium",
      "Sparse on TorchNeuron?"],
     ["torch.sparse", "unsupported"], NEURON_RN, "limitation"),
    (["does neuron support nested tensors", "is torch.nested supported on trainium?", "NJT on trn2?"],
     ["torch.nested", "unsupported"], NEURON_RN, "limitation"),
    (["does neuron support complex numbers", "complex numbers on trainium?", "are complex tensors supported on trn2"],
     ["complex decomposition", "TORCH_NEURONX_COMPLEX_DECOMPOSE"], "env-vars.html", "limitation"),
    (["does neuron support fft", "is torch.fft supported on trainium?", "fft on trn2"],
     ["torch.fft", "partial"], NEURON_RN, "limitation"),
    (["does neuron support torch.distributions", "torch.distributions on trainium?"],
     ["torch.distributions", "unsupported"], NEURON_RN, "limitation"),
    (["does neuron support torch.func", "is vmap supported on trainium?", "functorch on trn2"],
     ["torch.func", "unsupported"], NEURON_RN, "limitation"),
    (["does neuron support torchao", "TorchAO on Trainium?"],
     ["TorchAO", "unsupported"], NEURON_RN, "limitation"),
    (["does tpu support sparse tensors", "is torch.sparse supported on torchtpu?"],
     ["**Unknown**", "sparse", "sparse family"], TPU_PROBE, "limitation"),
    (["does tpu support complex numbers", "complex numbers on TPU?"],
     ["**Unknown**", "complex family"], TPU_PROBE, "limitation"),
    # ---- limitations: compile options
    (["does neuron support dynamic shapes", "torch.compile dynamic=True on trainium?",
      "can I use dynamic=True with torch.compile on trn2", "dynamic shapes on TorchNeuron?"],
     ["dynamic=True", "unsupported", "dynamic=False"], COMPILE_DOC, "limitation"),
    # fallback policies: what a backend does with an op it lacks is a policy question (kb.chat.answer_policy), with
    # the same policy rows and sources the limitation answer gave
    (["what happens on compile fallback on neuron", "is fallback_execution on by default on neuron?"],
     ["compile fallback", "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION"], "env-vars.html", "limitation"),
    (["neuron compile fallback policy"],
     ["compile fallback", "TORCH_NEURONX_DISABLE_FALLBACK_EXECUTION"], "env-vars.html", "policy"),
    (["what is the cpu fallback policy on tpu", "tpu fallback policy?", "what happens to a missing op on torch_tpu"],
     ["policy: missing op", "fallback"], "google-pytorch/torch_tpu", "policy"),
    (["what is the cpu fallback policy on neuron", "neuron fallback policy"],
     ["policy: eager fallback", "cpu fallback with warning"], "about-pytorch-neuron.html", "policy"),
]


FRESH_EYES: list[tuple[list[str], list[str], str, str]] = [
    # everyday English words are no op names; "how many" answers with the count
    (["How many ops are unsupported on TPU?", "how many ops are unsupported on torch_tpu",
      "number of unsupported ops on tpu?", "which ops are unsupported on tpu, if any?"],
     ["595", "406 by their own status"], TPU_PROBE, "ops_by_status"),
    (["how many ops fall back on neuron?", "How many operators fall back to CPU on Trainium?"],
     ["**1,127** ops run as fallback", "675 by their own status"], NEURON_REPLAY, "ops_by_status"),
    (["is where supported on tpu?", "does where run on TorchTPU"], ["aten::where"], TPU_PROBE, "op"),
    (["Which ops fall back to CPU on neuron?", "what falls back to the cpu on trn2?"],
     ["`kb targets` shows both counts"], NEURON_REPLAY, "ops_by_status"),
    # collectives reach the process-group doc rule
    (["Can I use torch.distributed.all_reduce on neuron?", "does all_gather work on trn2",
      "is torch.distributed.reduce_scatter_tensor supported on TorchNeuron?", "can I call dist.barrier() on neuron 2.34",
      "is c10d::allreduce_ supported on trainium?", "do collectives work on torch-neuronx"],
     ["init_process_group", "vendor's rule"], "supported-operators.html", "collective"),
    # torch.compile modes on neuron: default only
    (["Does torch.compile mode reduce-overhead work on neuron?", "does max-autotune work on trainium?",
      "torch.compile mode=max-autotune on trn2?", "is compile mode reduce-overhead supported on torchneuron"],
     ["torch.compile mode", "runs as mode default"], COMPILE_DOC, "limitation"),
    # end of support: PyTorch/XLA inference on Trn2, platforms in an SDK release, what a release ends
    (["Is PyTorch/XLA inference still supported on Trn2?", "is torch-xla inference still supported on trn2",
      "Is PyTorch/XLA inference on Trn2 still supported?"],
     ["**No**", "inference on Trn2 and Trn3", "2026-11-30"], "announce-no-support-torch-xla-inference-trn", "eol"),
    (["Is Ubuntu 22.04 supported by TorchNeuron in Neuron 2.34?", "is ubuntu 22.04 supported on neuron 2.34",
      "does neuron 2.34 support ubuntu 22.04?"],
     ["Presumably no", "Neuron 2.34 states no matrix of its own", "Neuron 2.33.0", "end of support", "2027-05"], "torchneuron.html", "eol"),
    (["is ubuntu 24.04 supported on neuron 2.33?", "does Neuron SDK 2.33 support Ubuntu 24.04"],
     ["**Yes**", "Ubuntu 24.04"], "torchneuron.html", "eol"),
    (["What does Neuron 2.34 end or deprecate?", "what does neuron sdk 2.34 deprecate", "what ends with Neuron 2.34?",
      "what did neuron 2.34 drop?"],
     ["Neuron 2.34 ends 4 things", "neuron-ls JSON output", "inference on Trn2 and Trn3"],
     "announce-no-support-torch-xla-inference-trn", "eol"),
    # instances from the platform facts
    (["Which instances does TorchNeuron support?", "what instances does torch-neuronx run on?",
      "which hardware does TorchNeuron support"],
     ["Trn2, Trn3", "newest release that lists them"], NEURON_RN, "release"),
]
GROUPS += FRESH_EYES


def questions() -> list[tuple[str, list[str], str, str]]:
    """Every phrasing with its facts, source and intent."""
    return [(q, facts, source, intent) for phrasings, facts, source, intent in GROUPS for q in phrasings]
