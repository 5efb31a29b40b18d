"""Lexer and parser: the data-driven corpus, the tree shapes, and the syntax errors."""

from __future__ import annotations

import json
import sys

import pytest

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
from condorlite.core.classad.lexer import tokenize
from condorlite.core.classad.parser import parse_expr, parse_records
from condorlite.core.classad.printer import unparse
from condorlite.core.classad.values import Error, Undefined

from .conftest import DATA, oracle_expr

CORPUS = [
    json.loads(line)
    for line in (DATA / "classad" / "expressions.jsonl").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#")
]


@pytest.mark.parametrize("case", CORPUS, ids=[c["expr"] for c in CORPUS])
def test_corpus(case):
    """Each expression parses and prints back as HTCondor prints it, or fails with the
    recorded error kind."""
    if "error" in case:
        with pytest.raises(ClassAdSyntaxError) as info:
            parse_expr(case["expr"])
        assert info.value.kind == case["error"]
        assert info.value.kind in KINDS
    else:
        expr = parse_expr(case["expr"])
        assert unparse(expr) == case["unparse"]
        assert unparse(expr, pretty=True) == case["pretty"]


@pytest.mark.parametrize("case", CORPUS, ids=[c["expr"] for c in CORPUS])
def test_corpus_agrees_with_classad2(classad2, case):
    """The corpus itself is checked against the oracle."""
    tree = oracle_expr(classad2, case["expr"])
    if "error" in case:
        assert tree is None
    else:
        assert tree is not None
        assert (repr(tree), str(tree)) == (case["unparse"], case["pretty"])


a, b, c, d = (AttrRef(n) for n in "abcd")


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("a - b - c", Binary("-", Binary("-", a, b), c)),
        ("a / b * c", Binary("*", Binary("/", a, b), c)),
        ("a + b * c", Binary("+", a, Binary("*", b, c))),
        ("a << b + c", Binary("<<", a, Binary("+", b, c))),
        ("a < b == c", Binary("==", Binary("<", a, b), c)),
        ("a == b & c", Binary("&", Binary("==", a, b), c)),
        ("a & b ^ c | d", Binary("|", Binary("^", Binary("&", a, b), c), d)),
        ("a | b && c || d", Binary("||", Binary("&&", Binary("|", a, b), c), d)),
        ("a =?= b", Binary("is", a, b)),
        ("a IS b", Binary("is", a, b)),
        ("a =!= b", Binary("isnt", a, b)),
        ("a >>> b >> c", Binary(">>", Binary(">>>", a, b), c)),
        ("a ? b : c ? d : a", Conditional(a, b, Conditional(c, d, a))),
        ("a || b ? c : d", Conditional(Binary("||", a, b), c, d)),
        ("a ?: b ?: c", Elvis(a, Elvis(b, c))),
        ("a ? : b", Elvis(a, b)),
        ("a ?\n: b", Elvis(a, b)),
        ("a ?: b + c", Binary("+", Elvis(a, b), c)),
        ("a * b ?: c", Binary("*", a, Elvis(b, c))),
        ("-a ?: b", Unary("-", Elvis(a, b))),
        ("a ?: b.c", Elvis(a, Select(b, "c"))),
        ("a.b ?: c", Elvis(Select(a, "b"), c)),
        ("a ?: -1", Elvis(a, Literal(-1))),
        ("a || b ?: c", Binary("||", a, Elvis(b, c))),
        ("-a.b", Unary("-", Select(a, "b"))),
        ("!a[1]", Unary("!", Subscript(a, Literal(1)))),
        ("- -1", Unary("-", Literal(-1))),
        ("-a * b", Binary("*", Unary("-", a), b)),
        ("a -1", Binary("-", a, Literal(1))),
        ("a * -1", Binary("*", a, Literal(-1))),
        ("-1.5", Literal(-1.5)),
        ("(a)", Paren(a)),
        ("MY.x", AttrRef("x", "my", "MY")),
        ("target.x", AttrRef("x", "target", "target")),
        ("Parent.x", AttrRef("x", "parent", "Parent")),
        ("'my'.x", AttrRef("x", "my", "my")),
        ("MY.x.y", Select(AttrRef("x", "my", "MY"), "y")),
        ("a.my", Select(a, "my")),
        ("MY", AttrRef("MY")),
        (".x", AttrRef("x", "absolute")),
        ("(MY).x", Select(Paren(AttrRef("MY")), "x")),
        ("f()", Call("f", ())),
        ("StrCat(a, 1)", Call("StrCat", (a, Literal(1)))),
        ("{}", ListExpr(())),
        ("{a, {b}}", ListExpr((a, ListExpr((b,))))),
        ("[A = 1; a = 2; b = 3]", RecordExpr((("A", Literal(2)), ("b", Literal(3))))),
        ("[;; x = 1;;]", RecordExpr((("x", Literal(1)),))),
        ("UNDEFINED", Literal(Undefined)),
        ("Error", Literal(Error)),
        ("True", Literal(True)),
        ('"a" "b"', Literal("ab")),
        ("9223372036854775807", Literal(2**63 - 1)),
        ("-9223372036854775808", Literal(-(2**63))),
        ("9223372036854775808", Literal(0)),
        ("-010", Literal(-10)),
        ("1e400", Literal(float("inf"))),
    ],
)
def test_tree_shapes(text, tree):
    assert parse_expr(text) == tree


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (r'"\101\102"', "AB"),
        (r'"\1010"', "A0"),
        (r'"\400"', " 0"),
        (r'"\777"', "?7"),
        (r'"\18"', "\x018"),
        (r'"\q\x\?"', "qx?"),
        (r'"\'\"\\"', "'\"\\"),
        (r'"\a\b\f\n\r\t\v"', "\a\b\f\n\r\t\v"),
        (r'"\303\251"', "é"),
        ('"\\1" "01"', "A"),  # joined before the escapes are read
    ],
)
def test_string_escapes(text, value):
    assert parse_expr(text) == Literal(value)


