"""Property tests: the readers never fail with anything but ClassAdSyntaxError, and
generated expressions print exactly as classad2 prints them."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    ListExpr,
    Literal,
    Paren,
    RecordExpr,
    Select,
    Subscript,
    Unary,
)
from condorlite.core.classad.errors import KINDS, ClassAdSyntaxError
from condorlite.core.classad.formats import parse_ads
from condorlite.core.classad.parser import MAX_DEPTH, parse_expr, quick_literal
from condorlite.core.classad.printer import unparse
from condorlite.core.classad.values import Error, Undefined

from .conftest import oracle_expr

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text that reaches deep into the grammar: ClassAd punctuation, keywords, numbers.
CLASSAD_PIECES = st.sampled_from(
    [
        " ",
        "\n",
        "\t",
        "a",
        "MY",
        ".",
        "TARGET",
        "(",
        ")",
        "[",
        "]",
        "{",
        "}",
        ",",
        ";",
        "=",
        "==",
        "=?=",
        "=!=",
        "!",
        "~",
        "-",
        "+",
        "*",
        "/",
        "%",
        "<",
        ">",
        "<<",
        ">>>",
        "&",
        "&&",
        "|",
        "||",
        "^",
        "?",
        ":",
        "?:",
        "is",
        "isnt",
        "true",
        "undefined",
        "error",
        "0",
        "1",
        "07",
        "0x1",
        "1.5",
        ".5",
        "1e",
        "1e9",
        "9223372036854775808",
        '"',
        "'",
        '"s"',
        "'n'",
        "\\",
        '\\"',
        "//",
        "/*",
        "*/",
        "f(",
        "@",
        "é",
        "\x00",
    ]
)
CLASSADISH = st.lists(CLASSAD_PIECES, max_size=40).map("".join)


def assert_well_placed(err: ClassAdSyntaxError, text: str) -> None:
    """Line and column name a place inside ``text`` or just past its end."""
    assert err.kind in KINDS
    assert err.line >= 1 and err.column >= 1
    lines = text.split("\n")
    assert err.line <= len(lines)
    assert err.column <= len(lines[err.line - 1]) + 1
    assert isinstance(str(err), str) and "^" in err.caret


@FAST
@given(st.one_of(st.text(), CLASSADISH))
def test_parse_expr_returns_or_raises_syntax_error(text):
    for old in (False, True):
        try:
            parse_expr(text, old=old)
        except ClassAdSyntaxError as err:
            assert_well_placed(err, text)
            assert err.source == text


@FAST
@given(st.one_of(st.text(), CLASSADISH), st.sampled_from(["auto", "old", "new", "json"]))
def test_parse_ads_returns_or_raises_syntax_error(text, fmt):
    try:
        list(parse_ads(text, fmt))
    except ClassAdSyntaxError as err:
        assert err.kind in KINDS
        assert err.line >= 1 and err.column >= 1


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["(", "-", "!", "~", "{", "[a=", "f(", "a ? b : ", "x[", "+"]),
    st.integers(min_value=150, max_value=3000),
)
def test_deep_nesting_is_a_syntax_error_not_a_crash(opener, depth):
    text = opener * depth + "1"
    try:
        parse_expr(text)
    except ClassAdSyntaxError as err:
        assert err.kind in {"too_deep", "unexpected_end"}
        assert_well_placed(err, text)
    else:
        # Only prefix-operator and conditional chains closed by "1" are complete text.
        # The last "-" before a digit is part of the literal "-1", not an operator level.
        levels = depth - 1 if opener == "-" else depth
        assert opener in ("-", "+", "!", "~", "a ? b : ") and levels < MAX_DEPTH


# -- generated expression trees -------------------------------------------------------

NAMES = st.sampled_from(["a", "Memory", "_x1", "TARGET", "Owner", "requirements"])
SCOPES = st.sampled_from([("my", "MY"), ("target", "Target"), ("parent", "PARENT")])
STRINGS = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=8
)
LITERALS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=True, allow_infinity=True),
    STRINGS,
    st.booleans(),
    st.sampled_from([Undefined, Error]),
).map(Literal)
LEAVES = st.one_of(
    LITERALS,
    NAMES.map(AttrRef),
    st.builds(lambda n, s: AttrRef(n, s[0], s[1]), NAMES, SCOPES),
    NAMES.map(lambda n: AttrRef(n, "absolute")),
)
BINARY_OPS = st.sampled_from(
    [
        "||",
        "&&",
        "|",
        "^",
        "&",
        "==",
        "!=",
        "is",
        "isnt",
        "<",
        "<=",
        ">",
        ">=",
        "<<",
        ">>",
        ">>>",
        "+",
        "-",
        "*",
        "/",
        "%",
    ]
)


def _extend(children):
    return st.one_of(
        st.builds(Binary, BINARY_OPS, children, children),
        st.builds(Unary, st.sampled_from(["-", "+", "!", "~"]), children),
        st.builds(Paren, children),
        st.builds(Conditional, children, children, children),
        st.builds(Elvis, children, children),
        st.builds(Select, children, NAMES),
        st.builds(Subscript, children, children),
        st.builds(
            Call,
            st.sampled_from(["f", "strcat", "ifThenElse", "size"]),
            st.lists(children, max_size=3).map(tuple),
        ),
        st.lists(children, max_size=3).map(lambda xs: ListExpr(tuple(xs))),
        st.dictionaries(NAMES, children, max_size=3).map(lambda d: RecordExpr(tuple(d.items()))),
    )


TREES = st.recursive(LEAVES, _extend, max_leaves=12)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TREES)
def test_printed_trees_read_back_and_match_classad2(classad2, tree):
    """For any tree, its printed text is accepted by condorlite exactly when classad2
    accepts it (HTCondor's printing is not always readable: ``0.a``, ``x.a b``); when
    accepted, condorlite prints the parse exactly as classad2 prints the same text
    (compact and pretty), and reading that print again agrees with classad2 too. (HTCondor's
    print is not always a fixed point: ``- -0`` prints `` -0``, which reads back as the
    literal ``0``.)"""
    text = unparse(tree)
    theirs = oracle_expr(classad2, text)
    if theirs is None:
        with pytest.raises(ClassAdSyntaxError):
            parse_expr(text)
        return
    ours = parse_expr(text)
    # classad2 stores a nested record's attributes sorted; sort=True prints that way.
    assert unparse(ours, sort=True) == repr(theirs)
    assert unparse(ours, pretty=True, sort=True) == str(theirs)
    once = unparse(ours, sort=True)
    again = oracle_expr(classad2, once)
    assert again is not None
    assert unparse(parse_expr(once), sort=True) == repr(again)


@FAST
@given(st.floats(min_value=-1e300, max_value=1e300).filter(lambda x: x == 0 or abs(x) > 1e-300))
def test_reals_survive_printing_to_htcondor_precision(value):
    """HTCondor prints 16 significant digits (17 are needed to round-trip every double),
    so a printed real reads back as the nearest 16-digit decimal, sign included."""
    for old, spec in ((False, ".15E"), (True, ".16G")):
        back = parse_expr(unparse(Literal(value), old=old))
        assert isinstance(back, Literal) and isinstance(back.value, float)
        assert back.value == float(format(value, spec))
        assert math.isclose(back.value, value, rel_tol=1e-15)
        assert math.copysign(1.0, back.value) == math.copysign(1.0, value)


LITERALISH = st.one_of(
    st.from_regex(r"-?[0-9]{1,21}(\.[0-9]{1,5}([eE][+-]?[0-9]{1,3})?)?", fullmatch=True),
    st.from_regex(r'"[^"\\]{0,6}"', fullmatch=True),
    st.sampled_from(["true", "FALSE", "Undefined", "error", "isnt", "x", "0x1", "-0", "00"]),
    CLASSADISH,
)


@FAST
@given(LITERALISH)
def test_quick_literal_agrees_with_the_parser(text):
    quick = quick_literal(text)
    if quick is None:
        return
    for old in (False, True):
        assert parse_expr(text, old=old) == quick
