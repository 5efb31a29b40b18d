"""The cheap reading paths: interning (one Expr per distinct text), streaming (a file
object is read as far as the ads taken need), and that neither changes what is read."""

from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAdSyntaxError, parse_ads
from condorlite.core.classad.ast import Binary, Literal
from condorlite.core.classad.interning import TextCache, clear_all
from condorlite.core.classad.jsonread import CHUNK
from condorlite.core.classad.oldform import CHUNK as OLD_CHUNK

SLOT = """Name = "slot{n}@host"
Cpus = 1
Memory = {mem}
Requirements = START && WithinResourceLimits
Start = true
WithinResourceLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus

"""


def _old_pool(count: int) -> str:
    return "".join(SLOT.format(n=i, mem=1000 + i % 3) for i in range(count))


def _expr(ad, name):
    return ad._attrs[name.lower()][1]


class LineGuard(io.TextIOBase):
    """A text stream over ``lines`` that counts what was taken and fails past
    ``limit`` lines (None: no limit)."""

    def __init__(self, lines: list[str], limit: int | None = None) -> None:
        self.lines = lines
        self.taken = 0
        self.limit = limit
        self._counted = 0
        self._chars = 0

    def readable(self) -> bool:
        return True

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.taken >= len(self.lines):
            raise StopIteration
        if self.limit is not None and self.taken >= self.limit:
            raise AssertionError(f"read past line {self.limit}")
        self.taken += 1
        return self.lines[self.taken - 1]

    def read(self, size: int | None = -1) -> str:
        raise AssertionError("the reader must not read the whole stream")

    def chars_taken(self) -> int:
        while self._counted < self.taken:  # incremental: tests call this per ad
            self._chars += len(self.lines[self._counted])
            self._counted += 1
        return self._chars


# -- interning ------------------------------------------------------------------------


@pytest.mark.parametrize("fresh", [True, False])
def test_old_form_identical_texts_share_one_expr(fresh):
    if fresh:
        clear_all()
    ads = list(parse_ads(_old_pool(50), "old"))
    assert len(ads) == 50
    for name in ("Requirements", "WithinResourceLimits", "Cpus", "Start"):
        first = _expr(ads[0], name)
        assert all(_expr(ad, name) is first for ad in ads)
    # Different texts stay different objects, and hold their own values.
    assert _expr(ads[0], "Name") is not _expr(ads[1], "Name")
    assert _expr(ads[1], "Name") == Literal("slot1@host")
    assert {_expr(ad, "Memory").value for ad in ads} == {1000, 1001, 1002}
    assert isinstance(_expr(ads[7], "Requirements"), Binary)


@pytest.mark.parametrize("pure", ["1", ""], ids=["python", "scanner"])
def test_same_value_under_another_name_is_shared(pure, monkeypatch):
    """Both readers (the Python one, and the compiled scanner where built)."""
    monkeypatch.setenv("CONDORLITE_PURE_PYTHON", pure)
    clear_all()
    (ad,) = parse_ads("TotalCpus = 8\nDetectedCpus = 8\nA = x + 1\nB = x + 1\n", "old")
    assert _expr(ad, "TotalCpus") is _expr(ad, "DetectedCpus")
    assert _expr(ad, "A") is _expr(ad, "B")


def test_interning_survives_across_reads():
    """Two reads of the same text (two files) share the expressions too."""
    first = next(iter(parse_ads(_old_pool(1), "old")))
    second = next(iter(parse_ads(_old_pool(1), "old")))
    assert _expr(first, "Requirements") is _expr(second, "Requirements")


def test_repeated_name_keeps_first_spelling_and_position_last_value():
    text = "aa = 1\nBB = 2\nAA = 3\n"
    for _ in range(2):  # the second time every line comes from the cache
        (ad,) = parse_ads(text, "old")
        assert list(ad) == ["aa", "BB"]
        assert ad["AA"] == Literal(3)
    doc = '[{"aa": 1, "BB": 2, "AA": 3}]'
    for _ in range(2):
        (ad,) = parse_ads(doc, "json")
        assert list(ad) == ["aa", "BB"]
        assert ad["aa"] == Literal(3)


