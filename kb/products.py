"""Product names for support windows and stacks: one canonical name per product.

Sources name the same product differently ("PyTorch/XLA on Neuron", `torch-neuronx-xla`,
"PyTorch NeuronX"), and users type yet other names (`neuron=2.33`, `torch=2.14`). This
table maps all of them to one canonical name, so that statements about one product from
different scrapers land in the same window history, and filters and stacks find them.
Names not in the table pass through (slugged), so an unknown product is never dropped.

A basic (not in kb/eol) because every view names products: `kb eol`, `kb ask` and the
Datasette pages (kb.serve registers `kb_product()` for SQL), one set of names for all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    name: str  # canonical name, as stored in answers
    label: str
    aliases: tuple[str, ...] = ()
    # Release-registry product whose releases "ends with release X" statements name.
    releases_with: str = "neuron-sdk"
    # "version": cycles are versions (3.12, 22.04); "feature": cycles name a use (inference, training)
    cycles: str = "version"
    groups: tuple[str, ...] = ()  # loose names that select this product among others
    # Someone else's product (Python, Ubuntu...): its windows here are what a vendor (Neuron)
    # says about supporting it, not the product's own end of life, and say so.
    outside: bool = False


PRODUCTS: tuple[Product, ...] = (
    Product("neuron-sdk", "AWS Neuron SDK", ("neuron", "aws-neuron", "neuron-sdk", "sdk", "aws-neuron-sdk"),
            groups=("neuron",)),
    Product("torchneuron", "TorchNeuron (native torch-neuronx, device neuron)",
            ("torchneuron", "torch-neuronx-native", "torchneuron-native", "neuron-native", "native"),
            groups=("torch-neuronx", "neuron")),
    Product("torch-neuronx", "torch-neuronx (package, all families)", ("torch-neuronx", "torch_neuronx", "pytorch-neuronx"),
            groups=("torch-neuronx", "neuron")),
    Product("torch-neuronx-xla", "PyTorch/XLA on Neuron (torch-neuronx, XLA-based)",
            ("torch-neuronx-xla", "pytorch-xla-on-neuron", "pytorch-xla", "torch-xla", "xla", "neuron-xla",
             "torch-xla-neuron", "pytorch-xla-neuron"),
            cycles="feature", groups=("neuron", "xla", "torch-neuronx")),
    Product("torch-neuron", "torch-neuron (Inf1)", ("torch-neuron", "pytorch-neuron"), groups=("neuron", "inf1")),
    Product("nxd-inference", "NxD Inference and NxD Core inference APIs",
            ("nxd-inference", "nxdi", "nxd-inference-and-nxd-core-inference-apis", "neuronx-distributed-inference"),
            cycles="feature", groups=("neuron", "nxd")),
    Product("nxd-training", "NxD Training and NxD Core training APIs",
            ("nxd-training", "nxdt", "neuronx-distributed-training"), cycles="feature", groups=("neuron", "nxd")),
    Product("neuron-dlami", "Neuron DLAMIs and DLCs", ("neuron-dlami", "dlami", "dlc", "neuron-dlc"),
            cycles="feature", groups=("neuron",)),
    Product("neuron-feature", "Neuron feature", ("neuron-feature",), cycles="feature", groups=("neuron",)),
    Product("transformers-neuronx", "Transformers NeuronX", ("transformers-neuronx", "tnx"), cycles="feature",
            groups=("neuron",)),
    Product("mxnet-neuron", "MXNet on Neuron", ("mxnet-neuron", "mxnet"), groups=("neuron",)),
    Product("nki", "Neuron Kernel Interface (NKI)", ("nki", "nki-library"), cycles="feature", groups=("neuron",)),
    Product("tensorflow-neuron", "TensorFlow on Neuron", ("tensorflow-neuron", "tensorflow", "tf", "tensorflow-neuronx"),
            groups=("neuron",)),
    Product("jax", "JAX on Neuron", ("jax", "jax-neuronx"), groups=("neuron",)),
    Product("torch_tpu", "TorchTPU (torch_tpu, device tpu)", ("torch_tpu", "torch-tpu", "torchtpu", "tpu"),
            releases_with="torch_tpu", groups=("tpu",)),
    Product("libtpu", "libtpu (TPU runtime TorchTPU loads)", ("libtpu",), releases_with="libtpu", groups=("tpu",)),
    Product("pytorch", "PyTorch", ("pytorch", "torch"), releases_with="neuron-sdk", outside=True),
    Product("python", "Python", ("python", "py", "cpython"), outside=True),
    Product("ubuntu", "Ubuntu", ("ubuntu", "os"), outside=True),
    Product("amazon-linux", "Amazon Linux", ("amazon-linux", "al", "al2", "amazonlinux"), outside=True),
    Product("instance", "EC2 instance family (Inf1, Inf2, Trn1, Trn2, Trn3)",
            ("instance", "instances", "instance-family", "ec2", "platform"), cycles="feature"),
)

_BY_NAME = {p.name: p for p in PRODUCTS}
_ALIASES = {alias: p.name for p in PRODUCTS for alias in (p.name, *p.aliases)}
# Instance families are their own cycles of `instance`: "inf1" as a product means instance inf1.
INSTANCE_FAMILIES = ("inf1", "inf2", "trn1", "trn1n", "trn2", "trn3")


def slug(name: str) -> str:
    """Lower case, runs of anything but letters, digits, `.` and `_` become one dash."""
    return re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9._]+", "-", name.strip().lower())).strip("-")


# Announcements the scrapers could not attribute arrive as product `neuron-feature` with
# the page's slug as cycle; these slugs name a product of the table.
FEATURE_SLUGS = (
    (r"^(?:nxdi|nxd-inference)", "nxd-inference"),
    (r"^(?:nxdt|nxd-core-training|nxd-training)", "nxd-training"),
    (r"^tnx$|transformers-neuronx", "transformers-neuronx"),
    (r"^tensorflow|^tf-", "tensorflow-neuron"),
    (r"^jax", "jax"),
    (r"^mxnet", "mxnet-neuron"),
    (r"^nki", "nki"),
)


def feature_product(cycle: str) -> str | None:
    """The product a `neuron-feature` slug names, or None."""
    key = slug(cycle)
    for pattern, product in FEATURE_SLUGS:
        if re.search(pattern, key):
            return product
    return None


def canonical(name: str) -> str:
    """The canonical product name for any spelling a source or user uses (unknown: slugged)."""
    key = slug(name)
    if key in _ALIASES:
        return _ALIASES[key]
    dashed = key.replace("_", "-")
    if dashed in _ALIASES:
        return _ALIASES[dashed]
    if key in INSTANCE_FAMILIES:
        return "instance"
    return key


def info(name: str) -> Product:
    """The table entry for a product (a plain version-cycled entry for unknown names)."""
    name = canonical(name)
    return _BY_NAME.get(name) or Product(name, name)


def matches(query: str, product: str) -> bool:
    """Loose filter. A known name selects its product and the products grouped under it
    (`torch-neuronx`: both package families; `neuron`: everything Neuron); anything else
    is a substring of the canonical name or label (`nxd`, `profiler`)."""
    key = slug(query)
    entry = info(product)
    if key in entry.groups:
        return True
    if key in _ALIASES or key.replace("_", "-") in _ALIASES:
        return canonical(query) == entry.name
    return key in entry.name or key in slug(entry.label)


def known_names() -> list[str]:
    return [p.name for p in PRODUCTS]


def window_product(product: str, cycle: str | None = None) -> str:
    """The canonical product a support-window statement is about: its own product name made
    canonical, an instance family for `Inf1`-style names, and for an unattributed
    `neuron-feature` announcement the product its cycle slug names."""
    name = canonical(product)
    if slug(product) in INSTANCE_FAMILIES:
        return "instance"
    if name == "neuron-feature":
        return feature_product(cycle or "") or "neuron-feature"
    return name
