"""Shape formulas in an export are read by sympy when torch loads the program (kb check
--train, kb parity): a formula that makes sympy compute a huge integer must be refused
before, like any other formula that is not a plain shape formula."""

from __future__ import annotations

import pytest

from kb.check.model_formats import is_plain_formula


@pytest.mark.parametrize("formula", [
    "LessThan(Symbol('u0', integer=True), 9**9**10)",   # a tower of powers: hours of exact arithmetic
    "Integer(9)**Integer(9)**Integer(10)",
    "Pow(Integer(9), Pow(Integer(9), Integer(10)))",
    "PowByNatural(Symbol('s0'), Integer(10**6))",
    "s0 + 10**100",                                      # an exponent far past any shape
    "s0 + " + "9" * 40,                                  # a literal past int64
    "(s0**2)**2",                                        # a power of a power
    "Pow(s0, s1)",                                       # a symbolic exponent
])
def test_formulas_that_cost_time_are_refused(formula):
    assert not is_plain_formula(formula)


@pytest.mark.parametrize("formula", [
    "s0**2", "Pow(s0, 2)", "Symbol('s0')**-1", "2*s0 + 1", "Eq(Mod(s0, 8), 0)",
    "LessThan(Symbol('u0', integer=True), Integer(9223372036854775807))", "FloorDiv(s0, 64)",
])
def test_real_shape_formulas_pass(formula):
    assert is_plain_formula(formula)
