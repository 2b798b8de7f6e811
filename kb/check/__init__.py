"""A model's ops against the KB (`kb check`): read a model file without running its code
(`model_formats`), trace factories on meta tensors (`tracing`, `runmodel`), resolve each
op on a target (`resolve`), and add the warnings the KB knows of (`warnings`).

The package is also the API's function: `kb.check(model, example_inputs=None, *,
targets=("neuron",), mode="eager", train=False, trust=False)` is `kb.check.api.check`,
which returns a `kb.check.api.CheckResult`.
"""

# Every report gets kb.check.assess's answers (work on the device, host-cost estimate,
# hazards, fix-its, the verdict sentence). assess reads resolve's results, so resolve
# cannot import it; it is registered here, where both are known.
from kb.check import assess as _assess  # noqa: E402
from kb.check import resolve as _resolve  # noqa: E402

if _assess.annotate not in _resolve.ANNOTATORS:
    _resolve.ANNOTATORS.append(_assess.annotate)


def __kb_call__(model, example_inputs=None, **options):
    """kb.check(model, example_inputs=None, *, targets=("neuron",), mode="eager", train=False,
    trust=False, ...): see kb.check.api.check."""
    from kb.check.api import check

    return check(model, example_inputs, **options)


import kb as _kb  # noqa: E402

_kb.make_callable(__name__)
