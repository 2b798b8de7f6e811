"""Op families: the words people use for groups of ATen ops ("conv", "attention", "pooling")
and which catalog ops each stands for.

A family is a rule over the op catalog's base names (tokens split at `_`), not a list to
keep in step with torch: `conv` is every base with a token conv, conv1d…conv3d or
convolution (conv_transpose2d, _convolution, cudnn_convolution…), never `cov` or
`_convert_indices_from_coo_to_csr`. Words are matched exactly (lower case, an English
plural dropped), never letter by letter, so a family word cannot turn into a near
op name. Plain sqlite3; no torch.
"""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Family:
    name: str
    label: str
    words: tuple[str, ...]  # what people call it, one or more words each, lower case
    tokens: str = r"$^"  # a regex one `_`-token of a base name must match in full
    bases: frozenset[str] = frozenset()  # base names that belong whatever their tokens
    prefixes: tuple[str, ...] = ()  # base names starting with one of these belong
    exclude: str = r"$^"  # a regex on the whole base name that keeps it out

    def has(self, base: str) -> bool:
        stem = base.strip("_")
        if re.search(self.exclude, stem):
            return False
        if stem in self.bases or stem.rstrip("_") in self.bases:
            return True
        if stem.startswith(self.prefixes) if self.prefixes else False:
            return True
        return any(re.fullmatch(self.tokens, tok) for tok in stem.split("_") if tok)


