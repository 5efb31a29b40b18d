"""The compiled JSON reader (``jsonscan.py``, ``_oldscan/jsonlines.c``) against the
general JSON reader and the Python line reader (``jsonfast.py``): the same ads (names,
spellings, values, value types, order), and for bad input the same error (kind,
message, line, column), whatever the layout, the piece size and where a hand over
falls."""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAdSyntaxError, jsonscan, oldscan
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.interning import clear_all
from condorlite.core.classad.jsonread import read_json_ads
from tests.classad.test_jsonfast import _MEMBER_NAMES, _MEMBER_VALUES, _ads, documents

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE, reason="the scanner is not built")


def _general(text: str) -> object:
    try:
        return _ads(read_json_ads(text))
    except ClassAdSyntaxError as exc:
        return ("error", exc.kind, exc.message, exc.line, exc.column)


def _read(source: object, monkeypatch: pytest.MonkeyPatch, pure: bool = False) -> object:
    """The ads of a file object that ends lines at ``\\n`` alone, as ``read_ads``
    reads a file: the compiled reader, or the Python one with ``pure``."""
    with monkeypatch.context() as patch:
        if pure:
            patch.setenv("CONDORLITE_PURE_PYTHON", "1")
        try:
            return _ads(ad for ads in parse_ad_lists(source, "json", newline_only=True)
                        for ad in ads)
        except ClassAdSyntaxError as exc:
            return ("error", exc.kind, exc.message, exc.line, exc.column)


@settings(max_examples=500, deadline=None)
@given(documents(), st.sampled_from([1, 7, 30, 200, 1 << 20]), st.booleans())
def test_the_compiled_reader_reads_what_the_general_reader_reads(text, chunk, cold):
    """Any layout, damage and piece size (a hand over inside an ad whose "{" is pieces
    back; an input cut inside an ad or between two)."""
    expected = _general(text)
    if cold:
        clear_all()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(oldscan, "CHUNK", chunk)
        assert _read(io.StringIO(text, newline="\n"), patch) == expected
        assert _read(text, patch) == expected
        assert _read(io.StringIO(text, newline="\n"), patch, pure=True) == expected


#: numbers at the edges of JSON's grammar, which the old form's reals do not share
_NUMBERS = st.sampled_from(["01.5", "-01.5", "1.", ".5", "1.5e", "1E+2", "-0.0", "0.0",
                            "1.0e999", "-1.25e-3", "00", "-", "1.5.2", "123456789012345678",
                            "1234567890123456789", '"\u00e9"', '"\xe9t\xe9"'])


@settings(max_examples=400, deadline=None)
@given(_MEMBER_NAMES, st.one_of(_MEMBER_VALUES, _NUMBERS), st.sampled_from(["", " ", "\t"]),
       st.sampled_from(["", " ", "\r"]), st.integers(0, 2))
def test_member_lines_read_in_c_are_the_decoders(name, value, indent, space, where):
    """A member line of every kind the C shortcut takes or refuses (escapes, non-ASCII,
    leading zeros, exponents, big integers, constants, nested values, two values),
    first, in the middle or last of an ad, after ads that had other values there."""
    others = [f'{{\n  "{name}": {v},\n  "Z": 1\n}}' for v in ("1", '"s"', "2.5")]
    line = f'{indent}"{name}":{space}{value}{space}'
    members = [line, '  "Y": 2'] if where == 0 else (
        ['  "X": 0', line + ",", '  "Y": 2'] if where == 1 else ['  "X": 0', line])
    for i, member in enumerate(members[:-1]):
        if not member.endswith(","):
            members[i] = member + ","
    text = "[\n" + ",\n".join([*others, "{\n" + "\n".join(members) + "\n}"]) + "\n]\n"
    clear_all()
    with pytest.MonkeyPatch.context() as patch:
        assert _read(io.StringIO(text, newline="\n"), patch) == _general(text)


def test_unique_values_read_in_c_are_shared_as_the_python_reader_shares_them(
        monkeypatch) -> None:
    """A queue's per-job values (GlobalJobId twice per ad, Args, ProcId, a real): the
    same ads as the Python reader, one Literal per value text within an ad."""
    ads = [{"ClusterId": 7, "ProcId": i, "GlobalJobId": f"s#7.{i}#1700000000",
            "SubmitterGlobalJobId": f"s#7.{i}#1700000000", "Args": f"--seed {i * 7919}",
            "Load": i / 8, "Owner": "alice", "Requirements": "\\/Expr(TARGET.Cpus > 0)\\/"}
           for i in range(300)]
    def member(name: str, value: object) -> str:
        text = f'"{value}"' if "Expr" in str(value) else json.dumps(value)
        return f'  "{name}": {text}'

    text = "[\n" + "\n,\n".join(
        "{\n" + ",\n".join(member(k, v) for k, v in ad.items()) + "\n}" for ad in ads
    ) + "\n]\n"
    compiled = [ad for ads in parse_ad_lists(io.StringIO(text, newline="\n"), "json",
                                             newline_only=True) for ad in ads]
    assert _ads(compiled) == _read(io.StringIO(text, newline="\n"), monkeypatch, pure=True)
    assert _ads(compiled) == _general(text)
    assert [ad["ProcId"].value for ad in compiled] == list(range(300))
    last = compiled[-1]._attrs
    assert last["globaljobid"][1] is last["submitterglobaljobid"][1]
    assert compiled[0]._attrs["owner"] is compiled[1]._attrs["owner"]  # a repeated line


def test_a_hand_over_pieces_after_the_ads_brace_reads_on(monkeypatch) -> None:
    """A nested value far into an ad that began several pieces back: the general
    reader reads that ad again from its "{" and the rest after it."""
    monkeypatch.setattr(oldscan, "CHUNK", 16)
    members = ",\n".join(f'  "A{i}": {i}' for i in range(40))
    text = ('[\n{\n  "First": 1\n}\n,\n{\n' + members + ',\n  "R": {\n    "In": 2\n  }\n}\n'
            ',\n{\n  "C": 4\n}\n]\n')
    ads = [ad for ads in parse_ad_lists(io.StringIO(text, newline="\n"), "json",
                                        newline_only=True) for ad in ads]
    assert [len(ad) for ad in ads] == [1, 41, 1]
    assert _ads(ads) == _general(text)


def test_an_input_cut_anywhere_fails_where_the_general_reader_fails(monkeypatch) -> None:
    text = '[\n{\n  "A": 1,\n  "B": "x"\n}\n,\n{\n  "A": 2\n}\n]\n'
    for cut in range(len(text) + 1):
        for chunk in (3, 1 << 20):
            monkeypatch.setattr(oldscan, "CHUNK", chunk)
            assert _read(io.StringIO(text[:cut], newline="\n"), monkeypatch) == _general(
                text[:cut]), (cut, chunk)


def test_the_kept_text_starts_at_the_line_asked_for() -> None:
    kept = jsonscan._Kept()
    for piece in ("a\nb\n", "c\n", "d\ne\nf"):
        kept.add(piece)
    assert kept.text_from(2) == "b\nc\nd\ne\nf"
    kept.drop_before(4)
    assert kept.text_from(4) == "d\ne\nf" and kept.text_from(6) == "f"
