"""The line-by-line JSON reader (``jsonfast.py``) against the general JSON reader
(``jsonread.read_json_ads`` given the whole text): the same ads, and for bad input the
same error (kind, message, line, column), whatever the layout, the batch size and the
state of the caches."""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAd, ClassAdSyntaxError, oldform, parse_ads, parse_expr
from condorlite.core.classad.interning import JSON_MEMBER_LINES, clear_all
from condorlite.core.classad.jsonads import write_json_ads
from condorlite.core.classad.jsonread import read_json_ads

NAMES = st.sampled_from(["Name", "name", "NAME", "Cpus", "Memory", "Owner", "Req", "A",
                         "b\\u0041", "sp ace", "Rank"])
SCALARS = st.one_of(
    st.integers(-3, 3), st.sampled_from([2**63, -2**63 - 1, 10**30]),
    st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e300]), st.booleans(), st.none(),
    st.sampled_from(["x", "", "LINUX", "a\"b", "back\\slash", "/Expr(1)/", "caf\u00e9",
                     "tab\there", "nul?"]),
)
EXPRS = st.sampled_from(["\\/Expr(Cpus + 1)\\/", "\\/Expr(MY.Memory > 5)\\/",
                         "\\/Expr(1 +)\\/", "\\/Expr(\\\"q\\\")\\/", "\\/Expr()\\/"])
VALUES = st.one_of(
    SCALARS.map(lambda v: json.dumps(v).replace("nul?", "nul\\u0000")),
    EXPRS.map(lambda e: f'"{e}"'),
    st.just('{"In": 1}'), st.just("[1, 2]"), st.just("1.5e3"), st.just("NaN"),
)


@st.composite
def documents(draw):
    """A JSON text in the condor_status layout, with variations and maybe damage."""
    ads = draw(st.lists(st.lists(st.tuples(NAMES, VALUES), max_size=5), max_size=5))
    indent = draw(st.sampled_from(["  ", "", "\t", "    "]))
    end = draw(st.sampled_from(["\n", "\r\n", "\n", "\r"]))
    blank = draw(st.sampled_from(["", "", "  ", "\t"]))
    sep_style = draw(st.sampled_from(["line", "brace", "line"]))
    out = ["[" + end]
    for i, members in enumerate(ads):
        if i:
            out.append("," + end if sep_style == "line" else "")
        out.append("{" + end)
        for j, (name, value) in enumerate(members):
            comma = "," if j < len(members) - 1 else ""
            out.append(f'{indent}"{name}": {value}{comma}{draw(st.sampled_from(["", " "]))}'
                       + end)
            if draw(st.integers(0, 9)) == 0:
                out.append(blank + end)
        closing = "}," if sep_style == "brace" and i < len(ads) - 1 else "}"
        out.append(closing + end)
    out.append("]" + draw(st.sampled_from([end, "", end + end, end + " "])))
    text = "".join(out)
    damage = draw(st.sampled_from(["none", "none", "none", "cut", "insert", "delete"]))
    if damage != "none" and text:
        at = draw(st.integers(0, len(text) - 1))
        if damage == "cut":
            text = text[:at]
        elif damage == "insert":
            text = text[:at] + draw(st.sampled_from(list('{}[],":x1 \n'))) + text[at:]
        else:
            text = text[:at] + text[at + 1:]
    return text


def _ads(ads):
    return [[(name, ad._attrs[name.lower()][1], type(getattr(ad[name], "value", None)))
             for name in ad] for ad in ads]


def _general(text):
    try:
        return _ads(read_json_ads(text))
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)


def _fast(source):
    try:
        return _ads(parse_ads(source, "json", filename=None))
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)


@settings(max_examples=400, deadline=None)
@given(documents(), st.sampled_from([1, 30, 200, 1 << 16]), st.booleans())
def test_fast_reader_reads_what_the_general_reader_reads(text, chunk, cold):
    expected = _general(text)
    if cold:
        clear_all()
    old_chunk = oldform.CHUNK
    oldform.CHUNK = chunk
    try:
        assert _fast(io.StringIO(text, newline="")) == expected
        assert _fast(text) == expected
    finally:
        oldform.CHUNK = old_chunk


