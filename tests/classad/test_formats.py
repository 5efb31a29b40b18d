"""The ClassAd class and the three ad formats: reading, writing and their errors."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from condorlite.core.classad import (
    ClassAd,
    ClassAdSyntaxError,
    Error,
    Undefined,
    parse_ad,
    parse_ads,
    parse_expr,
    write_ads,
)
from condorlite.core.classad.ast import ListExpr, Literal, RecordExpr

# -- the ClassAd class ---------------------------------------------------------------


def test_keys_are_case_insensitive_and_keep_the_first_spelling():
    ad = ClassAd()
    ad["Memory"] = 1024
    ad["cpus"] = 4
    ad["MEMORY"] = 2048
    assert list(ad) == ["Memory", "cpus"]
    assert ad["memory"] == Literal(2048)
    assert "CPUS" in ad and "disk" not in ad and 5 not in ad
    assert ad.lookup("mEmOrY") == Literal(2048)
    assert ad.lookup("disk") is None
    assert ad.spelling("MEMORY") == "Memory"
    del ad["MEMORY"]
    assert list(ad) == ["cpus"]
    with pytest.raises(KeyError):
        del ad["memory"]
    with pytest.raises(KeyError):
        ad["nope"]


def test_python_values_become_literal_nodes():
    inner = ClassAd(x=1)
    ad = ClassAd(
        b=True,
        i=-5,
        r=2.5,
        s="str",
        u=Undefined,
        e=Error,
        lst=[1, "a", [True]],
        d={"k": 1},
        nested=inner,
        expr=parse_expr("a + 1"),
    )
    assert ad["b"] == Literal(True)
    assert ad["i"] == Literal(-5)
    assert ad["u"] == Literal(Undefined)
    assert ad["lst"] == ListExpr((Literal(1), Literal("a"), ListExpr((Literal(True),))))
    assert ad["d"] == RecordExpr((("k", Literal(1)),))
    assert ad["nested"] == RecordExpr((("x", Literal(1)),))
    assert ad.to_new(pretty=False) == (
        '[ b = true; i = -5; r = 2.500000000000000E+00; s = "str"; u = undefined; '
        'e = error; lst = { 1,"a",{ true } }; d = [ k = 1 ]; nested = [ x = 1 ]; '
        "expr = a + 1 ]"
    )


@pytest.mark.parametrize("bad", [object(), {1, 2}, b"bytes", None])
def test_unstorable_values_are_type_errors(bad):
    with pytest.raises(TypeError):
        ClassAd(x=bad)


def test_out_of_range_integer_is_a_value_error():
    with pytest.raises(ValueError):
        ClassAd(x=2**63)
    with pytest.raises(TypeError):
        ClassAd()[""] = 1


def test_equality_by_attributes_and_repr():
    one = ClassAd([("A", 1), ("b", "x")])
    two = ClassAd({"B": "x", "a": 1})
    assert one == two
    assert one != ClassAd(A=1)
    assert one != ClassAd(A=1, b="y")
    assert (one == 5) is False
    assert repr(one) == "ClassAd('[ A = 1; b = \"x\" ]')"
    assert one.parent is None


def test_evaluate_delegates_to_the_evaluator():
    ad = parse_ad("A = 2\nB = A * 3\nR = TARGET.C > B\n")
    assert ad.evaluate("b") == 6
    assert ad.evaluate("missing") is Undefined
    assert ad.evaluate("R", ClassAd(C=7)) is True


# -- old format ------------------------------------------------------------------------

OLD = """\
# a comment
MyType = "Machine"
Name = "slot1@host"
Memory = 2048
Requirements = (START) && (TARGET.Memory >= 1)
Path = "C:\\dir\\file"
Quote = "say \\"hi\\""