def test_syntax_error_in_a_repeated_text_is_reported_at_each_line():
    bad = "Requirements = START && +* x\n"
    good = "A = 1\nRequirements = START && WithinResourceLimits\n"
    # A good text cached by one read does not hide an error in another.
    list(parse_ads(good, "old"))
    for prefix_lines, filename in ((0, "a.ads"), (5, "b.ads"), (2, "c.ads")):
        text = good * (prefix_lines // 2) + "\n" * (prefix_lines % 2) + bad
        with pytest.raises(ClassAdSyntaxError) as info:
            list(parse_ads(text, "old", filename=filename))
        assert info.value.line == prefix_lines + 1
        assert info.value.column == bad.index("*") + 1
        assert info.value.filename == filename
        assert "Requirements" in info.value.message


def test_json_identical_values_share_one_expr():
    clear_all()
    ad_doc = {
        "Requirements": "\\/Expr(START && WithinResourceLimits)\\/",
        "OpSys": "LINUX",
        "Cpus": 4,
    }
    text = "[\n" + ",\n".join(
        json.dumps({"Name": f"s{i}", **ad_doc}).replace("\\\\/", "\\/") for i in range(20)
    ) + "\n]\n"
    ads = list(parse_ads(text, "json"))
    assert len(ads) == 20
    for name in ("Requirements", "OpSys", "Cpus"):
        assert all(_expr(ad, name) is _expr(ads[0], name) for ad in ads)
    assert isinstance(_expr(ads[3], "Requirements"), Binary)
    assert _expr(ads[3], "Name") == Literal("s3")


def test_json_scalars_keep_their_types():
    """1, 1.0, true, 0, 0.0 and -0.0 compare equal in Python but are distinct values."""
    doc = '{"a": 1, "b": 1.0, "c": true, "d": 0, "e": 0.0, "f": -0.0, "g": "1", "h": null}'
    for _ in range(2):  # the second read is served from the caches
        (ad,) = parse_ads(doc, "json")
        values = {name: ad[name].value for name in ad}
        assert [type(values[k]) for k in "abcdefg"] == [int, float, bool, int, float, float, str]
        assert math.copysign(1, values["e"]) == 1 and math.copysign(1, values["f"]) == -1
        assert values["h"] is not None


# -- TextCache ------------------------------------------------------------------------


def test_text_cache_keeps_hot_entries_and_stays_bounded():
    cache = TextCache(4)
    hot = object()
    cache.put("hot", hot)
    for i in range(100):
        cache.put(f"cold{i}", i)
        assert cache.get("hot") is hot  # touched each round: never ages out
        assert len(cache) <= 8
    assert cache.get("cold0") is None  # aged out
    assert cache.get("cold99") == 99
    with pytest.raises(ValueError):
        TextCache(0)


# -- streaming ------------------------------------------------------------------------


def test_old_form_reads_about_one_chunk_ahead():
    text = _old_pool(3000)
    assert len(text) > 6 * OLD_CHUNK
    lines = text.splitlines(keepends=True)
    longest = max(len(line) for line in lines)
    stream = LineGuard(lines)
    ads = parse_ads(stream, "auto")
    first = next(ads)
    assert first["Name"] == Literal("slot0@host")
    # Format detection takes one line, then one batch of whole lines.
    assert stream.chars_taken() <= len(lines[0]) + OLD_CHUNK + longest
    end_of_ad = text.index("\n\n") + 2  # of ad 0
    for i, ad in enumerate(ads, 1):
        assert ad["Name"] == Literal(f"slot{i}@host")
        end_of_ad = text.index("\n\n", end_of_ad) + 2
        assert stream.chars_taken() <= end_of_ad + OLD_CHUNK + longest
    assert i == 2999


def test_json_reads_about_one_chunk_ahead():
    ads_in = [{"Name": f"slot{i}@host", "Cpus": 1, "Pad": "x" * 200} for i in range(2000)]
    text = "[\n" + "\n,\n".join(json.dumps(ad, indent=2) for ad in ads_in) + "\n]\n"
    assert len(text) > 6 * CHUNK
    stream = LineGuard(text.splitlines(keepends=True))
    ads = parse_ads(stream, "auto")
    assert next(ads)["Name"] == Literal("slot0@host")
    assert stream.chars_taken() <= 2 * CHUNK + 1000
    end_of_ad = 0
    for i, ad in enumerate(ads, 1):
        assert ad["Name"] == Literal(f"slot{i}@host")
        # What was read never runs far ahead of the ad just yielded.
        end_of_ad = text.index(f'"slot{i}@host"', end_of_ad)
        assert stream.chars_taken() <= end_of_ad + 3 * CHUNK
    assert i == 1999


def test_json_error_far_into_a_stream_has_file_positions():
    ads_in = [{"Name": f"slot{i}", "Cpus": 1} for i in range(3000)]
    body = [json.dumps(ad, indent=2) for ad in ads_in]
    body[2500] = body[2500].replace('"Cpus": 1', '"Cpus": 1 2')
    text = "[\n" + "\n,\n".join(body) + "\n]\n"
    bad_offset = text.index('"Cpus": 1 2') + len('"Cpus": 1 ')
    line = text.count("\n", 0, bad_offset) + 1
    column = bad_offset - (text.rfind("\n", 0, bad_offset) + 1) + 1
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads(LineGuard(text.splitlines(keepends=True)), "json", filename="p.json"))
    err = info.value
    assert (err.line, err.column, err.filename) == (line, column, "p.json")
    assert err.source_line == '  "Cpus": 1 2'
    # Same answer when the whole text is given at once.
    with pytest.raises(ClassAdSyntaxError) as whole:
        list(parse_ads(text, "json"))
    assert (whole.value.line, whole.value.column) == (line, column)


