"""``jsontext.dumps`` writes exactly what ``json.dumps`` writes, whichever way it goes."""

from __future__ import annotations

import json
import math
import os

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.cli import jsontext


def reference(doc: object) -> str:
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))


def marked(value: object) -> object:
    """``value`` with every float marked as a producer marks them (``real``)."""
    if isinstance(value, float):
        return jsontext.real(value)
    if isinstance(value, dict):
        return {k: marked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [marked(v) for v in value]
    return value


#: floats of every magnitude, the tiny ones (where orjson prints otherwise) often
floats = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False),
    st.floats(min_value=-1e-4, max_value=1e-4, allow_nan=False),
    st.sampled_from([1e-5, 2.5e-5, 9.999999999999999e-5, 1e-4, 1e-7, -3e-6, 1e16, 1e15]),
)
#: strings that look like what the fast path looks for, and control characters
texts = st.one_of(
    st.text(),
    st.sampled_from(["5e-3", "a:0.00001,", "e-1", "0.0000", "\x00\x1f\x7f\u2028", "\\\""]),
)
leaves = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), floats, texts)
documents = st.recursive(
    leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=5),
                            st.dictionaries(texts, inner, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_marked_documents_are_json_dumps_text(doc: object) -> None:
    assert jsontext.dumps(marked(doc)) == reference(doc)


@settings(max_examples=400, deadline=None)
@given(documents)
def test_unmarked_documents_are_json_dumps_text(doc: object) -> None:
    assert jsontext.dumps(doc) == reference(doc)


def test_tiny_floats_take_the_fast_way_when_marked() -> None:
    doc = {"share": jsontext.real(3.244236571508317e-05), "x": [jsontext.real(-7e-9)]}
    assert jsontext.dumps(doc) == '{"share":3.244236571508317e-05,"x":[-7e-09]}'
    assert jsontext.real(0.0) == 0.0 and type(jsontext.real(0.0)) is float
    assert type(jsontext.real(1e-4)) is float
    assert math.isnan(jsontext.real(math.nan))


def test_what_orjson_refuses_goes_to_json() -> None:
    assert jsontext.dumps({1: 2}) == reference({1: 2})  # a key that is no string
    assert jsontext.dumps([2**70]) == reference([2**70])  # past 64 bits
    assert jsontext.dumps(["\ud800"]) == reference(["\ud800"])  # a lone surrogate


# --- Rows: a long list encoded in two halves at once ----------------------------------


def _rows(items: list, monkeypatch=None) -> jsontext.Rows:
    return jsontext.Rows(items, lambda x: {"n": x, "v": marked(x / 7 if x else 1e-6)})


def test_rows_are_the_plain_list_text_whatever_the_split(monkeypatch) -> None:
    """Below, at and above PARALLEL_ROWS (lowered), odd and even lengths: the text is
    json.dumps's of the materialised list, inside a document."""
    from condorlite import forked

    monkeypatch.setattr(forked, "two_cores", lambda: True)
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    for chunk in (1, 2, 3, 8192):
        monkeypatch.setattr(jsontext, "CHUNK_ROWS", chunk)
        for size in (0, 1, 3, 4, 5, 8, 101):
            items = list(range(size))
            plain = [{"n": x, "v": x / 7 if x else 1e-6} for x in items]
            doc = {"jobs": _rows(items), "after": [1, 2]}
            assert jsontext.dumps(doc) == reference({"jobs": plain, "after": [1, 2]}), (
                chunk, size)


def test_rows_convert_a_chunk_at_a_time_and_iterate(monkeypatch) -> None:
    """Rows are converted and encoded CHUNK_ROWS at a time (so the converted rows of a
    large list never all exist at once); iterating and len give the rows as the views
    read them."""
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 4)
    converted: list[int] = [0]
    bursts: list[int] = []
    real_dumps = jsontext.orjson.dumps

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(orjson, name)

        @staticmethod
        def dumps(*args, **kwargs):  # type: ignore[no-untyped-def]
            bursts.append(converted[0])
            converted[0] = 0
            return real_dumps(*args, **kwargs)

    def convert(x: int) -> dict:
        converted[0] += 1
        return {"n": x}

    monkeypatch.setattr(jsontext, "orjson", Counting())
    rows = jsontext.Rows(list(range(10)), convert)
    assert jsontext.dumps({"r": rows}) == reference({"r": [{"n": x} for x in range(10)]})
    assert sorted(b for b in bursts if b) == [2, 4, 4]
    assert len(rows) == 10 and [r["n"] for r in rows] == list(range(10))