FAMILIES: tuple[Family, ...] = (
    Family("convolution", "convolutions (conv1d/2d/3d, transposed, depthwise, backends' variants)",
           ("conv", "convolution", "convolutional", "convnet", "conv layer", "transposed convolution", "deconvolution"),
           tokens=r"conv(olution)?(\d+d)?|depthwise(\d+d)?"),
    Family("attention", "attention (scaled_dot_product_attention, flash/efficient/cudnn kernels, multi-head)",
           ("attention", "sdpa", "flash attention", "multi-head attention", "mha", "self-attention", "self attention"),
           tokens=r"attention", prefixes=("scaled_dot_product",)),
    Family("normalization", "normalization layers (layer/batch/group/instance/RMS norm)",
           ("norm", "normalization", "normalisation", "layernorm", "layer norm", "batchnorm", "batch norm", "groupnorm",
            "group norm", "rmsnorm", "rms norm", "instancenorm", "instance norm"),
           tokens=r"norm", exclude=r"^(foreach|linalg|frobenius|nuclear|renorm|embedding_renorm|norm$|norm_except_dim|native_norm)"),
    Family("pooling", "pooling (max/avg/adaptive/fractional pools and unpooling)",
           ("pool", "pooling", "maxpool", "max pool", "avgpool", "avg pool", "average pooling", "max pooling"),
           tokens=r"(un)?pool(\d+d)?"),
    Family("fft", "FFT (torch.fft transforms)", ("fft", "fourier", "torch.fft", "ffts"), tokens=r"fft",
           exclude=r"^cufft"),
    Family("matmul", "matrix products (mm, bmm, addmm, matmul, linear, dot...)",
           ("matmul", "matrix multiply", "matrix multiplication", "gemm", "matmuls", "linear layer"),
           bases=frozenset({"mm", "bmm", "addmm", "addbmm", "baddbmm", "matmul", "mv", "addmv", "dot", "vdot", "linear",
                            "addmm_activation", "int_mm", "scaled_mm", "scaled_mm_v2", "chain_matmul", "inner", "outer",
                            "ger", "einsum", "tensordot", "addr", "grouped_mm", "scaled_grouped_mm", "matrix_power"})),
    Family("linalg", "linear algebra (torch.linalg, cholesky, svd, qr, solve, det...)",
           ("linalg", "linear algebra", "torch.linalg", "decomposition"),
           prefixes=("linalg", "cholesky", "lu_", "triangular_solve", "ormqr", "geqrf", "orgqr"),
           bases=frozenset({"svd", "qr", "det", "logdet", "slogdet", "inverse", "pinverse", "lu_solve", "lu_unpack",
                            "lu_with_info", "cholesky", "lstsq", "eig", "symeig", "matrix_exp"})),
    Family("sparse", "sparse tensors (COO/CSR/CSC/BSR)", ("sparse", "torch.sparse", "coo", "csr"), tokens=r"sparse|coo|csr|csc|bsr|bsc"),
    Family("nested", "nested tensors (torch.nested, jagged)", ("nested", "nested tensor", "torch.nested", "njt", "jagged"),
           tokens=r"nested|jagged"),
    Family("complex", "complex numbers (view_as_complex/real, real, imag, angle, polar, conj)",
           ("complex numbers", "complex tensors", "complex dtype"),
           bases=frozenset({"complex", "view_as_complex", "view_as_real", "view_as_complex_copy", "view_as_real_copy",
                            "real", "imag", "angle", "polar", "conj", "conj_physical", "resolve_conj", "is_complex"})),
    Family("quantization", "quantization (quantize/dequantize, fake quantize, quantized layers)",
           ("quantization", "quantize", "quantized", "quant", "int8 quantization", "fake quant"),
           tokens=r"quantize(d)?|dequantize|quant|int4pack|int8pack"),
    Family("rnn", "recurrent layers (LSTM, GRU, RNN)", ("rnn", "lstm", "gru", "recurrent"), tokens=r"rnn|lstm|gru"),
    Family("upsampling", "upsampling and sampling grids (interpolate, grid_sample)",
           ("upsample", "upsampling", "interpolate", "interpolation", "resize", "grid_sample", "grid sample"),
           tokens=r"upsample|sampler", bases=frozenset({"affine_grid_generator"})),
    Family("embedding", "embeddings (embedding, embedding_bag)", ("embedding", "embeddings", "embedding bag"),
           tokens=r"embedding", exclude=r"loss$"),
    Family("softmax", "softmax and log_softmax", ("softmax", "log softmax", "log_softmax"), tokens=r"softmax"),
    Family("loss", "loss functions (cross entropy, nll, mse, ctc...)", ("loss", "losses", "loss function", "cross entropy"),
           tokens=r"loss(2d|_nd)?", bases=frozenset({"binary_cross_entropy", "binary_cross_entropy_with_logits"})),
    Family("dropout", "dropout", ("dropout",), tokens=r"dropout", exclude=r"attention"),
    Family("activation", "activation functions (relu, gelu, silu, sigmoid, tanh...)",
           ("activation", "activations", "activation function", "nonlinearity"),
           bases=frozenset({"relu", "relu6", "gelu", "silu", "sigmoid", "tanh", "elu", "selu", "celu", "leaky_relu",
                            "hardswish", "hardsigmoid", "hardtanh", "mish", "softplus", "softshrink", "hardshrink", "prelu",
                            "rrelu", "glu", "log_sigmoid", "threshold", "logsigmoid", "prelu_kernel"})),
    Family("random", "random sampling (bernoulli, normal, uniform, randn, multinomial...)",
           ("random", "rng", "random number", "random numbers", "sampling"),
           bases=frozenset({"bernoulli", "normal", "uniform", "rand", "randn", "randint", "randperm", "multinomial",
                            "random", "exponential", "geometric", "cauchy", "log_normal", "poisson", "rand_like",
                            "randn_like", "randint_like", "standard_gamma", "sample_dirichlet", "binomial"})),
    Family("reduction", "reductions (sum, mean, max, min, std, var, argmax...)", ("reduction", "reductions", "reduce"),
           bases=frozenset({"sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "std", "var",
                            "logsumexp", "nansum", "nanmean", "median", "nanmedian", "mode", "aminmax", "std_mean",
                            "var_mean", "count_nonzero", "all", "any"})),
    Family("cumulative", "cumulative ops (cumsum, cumprod, cummax, cummin)", ("cumulative", "scan", "prefix sum"),
           tokens=r"cum(sum|prod|max|min)|logcumsumexp"),
    Family("indexing", "indexing, gather and scatter (index, index_put, gather, scatter, masked_select...)",
           ("indexing", "index", "gather", "scatter", "gather/scatter", "advanced indexing"),
           tokens=r"index|gather|scatter|take|masked", exclude=r"^(sparse|_?nested|nll|embedding|max_pool|adaptive|"
                                                                r"fractional|max_unpool|convert|indices|sort|batch_norm)|"
                                                                r"softmax|masked_scale"),
    Family("sorting", "sorting and selection (sort, argsort, topk, kthvalue, unique)",
           ("sort", "sorting", "topk", "top-k", "argsort", "unique"),
           bases=frozenset({"sort", "argsort", "msort", "topk", "kthvalue", "unique", "unique_dim", "unique2",
                            "unique_consecutive", "unique_dim_consecutive", "searchsorted", "bucketize"})),
    Family("foreach", "multi-tensor `_foreach_*` ops (optimizers)", ("foreach", "multi-tensor", "multi tensor"),
           prefixes=("foreach",)),
    Family("optimizer", "fused optimizer steps (_fused_adam, _fused_adamw, _fused_sgd...)",
           ("optimizer", "optimizers", "fused optimizer", "adam", "adamw", "sgd"),
           prefixes=("fused_adam", "fused_sgd", "fused_adagrad")),
)