def test_written_ads_are_read_back_by_the_fast_path():
    ads = [ClassAd({"Name": f"slot{i}@h", "Cpus": i % 3, "Up": True, "Load": 0.5,
                    "Req": parse_expr("MY.Cpus > 0")}) for i in range(50)]
    text = write_json_ads(ads)
    clear_all()
    back = list(parse_ads(io.StringIO(text, newline=""), "json"))
    assert back == ads
    # Every member line with a comma went through the line cache.
    assert len(JSON_MEMBER_LINES) > 0


def test_a_nested_value_is_handed_over_and_reading_goes_on():
    text = ('[\n{\n  "A": 1\n}\n,\n{\n  "R": {\n    "In": 2\n  },\n  "B": 3\n}\n,\n'
            '{\n  "C": 4\n}\n]\n')
    ads = list(parse_ads(io.StringIO(text, newline=""), "json"))
    assert [list(ad) for ad in ads] == [["A"], ["R", "B"], ["C"]]


def test_an_error_far_into_the_file_has_its_file_position():
    ads = ['{\n  "Name": "s' + str(i) + '",\n  "Cpus": 1\n}' for i in range(3000)]
    ads[2500] = ads[2500].replace('"Cpus": 1', '"Cpus": 1 2')
    text = "[\n" + ",\n".join(ads) + "\n]\n"
    with pytest.raises(ClassAdSyntaxError) as fast:
        list(parse_ads(io.StringIO(text, newline=""), "json", filename="p.json"))
    with pytest.raises(ClassAdSyntaxError) as general:
        list(read_json_ads(text, filename="p.json"))
    assert (fast.value.line, fast.value.column, fast.value.message) == (
        general.value.line, general.value.column, general.value.message)
    assert fast.value.filename == "p.json"


# -- the plain member shortcut ----------------------------------------------------------

_MEMBER_NAMES = st.sampled_from(["Owner", "owner", "", "a b", "Näme", 'q"x', "b\\\\s",
                                 "tab\\t", "x\\u0041"])
_MEMBER_VALUES = st.sampled_from([
    '"alice"', '""', '"a\\"b"', '"\\/Expr(1 + 2)\\/"', '"tab\\tx"', '"caf\u00e9"', '"\u0007"',
    "0", "-0", "7", "-12", "012", "1.5", "1e3", "-", "9223372036854775808", "true", "null",
    "[1]", '{"a": 1}', '"x" "y"', '"unterminated', "12 13", '"\\u0000"',
])


@settings(max_examples=300, deadline=None)
@given(_MEMBER_NAMES, _MEMBER_VALUES, st.sampled_from(["", " ", "\t"]),
       st.sampled_from(["", " "]), st.booleans())
def test_plain_members_convert_as_the_decoder_converts(name, value, indent, space, comma):
    """``convert`` takes escape-free string and integer members without the JSON
    decoder: it gives what the decoder path gives (here with the shortcut off), for
    those and for every line near them."""
    from condorlite.core.classad import jsonfast

    raw = f'{indent}"{name}":{space}{value}{space}{"," if comma else ""}\n'
    clear_all()
    fast = jsonfast._MemberLines(None).convert(raw, comma)
    saved = jsonfast._PLAIN_MEMBER
    jsonfast._PLAIN_MEMBER = re.compile(r"(?!)")  # matches nothing
    try:
        clear_all()
        slow = jsonfast._MemberLines(None).convert(raw, comma)
    finally:
        jsonfast._PLAIN_MEMBER = saved

    def shape(hit):
        if hit is None:
            return None
        key, (spelling, expr) = hit
        return key, spelling, expr, type(getattr(expr, "value", None))

    assert shape(fast) == shape(slow)