def test_rows_that_orjson_refuses_go_to_json_whole(monkeypatch) -> None:
    """A value orjson refuses (past 64 bits) in the child's half: the document is
    json's, with the list materialised."""
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    items = [1, 2, 3, 4, 5, 2**70]
    rows = jsontext.Rows(items, lambda x: [x])
    assert jsontext.dumps({"r": rows}) == reference({"r": [[x] for x in items]})


def test_rows_with_a_non_finite_number_print_as_null(monkeypatch, capsys) -> None:
    """render.print_json's non-finite path walks into Rows."""
    from condorlite.cli import render

    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 2)
    rows = jsontext.Rows([1.0, math.inf, 2.0], lambda x: {"x": x})
    render.print_json({"data": {"rows": rows}})
    assert json.loads(capsys.readouterr().out) == {"data": {"rows": [
        {"x": 1.0}, {"x": None}, {"x": 2.0}]}}


def test_rows_of_one_are_never_cut(monkeypatch) -> None:
    """Whatever PARALLEL_ROWS says, a list is cut only into two non-empty halves."""
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 1)
    for size in (0, 1, 2):
        rows = jsontext.Rows(list(range(size)), lambda x: {"n": x})
        assert jsontext.dumps({"r": rows}) == reference({"r": [{"n": x} for x in range(size)]})


def _fast_rows(items: list) -> jsontext.Rows:
    """Rows whose ``fast`` writes each row's repeated part (``{"k": x % 3}``, its float
    marked) as a ``written`` text."""
    parts = {m: jsontext.written({"k": marked(m / 3 if m else 1e-6)}) for m in range(3)}

    def convert(x: object) -> dict:
        m = x % 3 if isinstance(x, int) else 0
        return {"n": x, "part": {"k": marked(m / 3 if m else 1e-6)}}

    def fast(chunk: list) -> list:
        return [{"n": x, "part": parts[x % 3 if isinstance(x, int) else 0]} for x in chunk]

    return jsontext.Rows(items, convert, fast)


def test_fast_rows_are_the_plain_list_text(monkeypatch) -> None:
    """Rows made by ``fast`` (with ``written`` texts) give json.dumps's bytes of the
    plain list, whatever the chunks and halves; iterating gives ``convert``'s rows."""
    from condorlite import forked

    monkeypatch.setattr(forked, "two_cores", lambda: True)
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    for chunk in (1, 3, 8192):
        monkeypatch.setattr(jsontext, "CHUNK_ROWS", chunk)
        for size in (0, 1, 4, 5, 23):
            rows = _fast_rows(list(range(size)))
            plain = [{"n": x, "part": {"k": x % 3 / 3 if x % 3 else 1e-6}} for x in range(size)]
            assert jsontext.dumps({"r": rows}) == reference({"r": plain}), (chunk, size)
            assert list(rows) == plain


def test_fast_rows_that_orjson_refuses_are_made_by_convert(monkeypatch) -> None:
    """A chunk whose ``fast`` rows orjson refuses (an integer past 64 bits) or whose
    text shows a pattern (an unmarked tiny float) is made again by ``convert``: json
    writes it, and the other chunks stay orjson's."""
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 2)
    made: list[object] = []

    def convert(x: object) -> dict:
        made.append(x)
        return {"n": x}

    for odd in (2**70, 1e-5):
        made.clear()
        items = [1, 2, odd, 4, 5]
        rows = jsontext.Rows(items, convert, lambda chunk: [{"n": x} for x in chunk])
        assert jsontext.dumps({"r": rows}) == reference({"r": [{"n": x} for x in items]})
        assert made == [odd, 4], odd  # the one chunk that holds it, by convert


def test_written_is_orjson_text_or_the_value() -> None:
    """``written``: a checked orjson text in a row for orjson; the value itself when
    orjson refuses it or its text shows a pattern."""
    text = jsontext.written({"cpus": jsontext.real(2.0), "tiny": jsontext.real(3e-6)})
    assert orjson.dumps([text]) == b'[{"cpus":2.0,"tiny":3e-06}]'
    for refused in ({"x": 1e-5}, ["\ud800"], [2**70]):
        assert jsontext.written(refused) is refused