_BY_NAME = {f.name: f for f in FAMILIES}


def _norm(word: str) -> str:
    return re.sub(r"\s+", " ", word.strip().lower())


@lru_cache(maxsize=1)
def _word_index() -> dict[str, str]:
    index: dict[str, str] = {}
    for family in FAMILIES:
        for word in (family.name, *family.words):
            index.setdefault(_norm(word), family.name)
    return index


def family(name: str) -> Family | None:
    """The family a word names: its name or one of its words, exactly (an English plural
    dropped: `convs`, `losses`); None for anything else."""
    index = _word_index()
    key = _norm(name)
    for candidate in (key, key[:-1] if key.endswith("s") else key, key[:-2] if key.endswith("es") else key):
        if candidate in index:
            return _BY_NAME[index[candidate]]
    return None


def families_in(text: str) -> list[Family]:
    """Families whose words appear in a sentence as whole words (`scaled_dot_product_attention`
    is one word, not `attention`), longest phrases first, each once."""
    tokens = re.findall(r"[a-z0-9_.+/=-]+", text.lower())
    joined = " " + " ".join(t.strip(".") for t in tokens) + " "
    found: list[Family] = []
    for word, name in sorted(_word_index().items(), key=lambda kv: -len(kv[0])):
        forms = (word, word + "s", word + "es")
        if any(f" {form} " in joined for form in forms) and _BY_NAME[name] not in found:
            found.append(_BY_NAME[name])
    return found


def family_ops(conn: sqlite3.Connection, name: str) -> list[str]:
    """Catalog overloads (aten::…) of a family, sorted."""
    fam = _BY_NAME.get(name) or family(name)
    if fam is None:
        return []
    rows = conn.execute("SELECT name, base FROM op ORDER BY name")
    return [n for n, base in rows if fam.has(base)]


def overview(conn: sqlite3.Connection) -> list[dict[str, object]]:
    """Every family with its words, base names and overload count in this KB's catalog."""
    bases: dict[str, int] = {}
    for (base,) in conn.execute("SELECT base FROM op"):
        bases[base] = bases.get(base, 0) + 1
    out = []
    for fam in FAMILIES:
        mine = sorted(b for b in bases if fam.has(b))
        out.append({"family": fam.name, "label": fam.label, "words": list(fam.words), "bases": mine,
                    "overloads": sum(bases[b] for b in mine)})
    return out