def test_invalid_utf8_bytes_survive_a_print_round_trip():
    expr = parse_expr(r'"\377x"')
    assert unparse(expr) == r'"\377x"'
    assert parse_expr(unparse(expr)) == expr


def test_old_string_rule():
    assert parse_expr(r'"a\nb"', old=True) == Literal("a\\nb")
    assert parse_expr(r'"say \"hi\""', old=True) == Literal('say "hi"')
    assert parse_expr('"ends with \\"', old=True) == Literal("ends with \\")
    assert parse_expr(r'{"x\ty"}', old=True) == ListExpr((Literal("x\\ty"),))


def test_tokens_carry_line_and_column():
    tokens = tokenize('a +\n  /* c\n */ "s\nt" &&\tb')
    assert [(t.kind, t.line, t.column) for t in tokens] == [
        ("ident", 1, 1),
        ("+", 1, 3),
        ("string", 3, 5),
        ("&&", 4, 4),
        ("ident", 4, 7),
        ("eof", 4, 8),
    ]


@pytest.mark.parametrize(
    ("text", "kind", "line", "column"),
    [
        ("a + ", "unexpected_end", 1, 5),
        ("a +\n  * b", "unexpected_token", 2, 3),
        ('x == "abc', "unterminated_string", 1, 6),
        ("'abc", "unterminated_string", 1, 1),
        ("1 /* open", "unterminated_comment", 1, 3),
        ("010", "bad_number", 1, 1),
        ("a + 0x1F", "bad_number", 1, 5),
        ("1.", "bad_number", 1, 1),
        ("2e+", "bad_number", 1, 1),
        ('"\\0"', "bad_escape", 1, 1),
        ("a @ b", "bad_character", 1, 3),
        ("é", "bad_character", 1, 1),
        ("f(1,)", "unexpected_token", 1, 5),
        ("[a = 1 b = 2]", "unexpected_token", 1, 8),
        ("a.true", "unexpected_token", 1, 3),
        ("a ? b", "unexpected_end", 1, 6),
        ("a =? b", "unexpected_token", 1, 3),
        ("a ?: -b", "unexpected_token", 1, 6),
        ("a ? /* c */ : b", "unexpected_token", 1, 13),
        ("", "unexpected_end", 1, 1),
        ("a b", "unexpected_token", 1, 3),
        ("(a\n", "unexpected_end", 2, 1),
    ],
)
def test_error_kinds_and_positions(text, kind, line, column):
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_expr(text)
    err = info.value
    assert (err.kind, err.line, err.column) == (kind, line, column)
    assert err.source == text
    assert err.filename is None


def test_error_caret_points_at_the_column():
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_expr("Memory >= 1024 &&\n   Disk > > 5")
    err = info.value
    assert err.caret == "   Disk > > 5\n          ^"
    assert str(err) == "2:11: expected an expression but found '>'\n   Disk > > 5\n          ^"


def test_too_deep_nesting_is_a_syntax_error():
    for text in (
        "(" * 5000 + "1" + ")" * 5000,
        "-" * 5000 + "1",
        "!" * 3000 + "a",
        "{" * 3000,
        "[a=" * 3000,
        "f(" * 3000,
        "a ? b : " * 3000 + "c",
    ):
        with pytest.raises(ClassAdSyntaxError) as info:
            parse_expr(text)
        assert info.value.kind in {"too_deep", "unexpected_end"}
    nested = "(" * 165 + "1" + ")" * 165
    assert unparse(parse_expr(nested)) == nested


# HTCondor's parser counts a whole expression, an operand and its postfix part
# (source.cpp, MAX_PARSER_DEPTH = 500): the deepest text of each shape it accepts.
DEEPEST = {
    lambda n: "{" * n + "1" + "}" * n: 165,
    lambda n: "int(" * n + "1" + ")" * n: 165,
    lambda n: "(" * n + "1" + ")" * n: 165,
    lambda n: "[a=" * n + "1" + "]" * n: 165,
    lambda n: "x[" * n + "1" + "]" * n: 165,
    lambda n: "!" * n + "a": 497,
    lambda n: "a ? b : " * n + "c": 497,
    lambda n: "a" + " ?: b" * n: 497,
}


@pytest.mark.parametrize("shape", list(DEEPEST), ids=lambda f: f(2))
def test_nesting_limit_is_htcondors(shape):
    classad2 = pytest.importorskip("classad2")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # as the CLI does: the limit is HTCondor's, not Python's
    try:
        deepest = DEEPEST[shape]
        assert parse_expr(shape(deepest))
        with pytest.raises(ClassAdSyntaxError) as info:
            parse_expr(shape(deepest + 1))
        assert info.value.kind == "too_deep"
    finally:
        sys.setrecursionlimit(limit)
    classad2.ExprTree(shape(deepest))
    with pytest.raises(Exception):  # noqa: B017 (classad2 raises a bare ClassAdException)
        classad2.ExprTree(shape(deepest + 1))


def test_parse_records_reads_a_sequence_with_comments():
    records = list(parse_records("// head\n[ a = 1 ] /* mid */ [b = 2; c = {1}]\n"))
    assert records == [
        RecordExpr((("a", Literal(1)),)),
        RecordExpr((("b", Literal(2)), ("c", ListExpr((Literal(1),))))),
    ]


def test_non_string_input_is_a_type_error():
    with pytest.raises(TypeError):
        parse_expr(b"1 + 2")  # type: ignore[arg-type]