def test_suspect_needs_each_pattern_literal() -> None:
    """``_suspect`` looks for a pattern only where its literal is; both shapes of an
    unmarked tiny float are still found, first, last and alone."""
    for text in (b"1e-5", b'[1,2e-7]', b'{"a":0.00001}', b"0.00003", b"[-0.00002]"):
        assert jsontext._suspect(text), text
    for text in (b'"compute-0-1"', b"1e-10", b'"e-"', b"10.00001", b"", b'"x0.0000"'):
        assert not jsontext._suspect(text), text


# --- Encoded: a repeated value written and checked once --------------------------------


def wrapped(value: object, draw_wrap: list[bool]) -> object:
    """``value`` with its lists, dicts and strings wrapped in ``Encoded`` where
    ``draw_wrap`` says (cycled), the plain value elsewhere."""
    wrap = draw_wrap.pop(0) if draw_wrap else False
    draw_wrap.append(wrap)
    if isinstance(value, dict):
        inner: object = {k: wrapped(v, draw_wrap) for k, v in value.items()}
    elif isinstance(value, list):
        inner = [wrapped(v, draw_wrap) for v in value]
    else:
        inner = value
    if wrap and isinstance(inner, list | dict | str):
        return jsontext.Encoded(inner)
    return inner


@settings(max_examples=400, deadline=None)
@given(documents, st.lists(st.booleans(), min_size=1, max_size=7))
def test_documents_with_encoded_values_are_json_dumps_text(doc: object, wraps: list) -> None:
    """Marked or not, whatever is wrapped (strings that look like tiny floats, refused
    values, nested wraps): the text is json.dumps's of the plain document."""
    assert jsontext.dumps(wrapped(marked(doc), list(wraps))) == reference(doc)
    assert jsontext.dumps(wrapped(doc, list(wraps))) == reference(doc)


def test_a_shared_encoded_value_takes_the_fast_way() -> None:
    reasons = jsontext.Encoded(["cannot run in queue \"a.q\"", "(-l lic=3) offers 0.000000"])
    doc = {"waiting": [{"job": n, "reasons": reasons} for n in range(5)], "x": 0.5}
    plain = {"waiting": [{"job": n, "reasons": reasons.value} for n in range(5)], "x": 0.5}
    assert jsontext.fast_utf8(doc) == reference(plain).encode()


def test_an_encoded_value_that_looks_tiny_or_is_refused_goes_to_json() -> None:
    for value in (["5e-3"], [1e-05], {"a": [0.00001]}, [2**70], "a:0.00001,"):
        encoded = jsontext.Encoded(value)
        assert encoded.text is None
        assert jsontext.fast_utf8({"v": encoded}) is None
        assert jsontext.dumps({"v": [encoded, encoded]}) == reference({"v": [value, value]})
    # the check of the text around them still applies
    clean = jsontext.Encoded(["x"])
    assert clean.text == b'["x"]'
    assert jsontext.fast_utf8({"v": clean, "w": 1e-05}) is None
    assert jsontext.dumps({"v": clean, "w": 1e-05}) == reference({"v": ["x"], "w": 1e-05})


def test_only_lists_dicts_and_strings_are_encoded() -> None:
    """A number's text could end or start a pattern at its edges (module doc)."""
    for value in (1, 1.5, None, True, ("a",)):
        try:
            jsontext.Encoded(value)  # type: ignore[arg-type]
        except TypeError:
            continue
        raise AssertionError(f"{value!r} was encoded")


def test_rows_beside_encoded_values_are_converted_once(monkeypatch) -> None:
    """The document is written twice; its Rows are converted and encoded once."""
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 10**9)
    calls = []

    def convert(x: int) -> dict:
        calls.append(x)
        return {"n": x}

    doc = {"rows": jsontext.Rows([1, 2, 3], convert), "e": jsontext.Encoded({"k": "v"})}
    assert jsontext.fast_utf8(doc) == b'{"rows":[{"n":1},{"n":2},{"n":3}],"e":{"k":"v"}}'
    assert calls == [1, 2, 3]


def test_encoded_non_finite_numbers_print_as_null(capsys) -> None:
    """render.print_json's non-finite path unwraps Encoded values."""
    from condorlite.cli import render

    encoded = jsontext.Encoded([1.0, math.inf])
    render.print_json({"data": {"a": encoded, "b": [encoded], "c": math.nan}})
    assert json.loads(capsys.readouterr().out) == {
        "data": {"a": [1.0, None], "b": [[1.0, None]], "c": None}}


