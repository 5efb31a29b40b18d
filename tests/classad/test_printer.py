"""Printing: every formatting rule checked against classad2 (new, pretty, old, JSON)."""

from __future__ import annotations

import math

import pytest

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import AttrRef, Literal, Unary
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.printer import (
    format_name,
    format_real,
    quote_string,
    unparse,
    unparse_value,
)
from condorlite.core.classad.values import Error, Undefined

REALS = [
    0.0,
    -0.0,
    1.5,
    -1.5,
    0.1,
    1 / 3,
    100.0,
    1e15,
    1e16,
    1e22,
    123456789012.5,
    -2.5e-7,
    1e-5,
    1e-320,
    5e-324,
    1e308,
    1.7976931348623157e308,
    math.inf,
    -math.inf,
    math.nan,
]
INTS = [0, 1, -1, 42, 2**63 - 1, -(2**63)]
STRINGS = [
    "",
    "plain",
    'say "hi"',
    "back\\slash",
    "tab\tand\nnewline\r",
    "\a\b\f\v",
    "\x01\x1f\x7f",
    "it's",
    "ünïcödé 日本",
    "/Expr(x)/",
    "\\/Expr(x)\\/",
]
VALUES = REALS + INTS + STRINGS + [True, False]


def oracle_ad(classad2, value):
    cad = classad2.ClassAd()
    cad["x"] = value
    return cad


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_scalar_values_in_every_form(classad2, value):
    cad = oracle_ad(classad2, value)
    ad = ClassAd(x=value)
    assert unparse(ad["x"]) == repr(cad.lookup("x"))
    assert unparse_value(value) == repr(cad.lookup("x"))
    assert ad.to_new(pretty=False) == repr(cad)
    assert ad.to_new() == str(cad)
    assert ad.to_old() == cad.printOld()
    assert ad.to_json() == cad.printJson()


@pytest.mark.parametrize(
    "value",
    [
        [],
        [1, "a", 2.5],
        [[1, [2]], True, 'q"x'],
        {"a": 1, "b": [1.5, {"c": "d"}]},
        {},
        [{"x": 1}, {}],
    ],
    ids=repr,
)
def test_lists_and_nested_ads(classad2, value):
    cad = oracle_ad(classad2, value)
    ad = ClassAd(x=value)
    assert ad.to_new(pretty=False) == repr(cad)
    assert ad.to_new() == str(cad)
    assert ad.to_old() == cad.printOld()
    assert ad.to_json() == cad.printJson()


def test_unparse_value_of_evaluated_values():
    nested = ClassAd(b=2, a="x")
    assert unparse_value([1, [2.5, Undefined], nested]) == (
        '{ 1,{ 2.500000000000000E+00,undefined },[ b = 2; a = "x" ] }'
    )
    assert unparse_value(nested, sort=True) == '[ a = "x"; b = 2 ]'
    assert unparse_value(Error) == "error"
    assert unparse_value(-0.0, old=True) == "-0.0"
    assert unparse_value('a"b\\c', old=True) == '"a\\"b\\c"'
    with pytest.raises(TypeError):
        unparse_value(object())


OPERATOR_EXPRESSIONS = [
    "a < b",
    "a <= b",
    "a > b",
    "a >= b",
    "a == b",
    "a != b",
    "a =?= b",
    "a =!= b",
    "a is b",
    "a isnt b",
    "a + b",
    "a - b",
    "a * b",
    "a / b",
    "a % b",
    "a && b",
    "a || b",
    "a & b",
    "a | b",
    "a ^ b",
    "a << b",
    "a >> b",
    "a >>> b",
    "-a",
    "+a",
    "!a",
    "~a",
    "a ? b : c",
    "a ?: b",
    "a[1]",
    "(a)",
    "f(a, b)",
    "MY.a + TARGET.b - .c",
    "PARENT.x",
    "'odd name' + 'my'.x",
    '{ 1.5, "s\\n", [ q = 2.5 ] }',
    '[ a = 1.5; b = { x, "y" } ]',
]


@pytest.mark.parametrize("text", OPERATOR_EXPRESSIONS)
def test_operators_in_every_form(classad2, text):
    cad = classad2.ClassAd(f"[x = {text}]")
    ad = ClassAd(x=parse_expr(text))
    assert ad.to_new(pretty=False) == repr(cad)
    assert ad.to_new() == str(cad)
    assert ad.to_old() == cad.printOld()
    assert ad.to_json() == cad.printJson()


@pytest.mark.parametrize(
    "name",
    ["a", "_x9", "A b", "my", "Target", "PARENT", "true", "IsNt", "null", "9x", "it's", "é"],
)
def test_names_quoted_as_htcondor_does(classad2, name):
    cad = classad2.ClassAd()
    cad[name] = 1
    assert f"[ {format_name(name)} = 1 ]" == repr(cad)


def test_format_real_rules():
    assert format_real(0.5) == "5.000000000000000E-01"
    assert format_real(0.5, old=True) == "0.5"
    assert format_real(3.0, old=True) == "3.0"
    assert format_real(1e100, old=True) == "1E+100"
    assert format_real(-0.0) == "-0.0"
    assert format_real(math.nan) == 'real("NaN")'
    assert format_real(-math.inf, old=True) == 'real("-INF")'


def test_quote_string_escapes_bytes_in_octal():
    assert quote_string("é") == '"\\303\\251"'
    assert quote_string("a'b", "'") == "'a\\'b'"
    assert quote_string('a"b', "'") == "'a\"b'"
    # A byte that is not UTF-8 (kept as a surrogate escape) prints as its octal byte.
    assert quote_string(b"\xff".decode("utf-8", "surrogateescape")) == '"\\377"'


def test_prefix_operator_spacing_and_negative_literals():
    assert unparse(Unary("-", Literal(1))) == " -1"
    assert unparse(Literal(-1)) == "-1"
    assert unparse(Unary("!", AttrRef("x"))) == " !x"
    assert unparse(parse_expr("a - -1")) == "a - -1"


def test_scoped_reference_without_prefix_spelling():
    assert unparse(AttrRef("x", "target")) == "target.x"
    assert unparse(AttrRef("x", "parent")) == "'parent'.x"
