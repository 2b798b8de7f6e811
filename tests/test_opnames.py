import pytest

from kb.opnames import OpNameError, canonical, names_one_overload, split


@pytest.mark.parametrize(
    "spelling",
    ["aten::add.Tensor", "aten.add.Tensor", "torch.ops.aten.add.Tensor", "add.Tensor", "  add.Tensor  "],
)
def test_every_accepted_spelling_maps_to_the_canonical_name(spelling):
    assert canonical(spelling) == "aten::add.Tensor"


def test_default_overload_drops_its_name():
    assert canonical("torch.ops.aten.relu.default") == "aten::relu"
    assert canonical("relu") == "aten::relu"
    assert split("aten::relu.default") == ("relu", "")


def test_bare_name_asks_for_the_whole_family_an_overload_for_one():
    assert not names_one_overload("add")
    assert not names_one_overload("aten::add")
    assert names_one_overload("add.Tensor")
    assert names_one_overload("relu.default")


@pytest.mark.parametrize("bad", ["", "   ", "aten::", "prims::add", "add.Tensor.extra", "1add", "two words"])
def test_bad_names_are_refused(bad):
    with pytest.raises(OpNameError):
        canonical(bad)