# --- write_utf8: the document a piece at a time ---------------------------------------


def test_rows_are_written_as_their_pieces_never_joined(monkeypatch) -> None:
    """Three lists of several pieces each, beside an Encoded value: the writes are the
    texts around the lists, the brackets and the pieces (a comma before each but the
    first); together they are json.dumps's text, and no write holds more than one
    piece of rows."""
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 3)
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 10**9)
    doc = {"a": jsontext.Rows(list(range(10)), lambda x: {"n": x}), "e": jsontext.Encoded(["v"]),
           "b": jsontext.Rows([], lambda x: x), "c": jsontext.Rows([0.5, 2.0], lambda x: [x])}
    plain = {"a": [{"n": x} for x in range(10)], "e": ["v"], "b": [], "c": [[0.5], [2.0]]}
    writes: list[bytes] = []
    assert jsontext.write_utf8(doc, writes.append)
    assert b"".join(writes) == reference(plain).encode() == jsontext.fast_utf8(doc)
    assert b'{"n":0},{"n":1},{"n":2}' in writes and b',{"n":9}' in writes
    assert max(len(w) for w in writes) < len(b',{"n":0},{"n":1},{"n":2},{"n":3}')


def test_a_piece_orjson_cannot_write_alone_goes_to_json_alone(monkeypatch) -> None:
    """An unmarked tiny float, an integer past 64 bits, a non-finite float: only the
    piece that holds it is written by json (the non-finite float as null, as render
    writes it); the rest, and the text around, by orjson; the bytes are json's."""
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 2)
    values = [1, 2, 3, 1e-05, 2**70, 5, math.inf, 0.5]
    doc = {"head": 1, "r": jsontext.Rows(values, lambda x: {"x": x})}
    safe = [None if isinstance(x, float) and math.isinf(x) else x for x in values]
    writes: list[bytes] = []
    assert jsontext.write_utf8(doc, writes.append)
    assert b"".join(writes) == reference({"head": 1, "r": [{"x": x} for x in safe]}).encode()
    assert b',{"x":3},{"x":1e-05}' in writes and b',{"x":null},{"x":0.5}' in writes


def test_nothing_is_written_when_only_json_can_write_the_text_around(monkeypatch) -> None:
    """An unmarked tiny float or a refused value outside the lists: no byte goes out,
    and the document goes to json whole."""
    for bad in (1e-05, 2**70):
        doc = {"head": bad, "r": jsontext.Rows([1, 2, 3], lambda x: {"x": x})}
        writes: list[bytes] = []
        assert not jsontext.write_utf8(doc, writes.append)
        assert writes == []
        assert jsontext.dumps(doc) == reference({"head": bad, "r": [{"x": x} for x in (1, 2, 3)]})


def test_the_childs_half_comes_back_as_bytes(monkeypatch) -> None:
    """A long list: the second half made by the forked child (or here, without a
    second core) is the same text."""
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 3)
    rows = jsontext.Rows(list(range(11)), lambda x: {"x": x / 7})
    assert jsontext.fast_utf8({"r": rows}) == reference(
        {"r": [{"x": x / 7} for x in range(11)]}).encode()


def test_print_json_streams_to_the_byte_layer(monkeypatch, capsysbinary) -> None:
    from condorlite.cli import render

    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 4)
    doc = {"data": {"rows": jsontext.Rows(list(range(9)), lambda x: {"x": x / 3})}}
    render.print_json(doc)
    out = capsysbinary.readouterr().out
    assert out == (reference({"data": {"rows": [{"x": x / 3} for x in range(9)]}}) + "\n").encode()


def test_a_child_that_fails_leaves_its_half_to_the_parent(monkeypatch) -> None:
    """The child dies making its half (its conversion raises there only): the parent
    makes that half itself, after its own, and the text is the same."""
    monkeypatch.setattr(jsontext, "PARALLEL_ROWS", 4)
    monkeypatch.setattr(jsontext, "CHUNK_ROWS", 2)
    parent = os.getpid()

    def convert(x: int) -> dict:
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return {"x": x}

    writes: list[bytes] = []
    assert jsontext.write_utf8({"r": jsontext.Rows(list(range(9)), convert)}, writes.append)
    assert b"".join(writes) == reference({"r": [{"x": x} for x in range(9)]}).encode()