Name = "slot2@host"
memory = 1
MEMORY = 4096
"""


def test_old_format_ads_and_rules():
    first, second = parse_ads(OLD, "old")
    assert list(first) == ["MyType", "Name", "Memory", "Requirements", "Path", "Quote"]
    assert first["path"] == Literal("C:\\dir\\file")
    assert first["quote"] == Literal('say "hi"')
    assert list(second) == ["Name", "memory"]
    assert second["Memory"] == Literal(4096)


def test_old_format_crlf_and_trailing_blank_lines():
    ads = list(parse_ads("A = 1\r\nB = 2\r\n\r\n\r\n\r\nC = 3\r\n\r\n", "old"))
    assert [list(ad) for ad in ads] == [["A", "B"], ["C"]]


def test_old_format_streams_from_a_file_object():
    handle = io.StringIO("A = 1\n\nB = 2\n\nbroken line\n")
    ads = parse_ads(handle, "old", filename="pool.ads")
    assert next(ads) == ClassAd(A=1)
    assert next(ads) == ClassAd(B=2)
    with pytest.raises(ClassAdSyntaxError) as info:
        next(ads)
    assert (info.value.filename, info.value.line, info.value.kind) == ("pool.ads", 5, "bad_line")


@pytest.mark.parametrize(
    ("text", "kind", "line", "column"),
    [
        ("A = 1\nB = (1 +\n", "unexpected_end", 2, 9),
        ("A = 1\n\nMemory = 010\n", "bad_number", 3, 10),
        ("A = 1\n  = 5\n", "bad_line", 2, 3),
        ("A = 1\nA == 5\n", "bad_line", 2, 1),
        ("'quoted name' = 1\n", "bad_line", 1, 1),
        ("A = \n", "unexpected_end", 1, 5),
        ('A = "a" "b"\n', "unexpected_token", 1, 9),
        ('S = "never closed\n', "unterminated_string", 1, 5),
        ("-- Schedd: x\nA = 1\n", "bad_line", 1, 1),
    ],
)
def test_old_format_errors_name_the_line_and_column(text, kind, line, column):
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads(text, "old", filename="in.ads"))
    err = info.value
    assert (err.kind, err.line, err.column, err.filename) == (kind, line, column, "in.ads")
    assert str(err).startswith(f"in.ads:{line}:{column}: ")
    assert err.caret.splitlines()[0] == text.splitlines()[line - 1]


# -- new format ----------------------------------------------------------------------


def test_new_format_sequence_with_comments():
    text = '/* lead */ [ a = 1; b = "x\\n"; ]\n// between\n[c = [d = 2]; e = {1, 2}] '
    first, second = parse_ads(text)
    assert first == ClassAd(a=1, b="x\n")
    assert second["c"] == RecordExpr((("d", Literal(2)),))


def test_new_format_error_carries_the_filename():
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads("[ a = 1 ]\n[ b = ]\n", "new", filename="x.ad"))
    assert (info.value.filename, info.value.line, info.value.column) == ("x.ad", 2, 7)


def test_new_format_rejects_stray_text():
    with pytest.raises(ClassAdSyntaxError):
        list(parse_ads("[ a = 1 ] b", "new"))


# -- JSON ------------------------------------------------------------------------------

JSON = """[
{
  "A": 1,
  "Expr": "\\/Expr(TARGET.Memory >= 5.000000000000000E-01)\\/",
  "Plain": "/Expr(y)/",
  "Esc": "tab\\tquote\\"\\u0041",
  "N": null,
  "L": [1, 2.5, {"e": false}],
  "Big": 99999999999999999999,
  "R": 1E+100
}
,
{"B": 2}
]
"""


def test_json_array_values_and_expressions():
    first, second = parse_ads(JSON)
    assert first["Expr"] == parse_expr("TARGET.Memory >= 0.5")
    assert first["Plain"] == Literal("/Expr(y)/")
    assert first["Esc"] == Literal('tab\tquote"A')
    assert first["N"] == Literal(Undefined)
    assert first["L"] == ListExpr((Literal(1), Literal(2.5), RecordExpr((("e", Literal(False)),))))
    assert first["Big"] == Literal(0)
    assert first["R"] == Literal(1e100)
    assert second == ClassAd(B=2)


def test_json_objects_in_sequence_and_duplicates():
    ads = list(parse_ads('{"a": 1, "A": 2}\n{"b": {"x": 1, "X": 2}}', "json"))
    assert list(ads[0]) == ["a"] and ads[0]["a"] == Literal(2)
    assert ads[1]["b"] == RecordExpr((("x", Literal(2)),))


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ('{"a": }', 1, 7),
        ('[\n{"a": 1},\n{"b": NaN}\n]', 3, 1),
        ('{"a": 1}\n[1]', 2, 1),
        ('{"e": "\\/Expr(1 +)\\/"}', 1, 1),
        ('{"e": "\\/Expr(x)\\/", "f": "\\/Expr(y)\\/", "g": ]', 1, 47),
        ('{"a": "\\u0000"}', 1, 8),
        ("[1, 2]", 1, 2),
    ],
)
def test_json_errors(text, line, column):
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads(text, "json", filename="f.json"))
    err = info.value
    assert (err.kind, err.line, err.column, err.filename) == ("bad_json", line, column, "f.json")


# -- detection, parse_ad, write_ads ----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\n\n  A = 1\n", ClassAd(A=1)),
        ("[ A = 1 ]", ClassAd(A=1)),
        ("\n[\n  A = 1\n]", ClassAd(A=1)),
        ("// c\n[ A = 1 ]", ClassAd(A=1)),
        ('{"A": 1}', ClassAd(A=1)),
        ('\n[\n\n{"A": 1}\n]\n', ClassAd(A=1)),
        ("[]", ClassAd()),
    ],
)
def test_auto_detection(text, expected):
    assert parse_ad(text) == expected
    assert parse_ad(io.StringIO(text)) == expected


def test_parse_ad_wants_exactly_one():
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_ad("A = 1\n\nB = 2\n")
    assert info.value.kind == "unexpected_token"
    with pytest.raises(ClassAdSyntaxError) as info:
        parse_ad("   \n")
    assert info.value.kind == "unexpected_end"
    assert list(parse_ads("")) == []


def test_unknown_format_is_a_value_error():
    with pytest.raises(ValueError):
        parse_ads("A = 1", "xml")
    with pytest.raises(ValueError):
        write_ads([ClassAd()], "xml")


def test_write_ads_layouts():
    ads = [ClassAd(b=1, A="x"), ClassAd(c=2.5)]
    assert write_ads(ads, "old") == 'b = 1\nA = "x"\n\nc = 2.5\n\n'
    assert write_ads(ads, "old", sort=True) == 'A = "x"\nb = 1\n\nc = 2.5\n\n'
    assert write_ads(ads, "json") == ('[\n{\n  "b": 1,\n  "A": "x"\n}\n,\n{\n  "c": 2.5\n}\n]\n')
    assert write_ads([], "json") == "[\n]\n"
    new = write_ads(ads, "new")
    assert list(parse_ads(new, "new")) == ads
    assert new.startswith("\n    [\n        b = 1; \n")


def test_undecodable_file_error_is_left_to_the_opener():
    """The store layer reports files that are not UTF-8; the reader lets the decoding
    error through rather than guess a position."""
    handle = io.TextIOWrapper(io.BytesIO(b'A = 1\nB = "\xff\xfe"\n'), encoding="utf-8")
    with pytest.raises(UnicodeDecodeError):
        list(parse_ads(handle, "old", filename="bin.ads"))


def test_millions_of_blank_lines_before_the_first_ad_are_read_in_linear_time(tmp_path):
    """Format detection once gathered every blank line it passed and stripped the whole
    gathering again for each new one: 3 million blank lines took hours. Read in a
    child with a deadline far above the linear time (well under a second)."""
    path = tmp_path / "blank.ads"
    path.write_bytes(b"\n" * 3_000_000 + b"A = 1\n")
    code = ("import sys; from condorlite.store.adfiles import read_ads; "
            "ads = read_ads([sys.argv[1]]); print(len(ads), ads[0].ad['A'].value)")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                          text=True, timeout=120, check=True)
    assert done.stdout.split() == ["1", "1"]
