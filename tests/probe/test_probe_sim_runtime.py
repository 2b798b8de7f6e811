"""kb.probe.sim as a device: tensors really live on "sim", results match the CPU, the tables
say what happens, and the drifting kernel drifts. Runs in the test process (sim.load()
is idempotent and claims PrivateUse1 only as "sim")."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from kb.probe import sim  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def loaded():
    sim.load()
    sim.load()  # twice on purpose: idempotent
    yield


COMPOSITE_KEYS = ("CompositeExplicitAutogradNonFunctional", "CompositeExplicitAutograd", "CompositeImplicitAutograd")


def has_composite(op: str) -> bool:
    return any(torch._C._dispatch_has_kernel_for_dispatch_key(op, key) for key in COMPOSITE_KEYS)


def test_tables_name_real_overloads_and_do_not_overlap():
    known = set(torch._C._dispatch_get_all_op_names())
    assert sim.NATIVE <= known and sim.RAISES <= known
    assert not sim.NATIVE & sim.RAISES
    # a refusal is only observable if the op reaches the fallback: no composite kernel
    assert not [op for op in sim.RAISES if has_composite(op)]


def test_native_ops_have_their_own_kernel_on_privateuse1():
    for op in sim.NATIVE:
        assert torch._C._dispatch_has_kernel_for_dispatch_key(op, "PrivateUse1"), op


def test_round_trip_and_native_results_match_cpu():
    a, b = torch.randn(3, 4), torch.randn(3, 4)
    x, y = a.to("sim"), b.to("sim")
    assert x.device.type == "sim" and x.is_sim
    sim.reset_counters()
    assert torch.equal((x + y).cpu(), a + b)
    assert torch.equal((x @ y.t()).cpu(), a @ b.t())
    assert sim.native_counts["aten::add.Tensor"] == 1 and sim.native_counts["aten::mm"] == 1
    assert not sim.fallback_counts


def test_fallback_ops_run_on_the_cpu_and_are_counted():
    a = torch.randn(5)
    sim.reset_counters()
    assert torch.equal(torch.sin(a.to("sim")).cpu(), torch.sin(a))
    assert sim.fallback_counts == {"aten::sin.out": 1}
    assert sim.fallback_action("aten::sin.out") == "cpu"


def test_refused_ops_raise():
    x = torch.tensor([0.0, 1.0, 2.0]).to("sim")
    assert sim.fallback_action("aten::nonzero") == "raise"
    with pytest.raises(NotImplementedError, match="aten::nonzero"):
        torch.nonzero(x)


def test_views_alias_and_inplace_ops_write_through():
    a = torch.randn(3, 4)
    x = a.to("sim")
    view = x.t()
    assert view.shape == (4, 3) and view.stride() == (1, 4)
    view.mul_(0)
    assert x.cpu().abs().sum().item() == 0
    out = torch.empty(0, device="sim")
    torch.add(a.to("sim"), 1, out=out)  # out= resizes the sim tensor
    assert torch.equal(out.cpu(), a + 1)


def test_autograd_and_printing_work():
    """In a fresh process: autograd sizes its per-device queues at the first backward of a
    process, so sim must be loaded before any backward runs (other tests run some)."""
    import subprocess
    import sys

    code = (
        "import torch\n"
        "from kb.probe import sim\n"
        "sim.load()\n"
        "a = torch.randn(2, 3)\n"
        "p = a.to('sim').requires_grad_()\n"
        "(p * p).sum().backward()\n"
        "assert torch.allclose(p.grad.cpu(), 2 * a)\n"
        "assert \"device='sim:0'\" in repr(a.to('sim'))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_decomposed_ops_resolve_to_correct_results():
    a = torch.randn(4, 8)
    assert torch.allclose(torch.layer_norm(a.to("sim"), (8,)).cpu(), torch.layer_norm(a, (8,)), atol=1e-6)


def test_drifting_kernel_error_grows_with_size():
    sim.install_drifting_kernel("aten::cumsum", rel_error_per_element=1e-6)
    assert "aten::cumsum" in sim.native_ops()

    def rel_error(n: int) -> float:
        a = torch.rand(n) + 1
        got = torch.ops.aten.cumsum.default(a.to("sim"), 0).cpu()
        want = torch.cumsum(a, 0)
        return ((got - want).abs() / want.abs()).max().item()

    small, large = rel_error(10), rel_error(100_000)
    assert small < 1e-4 < large


def test_loading_under_another_name_is_refused_cleanly(monkeypatch):
    monkeypatch.setattr(sim, "_loaded", False)
    monkeypatch.setattr(torch._C, "_get_privateuse1_backend_name", lambda: "tpu")
    with pytest.raises(sim.SimUnavailableError, match="tpu"):
        sim.load()


def test_lazy_conjugation_and_wrapped_numbers():
    c = torch.randn(3, dtype=torch.complex64)
    assert torch.equal((c.to("sim").conj() * 2).cpu(), c.conj() * 2)
    x = torch.randn(6)
    assert torch.allclose(torch.fft.hfft(x.to("sim")).cpu(), torch.fft.hfft(x))
    assert torch.equal((x.to("sim") % 4).cpu(), x % 4)  # remainder.Tensor with a Python int