def test_json_expr_marker_and_nul_checks_work_across_reads():
    """The \\/Expr( marker and the \\u0000 check see every piece, however it is split."""
    items = ['{"A": "\\/Expr(x + ' + str(i) + ')\\/", "B": "/Expr(y)/"}' for i in range(3000)]
    text = "[\n" + "\n,\n".join(items) + "\n]\n"
    ads = list(parse_ads(LineGuard(text.splitlines(keepends=True)), "json"))
    assert len(ads) == 3000
    assert isinstance(ads[2999]["A"], Binary)
    assert ads[2999]["B"] == Literal("/Expr(y)/")
    cut = text.index("\n", len(text) // 2) + 1
    broken = text[:cut] + '{"C": "\\u0000"},\n' + text[cut:]
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads(LineGuard(broken.splitlines(keepends=True)), "json"))
    assert "NUL" in info.value.message
    assert info.value.line == text.count("\n", 0, cut) + 1


# -- new form: chunked streaming and the line fast path agree with a whole parse ------

_NAMES = ["A", "b", "'q]x'", "Name", "a"]
_VALUES = [
    "1", '"a]b"', '"x\\"]"', '"http://h/*x*/"', "{ [ n = 1 ], 2 }", "[ n = [ m = 2 ] ]",
    "x[0]", "/* ] [ */ 3", '"multi\n]line"', "1 // c ;", "y ?: 2", "-1.5e3", "true",
    "a /\n b", "undefined", "f(1, [c = 2])", '"q\\\\"', "1 +", "]",
]
_SEPS = [";", "; ", ";\n    ", "\n;", ";;", " ; // ]\n", "\n"]
_BETWEEN = ["", "\n", "\n\n", " // c ]\n", "/* [ */\n"]


def _whole(text):
    from condorlite.core.classad.parser import parse_records

    return [list(record.attrs) for record in parse_records(text)]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(_VALUES),
                                    st.sampled_from(_SEPS)), max_size=4),
                min_size=1, max_size=4),
       st.lists(st.sampled_from(_BETWEEN), min_size=4, max_size=4),
       st.booleans())
def test_new_form_chunks_agree_with_a_whole_parse(records, between, pretty):
    parts = []
    for record, sep in zip(records, between, strict=False):
        body = "".join(f"\n    {n} = {v}{s}" if pretty else f"{n} = {v}{s}"
                       for n, v, s in record)
        parts.append(sep + ("[" + body + "\n]" if pretty else "[ " + body + " ]"))
    text = "".join(parts) + "\n"
    try:
        expected = _whole(text)
    except ClassAdSyntaxError:
        with pytest.raises(ClassAdSyntaxError):
            list(parse_ads(io.StringIO(text), "new"))
        return
    for _ in range(2):  # the second time through the line caches
        got = list(parse_ads(io.StringIO(text), "new"))
        assert [ad.items() for ad in got] == expected


def test_new_form_pretty_records_share_exprs_and_stream():
    from condorlite.core.classad import write_ads

    ads = list(parse_ads(_old_pool(300), "old"))
    text = write_ads(ads, "new")
    stream = LineGuard(text.splitlines(keepends=True))
    got = parse_ads(stream, "new")
    first = next(got)
    assert stream.taken <= text[: text.index("]") + 2].count("\n") + 2
    rest = list(got)
    assert [ad.items() for ad in [first, *rest]] == [ad.items() for ad in ads]
    assert _expr(rest[-1], "Requirements") is _expr(first, "Requirements")


def test_new_form_error_positions_are_file_positions():
    good = "[\n  A = 1;\n  B = \"x\"\n]\n" * 50
    text = good + "[\n  C = 1;\n  D = (2 +;\n]\n"
    with pytest.raises(ClassAdSyntaxError) as info:
        list(parse_ads(LineGuard(text.splitlines(keepends=True)), "new", filename="n.ad"))
    err = info.value
    assert (err.line, err.filename) == (50 * 4 + 3, "n.ad")
    assert err.column == len("  D = (2 +") + 1
    assert err.source_line == "  D = (2 +;"


def test_json_same_name_with_equal_values_of_other_types():
    """(name, 1), (name, 1.0), (name, true) are equal Python keys: each type has its
    own cache, and -0.0 is never confused with 0.0."""
    docs = ['{"A": 1}', '{"A": 1.0}', '{"A": true}', '{"A": 0}', '{"A": 0.0}',
            '{"A": -0.0}', '{"A": false}', '{"A": "1"}']
    expected = [(int, 1), (float, 1.0), (bool, True), (int, 0), (float, 0.0),
                (float, -0.0), (bool, False), (str, "1")]
    for _ in range(2):
        got = [parse_ads(doc, "json").__next__()["A"].value for doc in docs]
        assert [(type(v), v) for v in got] == expected
        assert [math.copysign(1, v) for v in got[4:6]] == [1, -1]
    # Also all in one stream, each ad after the others.
    ads = list(parse_ads("[" + ",".join(docs * 2) + "]", "json"))
    assert [(type(ad["A"].value), ad["A"].value) for ad in ads] == expected * 2
