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
    # sympy constructors that compute hugely or call what they are given (a second attack run)
    "RisingFactorial(2, 1000000000000)", "FallingFactorial(10**12, 10**9)", "Matrix(20000, 20000, Max)",
    "Poly(a0 + b0, a0, b0)**64", "Float(2, 1000000000)/3", "Matrix(1, 1, print)", "s0 + print",
    "Max(" + ", ".join(f"s{i}" for i in range(100)) + ")",  # more arguments than a shape has
    "Mul(" + ", ".join(["18446744073709551615"] * 400) + ")",  # longer than any shape formula
])
def test_formulas_that_cost_time_are_refused(formula):
    assert not is_plain_formula(formula)


@pytest.mark.parametrize("formula", [
    "s0**2", "Pow(s0, 2)", "Symbol('s0')**-1", "2*s0 + 1", "Eq(Mod(s0, 8), 0)",
    "LessThan(Symbol('u0', integer=True), Integer(9223372036854775807))", "FloorDiv(s0, 64)",
    "Ne(s77, 1)", "(s77//2)", "Max(1, s0)", "OpaqueUnaryFn_sqrt(s0)", "s0 <= oo",
    "Piecewise((s0, Eq(s1, 0)), (1, True))",
])
def test_real_shape_formulas_pass(formula):
    assert is_plain_formula(formula)
