"""The compiled old-form scanner (``oldscan.py``, ``_oldscan/``) reads what the Python
reader (``oldform.py``) reads: the same ads (names, spellings, values and their types,
order), and on bad input the same ads first, then the same error at the same line and
column. Checked on real ads, on generated realistic pools, and on generated hostile
text, read whole and from files in pieces as small as a few characters, with tables
small enough that their generations roll many times."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAdSyntaxError, oldscan
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.interning import clear_all
from tests.benchmarks._load import load

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE,
                                reason="the compiled scanner was not built")

ADS = Path(__file__).resolve().parents[1] / "data" / "classad-ads"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _file(data: bytes, encoding: str = "utf-8", errors: str = "surrogateescape"
          ) -> io.TextIOWrapper:
    """A text file object over ``data`` as ``store.adfiles`` opens files."""
    return io.TextIOWrapper(oldscan.FileBytes(io.BytesIO(data)), encoding=encoding,
                            errors=errors, newline="\n")


def _outcome(text: str, *, scanner: bool, as_file: bool, monkeypatch,
             as_bytes: bool = False) -> tuple:
    """(ads, error) of reading ``text`` as old form with one reader (``as_bytes``:
    from a text file object over ``FileBytes`` of its UTF-8 bytes, as
    ``store.adfiles`` opens files): each
    ad as its
    (key, spelling, repr of the expression) in order (``repr`` tells 1 from 1.0 and
    True, -0.0 from 0.0, and shows NaN), the error as its fields."""
    if scanner:
        monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    else:
        monkeypatch.setenv("CONDORLITE_PURE_PYTHON", "1")
    clear_all()
    if as_bytes:
        source = _file(text.encode("utf-8", "surrogateescape"))
    else:
        source = io.StringIO(text, newline="\n") if as_file else text
    ads: list = []
    error = None
    #: each reader mark (``ClassAd.layout``) -> the names of the first ad with it
    marks: dict[int, list[str]] = {}
    kept = []  # (the marks stay alive, so their ids are never reused)
    firsts: dict[int, dict] = {}  # each mark -> the table of the first ad with it
    try:
        for batch in parse_ad_lists(source, "old", filename="t.ads", newline_only=True):
            ads.extend([(key, spelling, repr(expr)) for key, (spelling, expr)
                        in ad._attrs.items()] for ad in batch)
            for ad in batch:
                if ad.layout is not None:
                    kept.append(ad.layout)
                    # the invariants the grouping relies on: one mark, one list of names,
                    # and the first ad's very entries at every name not in the mark
                    assert marks.setdefault(id(ad.layout), list(ad._attrs)) == list(ad._attrs)
                    first = firsts.setdefault(id(ad.layout), ad._attrs)
                    assert all(entry is first[key] for key, entry in ad._attrs.items()
                               if key not in ad.layout)
    except ClassAdSyntaxError as exc:
        error = (exc.kind, exc.line, exc.column, exc.message, exc.filename, str(exc))
    if not scanner:
        assert not marks  # (the Python reader marks nothing)
    return ads, error


def _agree(text: str, monkeypatch, *, chunk: int | None = None,
           limit: int | None = None) -> tuple:
    """Assert both readers agree on ``text`` read whole and as a file (in pieces of
    ``chunk`` characters, with ``limit`` lines a table generation); return the
    Python reader's outcome."""
    with monkeypatch.context() as m:
        if chunk is not None:
            m.setattr(oldscan, "CHUNK", chunk)
        if limit is not None:
            m.setattr(oldscan, "LIMIT", limit)
        want = _outcome(text, scanner=False, as_file=True, monkeypatch=m)
        for as_file, as_bytes in ((False, False), (True, False), (True, True)):
            got = _outcome(text, scanner=True, as_file=as_file, monkeypatch=m,
                           as_bytes=as_bytes)
            assert got == want, (as_file, as_bytes, chunk, limit)
    return want


def _old_form_files() -> list[Path]:
    """The real ad files (tests/data/classad-ads, examples/) in the old form."""
    files = sorted(p for p in ADS.glob("*") if p.suffix in (".ads", ".ad", ".txt"))
    files += sorted(EXAMPLES.glob("*.ads"))
    return [p for p in files if p.is_file() and p.read_text(
        encoding="utf-8", errors="surrogateescape").lstrip()[:1] not in ("[", "{", "/")]


@pytest.mark.parametrize("path", _old_form_files(), ids=lambda p: p.name)
def test_real_ads_read_the_same(path: Path, monkeypatch) -> None:
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    _agree(text, monkeypatch)
    _agree(text, monkeypatch, chunk=97, limit=3)


@pytest.mark.parametrize("row", ["static-mix", "partitionable-mix", "claimed-preemption"])
def test_realistic_pools_read_the_same(row: str, tmp_path: Path, monkeypatch) -> None:
    """Generated pools with per-slot unique numbers, escaped strings, reals and
    negative numbers, partitionable and claimed slots (benchmarks/negotiate_real.py)."""
    real = load("negotiate_real")
    files, _ = real.ensure_pool(row, real.row_spec(row, 60, 400, 6, 20, 3), tmp_path)
    for path, count in ((files.slots_path, files.slots), (files.jobs_path, files.jobs)):
        text = path.read_text()
        ads, error = _agree(text, monkeypatch)
        assert error is None and len(ads) == count > 0
        _agree(text, monkeypatch, chunk=4096, limit=50)


def test_values_the_scanner_reads_itself(monkeypatch) -> None:
    """Strings without a quote inside and short decimal integers: the same Literals
    the Python reader makes; the rest is left to it."""
    text = ('S = "plain"\nE = ""\nB = "back\\\\slash"\nT = "tail\\"\nQ = "a\\"b"\n'
            "I = 42\nZ = 0\nM = 123456789012345678\nN = 1234567890123456789\n"
            "G = -5\nR = 1.5\n  Pad\t=\t7 \t\r\n")
    ads, error = _agree(text, monkeypatch)
    assert error is None
    assert [(spelling, value) for _, spelling, value in ads[0]] == [
        ("S", "Literal(value='plain')"), ("E", "Literal(value='')"),
        ("B", "Literal(value='back\\\\\\\\slash')"), ("T", "Literal(value='tail\\\\')"),
        ("Q", "Literal(value='a\"b')"), ("I", "Literal(value=42)"), ("Z", "Literal(value=0)"),
        ("M", "Literal(value=123456789012345678)"),
        ("N", "Literal(value=1234567890123456789)"), ("G", "Literal(value=-5)"),
        ("R", "Literal(value=1.5)"), ("Pad", "Literal(value=7)")]


def test_lines_repeat_as_one_pair_within_a_read() -> None:
    text = "".join(f'Name = "s{i}"\nCpus = 1\nArch = "X86_64"\n\n' for i in range(5))
    ads = [ad for batch in parse_ad_lists(text, "old") for ad in batch]
    assert len({id(ad._attrs["cpus"]) for ad in ads}) == 1
    assert len({id(ad._attrs["arch"][1]) for ad in ads}) == 1
    assert len({ad._attrs["name"][1].value for ad in ads}) == 5


def test_lines_repeated_at_their_position(monkeypatch) -> None:
    """A line equal to the previous ad's line at the same position takes that line's
    pair, and a new line whose head is the last one's at its position takes that
    name; lines of equal length that differ at their end, a comment in between, a line
    too long to keep, non-Latin-1 text (pieces of another kind), a shifted layout, a
    name spelled another way, a long name and another name read as the Python reader
    reads them."""
    long = 'L = "' + "y" * 5000 + '"\n'
    text = "".join(
        f'A = 1\nB = "v{i % 2}"\n# c\nC = "same"\n{long}D = {i}\n'
        f'E = "\u20ac{i % 3}"\nF = "abcdefghijklmnopqrstuvwxyz{i}"\n'
        + ('Z = 0\n' if i == 3 else '') + 'G = "end"\n'
        + f'{"Cpus" if i % 2 else "CPUS"} = {i}\n{"N" * 60} = {i}\n'
        + f'{"MyA" if i == 4 else "MyB"} = {i}\n\n'
        for i in range(7))
    ads, error = _agree(text, monkeypatch)
    assert error is None and len(ads) == 7
    assert [ad[4][2] for ad in ads] == [f"Literal(value={i})" for i in range(7)]
    assert [ad[6][2] for ad in ads] == [f"Literal(value='abcdefghijklmnopqrstuvwxyz{i}')"
                                        for i in range(7)]
    for chunk in (7, 64, 5003):
        _agree(text, monkeypatch, chunk=chunk, limit=1)
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    read = [ad for batch in parse_ad_lists(text, "old") for ad in batch]
    assert len({id(ad._attrs["a"]) for ad in read}) == 1
    assert len({id(ad._attrs["g"]) for ad in read}) == 1
    assert [next(k for k in ad._attrs.values() if k[0] in ("Cpus", "CPUS"))[0]
            for ad in read] == ["CPUS", "Cpus"] * 3 + ["CPUS"]


def test_per_ad_values_then_repeats_at_one_position(monkeypatch) -> None:
    """A position whose lines were new, values and all, is read without the line
    table; when its values start to repeat (an owner alternating after a run of new
    ones), the lines are found again and shared, and the ads read as the Python
    reader reads them."""
    owners = [f"n{i}" for i in range(5)] + ["u1", "u2"] * 4 + ["n2", "n9"]
    text = "".join(f'ProcId = {i}\nOwner = "{o}"\nX = {i}.5\nQ = "{o}"\n\n'
                   for i, o in enumerate(owners))
    ads, error = _agree(text, monkeypatch)
    assert error is None and [ad[1][2] for ad in ads] == [
        f"Literal(value='{o}')" for o in owners]
    _agree(text, monkeypatch, chunk=9, limit=2)
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    read = [ad for batch in parse_ad_lists(text, "old") for ad in batch]
    late = [(ad._attrs["owner"][1].value, id(ad._attrs["owner"])) for ad in read[9:13]]
    assert late[0][1] == late[2][1] and late[1][1] == late[3][1]
    # a value held under two names is one Literal, read either way
    assert all(ad._attrs["owner"][1] is ad._attrs["q"][1] for ad in read)


def test_ads_with_the_previous_ads_names(monkeypatch) -> None:
    """An ad holding the previous ad's names in the same order starts from a copy of
    its dict; the same names in another order, another name at one position, a name
    repeated, or one line more or fewer read as the Python reader reads them (order
    of the names included)."""
    layouts = [("A", "B", "C"), ("A", "B", "C"), ("B", "A", "C"), ("A", "B", "D"),
               ("A", "B", "C"), ("A", "B", "B"), ("A", "B", "C"), ("A", "B"),
               ("A", "B", "C", "E"), ("A", "B", "C")]
    text = "".join("".join(f"{name} = {i * 10 + k}\n" for k, name in enumerate(names))
                   + "\n" for i, names in enumerate(layouts))
    ads, error = _agree(text, monkeypatch)
    assert error is None
    assert [[key for key, _, _ in ad] for ad in ads] == [
        ["a", "b", "c"], ["a", "b", "c"], ["b", "a", "c"], ["a", "b", "d"], ["a", "b", "c"],
        ["a", "b"], ["a", "b", "c"], ["a", "b"], ["a", "b", "c", "e"], ["a", "b", "c"]]
    for chunk in (5, 11):
        _agree(text, monkeypatch, chunk=chunk, limit=1)


def test_ads_of_one_run_of_names_share_a_mark(monkeypatch) -> None:
    """Consecutive ads with the same names in the same order share their reader mark
    (``ClassAd.layout``), whatever their values; another list of names starts a new
    one, and a change of an ad drops its mark."""
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    layouts = [("A", "B"), ("A", "B"), ("A", "B"), ("B", "A"), ("B", "A"), ("A", "B"),
               ("A", "B", "C"), ("A", "B")]
    text = "".join("".join(f"{name} = {i * 10 + k}\n" for k, name in enumerate(names))
                   + "\n" for i, names in enumerate(layouts))
    ads = [ad for batch in parse_ad_lists(text, "old", filename="t.ads", newline_only=True)
           for ad in batch]
    marks = [ad.layout for ad in ads]
    assert all(mark is not None for mark in marks[:-1])
    assert marks[0] is marks[1] is marks[2]
    assert marks[3] is marks[4] and marks[3] is not marks[0]
    assert len({id(mark) for mark in (marks[0], marks[3], marks[5], marks[6])}) == 4
    ads[1]["D"] = 1
    assert ads[1].layout is None and ads[0].layout is marks[0]
    del ads[3]["A"]
    assert ads[3].layout is None


def test_a_run_holds_its_first_ads_lines_but_at_the_names_of_its_mark(monkeypatch) -> None:
    """A run's mark is the set of names whose lines differ between its first two ads;
    a later ad with the same names stays in the run while it changes lines at those
    names only (a cluster's jobs: ProcId, GlobalJobId, ...), and starts a new run when
    it changes any other (the next cluster). An ad that repeats the one before stays."""
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    values = [(1, 1, 1), (2, 1, 1), (3, 1, 1), (4, 2, 1), (5, 2, 1), (5, 2, 1), (6, 3, 2)]
    text = "".join(f"A = {a}\nB = {b}\nC = {c}\n\n" for a, b, c in values)
    ads = [ad for batch in parse_ad_lists(text, "old", filename="t.ads", newline_only=True)
           for ad in batch]
    marks = [ad.layout for ad in ads]
    assert marks[0] is marks[1] is marks[2] and marks[0] == {"a"}
    assert marks[3] is marks[4] is marks[5] is not marks[0] and marks[3] == {"a"}
    assert marks[6] is not marks[3] and marks[6] == set()
    assert all(type(mark) is set for mark in marks)
    assert ads[2]._attrs["b"] is ads[0]._attrs["b"] and ads[5]._attrs["b"] is ads[3]._attrs["b"]


def test_errors_come_after_the_ads_before_them(monkeypatch) -> None:
    good = "A = 1\nB = \"x\"\n\n"
    for bad in ("C = 1 +\n", "= 3\n", "C == 3\n", "C = \"open\n", "9C = 1\n", "C = 1 2\n",
                'C = "a"b"\n', 'C = "a\\"b"c"\n', "C = 1.5.5\n", "C = -\n", "C = 1.\n",
                "C = 1.5e\n", "C = \"a\x00\"\n"):
        text = good * 3 + "A = 2\n" + bad + good
        ads, error = _agree(text, monkeypatch)
        assert len(ads) == 3 and error is not None and error[1] == 11
        _agree(text, monkeypatch, chunk=5, limit=1)


def test_blank_comment_and_line_end_lines(monkeypatch) -> None:
    text = ("# a comment\nA = 1\n   \nB = 2\r\n\t\n\nC = 3\n# x\nD = 4\f\n \r\n"
            "E = \"\\u00e9t\u00e9\"\nF = \"\u20ac\"\nG = \"\udc80\"\nH = 1")
    ads, error = _agree(text, monkeypatch)
    assert error is None and [len(ad) for ad in ads] == [1, 1, 2, 4]
    for chunk in (1, 2, 3, 7):
        _agree(text, monkeypatch, chunk=chunk, limit=2)


def test_repeated_names_keep_first_spelling_last_value(monkeypatch) -> None:
    text = "aa = 1\nBB = 2\nAA = 3\n\nx = 1\nX = 1\n"
    ads, _ = _agree(text, monkeypatch)
    assert ads[0] == [("aa", "aa", "Literal(value=3)"), ("bb", "BB", "Literal(value=2)")]
    assert ads[1] == [("x", "x", "Literal(value=1)")]


def test_a_huge_line_in_small_pieces(monkeypatch) -> None:
    text = 'A = "' + "x" * 50_000 + '"\nB = 1\n'
    ads, error = _agree(text, monkeypatch, chunk=10)
    assert error is None and len(ads[0]) == 2


_NAME = st.sampled_from(["A", "b", "Cpus", "cpus", "_x9", "9x", "", " A", "A ", "A\t",
                         "My.A", "a-b", "\u00e9"])
_VALUE = st.one_of(
    st.sampled_from(["1", "0", "007", "-0", "-12", "1.5", "-0.0", "1e3", "1.5e3", ".5",
                     "123456789012345678", "1234567890123456789", "99999999999999999999",
                     "true", "undefined", "x + 1", "(", "1 +", '"', '""', '"\\"',
                     '"a\\"b"', '"a"b"', "\"a\x00b\"", "{1, 2}", "[a = 1]", "== 1",
                     "= 1", "1 2", "\"\u20ac\"", '"\udc80"', "1.5e999", "-1.5E-3", "1.e5",
                     "0.5e", "1.5e+", "-007.25", "-", "--1", "-00", '"\\\\""', '"a\\"',
                     '"\\"\\""', "1" * 70 + ".5", "-" + "9" * 18, "-" + "9" * 19]),
    st.text(st.sampled_from('ab1 "\\=+-.eE\x00\u00e9\t'), max_size=8),
)
_LINE = st.one_of(
    st.builds(lambda n, sp1, v, sp2, end: f"{n}{sp1}={v}{sp2}{end}", _NAME,
              st.sampled_from(["", " ", " \t"]), st.builds(lambda s, v: s + v,
                                                           st.sampled_from(["", " "]), _VALUE),
              st.sampled_from(["", " ", "\t", "\r", "\f"]), st.sampled_from(["\n", "\r\n"])),
    st.sampled_from(["\n", "\n", "\n", "  \n", "\r\n", "# c\n", "#\n", "junk\n", "\x00\n",
                     "A = 1", "\u2028\n"]),
)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(_LINE, max_size=30), chunk=st.sampled_from([None, 1, 3, 16]),
       limit=st.sampled_from([None, 1, 4]))
def test_generated_text_reads_the_same(lines: list[str], chunk, limit, monkeypatch) -> None:
    _agree("".join(lines), monkeypatch, chunk=chunk, limit=limit)


@pytest.mark.parametrize("at", [0, 3, 5, 600])
def test_a_run_over_a_fresh_position_makes_it_tracked_again(at: int, monkeypatch) -> None:
    """A position whose last line was a per-ad value (fresh: read without the line
    table) that the next ad repeats in a run (``feed_run``: the run clears its
    positions' flags at once) is looked up and stored again: a later new line there is
    kept in the line table, so the same line further on is the same entry. Freshness
    is kept with each line (``LineRef.fresh``), at any position (600 too)."""
    lines = [f"P{k} = {k}\n" for k in range(max(at + 3, 6))]

    def ad(value: int) -> str:
        mine = list(lines)
        mine[at] = f'V = "x{value}"\n'  # (a value no other line holds)
        return "".join(mine)

    # 0, 1: new values (fresh); 1 again: a run over the position; 7: new, stored;
    # 8: new (fresh); 7: found in the table, the entry of the fourth ad
    text = "\n".join(ad(v) for v in (0, 1, 1, 7, 8, 7)) + "\n"
    got, error = _agree(text, monkeypatch)
    assert error is None and len(got) == 6
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    read = [ad for batch in parse_ad_lists(text, "old") for ad in batch]
    assert [ad._attrs["v"][1].value for ad in read] == [f"x{v}" for v in (0, 1, 1, 7, 8, 7)]
    assert read[5]._attrs["v"] is read[3]._attrs["v"]


def test_runs_of_the_previous_ads_lines(monkeypatch) -> None:
    """Ads that repeat the previous ad's lines in runs (``feed_run``) broken by a
    changed value, a comment, a line too long to keep (``ADLINES_KEEP_MAX``), a
    non-ASCII value and a changed name, read whole, as text and as bytes in pieces
    that cut runs anywhere; the last ad has no line end."""
    long = 'L = "' + "x" * 5000 + '"\n'
    base = ["A = 1\n", 'B = "two"\n', long, "C = x + 1\n", 'D = "\u00e9"\n', "E = 5\n"]
    ads = []
    for k in range(14):
        lines = list(base)
        lines[k % len(base)] = lines[k % len(base)].replace("1", str(k), 1)
        if k % 4 == 3:
            lines.insert(2, "# a comment\n")
        if k % 5 == 4:
            lines[5] = "F = 5\n"
        ads.append("".join(lines))
    text = "\n".join(ads) + "\n" + "".join(base).rstrip("\n")
    got, error = _agree(text, monkeypatch)
    assert error is None and len(got) == 15
    for chunk in (7, 64, 700, 6000):
        _agree(text, monkeypatch, chunk=chunk, limit=3)


def test_file_text_is_read_as_bytes(monkeypatch) -> None:
    """A text file object decoding UTF-8 with surrogateescape over ``FileBytes`` is
    read as bytes after its head lines; any other text file object is read as text."""
    data = b"A = 1\n\nB = 2\n"
    wanted = _file(data)
    head = [wanted.readline()]
    raw = oldscan._bytes_of(wanted, head)
    assert raw is not None and raw.read() == b"\nB = 2\n"
    for other in (io.StringIO("A = 1\n"),
                  io.TextIOWrapper(io.BytesIO(data), encoding="utf-8",
                                   errors="surrogateescape", newline="\n"),
                  _file(data, encoding="latin-1"), _file(data, errors="strict")):
        assert oldscan._bytes_of(other, []) is None


def test_one_mark_for_a_run_across_pieces_to_the_last_ad(monkeypatch) -> None:
    """Ads with the previous ad's names in the same order share one mark
    (``ClassAd.layout``) across the pieces a file is read in, the input's last ad
    (no line end) included; an ad with other names starts a new run."""
    text = "".join(f"A = {k}\nB = {k + 1}\n\n" for k in range(5)) + "C = 1\n\nC = 2"
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    for chunk in (8, 1 << 20):
        monkeypatch.setattr(oldscan, "CHUNK", chunk)
        source = _file(text.encode())
        ads = [ad for batch in parse_ad_lists(source, "old", newline_only=True)
               for ad in batch]
        marks = [ad.layout for ad in ads]
        assert len(ads) == 7 and None not in marks
        assert len({id(m) for m in marks[:5]}) == 1 and marks[5] is marks[6] is not marks[0]


def test_the_scanners_ads_are_built_as_from_attrs_builds_them() -> None:
    """``oldscan._FROM_ATTRS`` sets ClassAd's three slots (a slot added to ClassAd
    must be added there too)."""
    from condorlite.core.classad.ad import TABLE_SLOT, ClassAd

    assert sorted(ClassAd.__slots__) == sorted([TABLE_SLOT, "layout", "parent"])
    mark = object()
    attrs = {"a": ("A", None)}
    ad = oldscan._FROM_ATTRS(attrs, mark)
    want = ClassAd._from_attrs(attrs, mark)
    assert type(ad) is ClassAd and ad._attrs is attrs and ad.layout is mark
    assert ad.parent is None and want.parent is None


def test_ads_of_a_recent_ads_names(monkeypatch) -> None:
    """An ad whose names are not the previous ad's but a recent one's, the same in the
    same order, starts from a copy of that ad's dict (``ads.c``: shapes): interleaved
    kinds of ads with per-ad values, a kind with a name repeated (never a shape), one
    with the same names in another order, more kinds than the scanner keeps, and the
    pieces of a file, after which no earlier ad's dict is copied. Both readers agree,
    the dicts' key order included."""
    kinds = [("A", "B", "C"), ("A", "B", "C", "D"), ("A", "C", "B"), ("A", "B", "B"),
             *[("A", f"K{k}", "B") for k in range(10)]]
    order = [0, 1, 0, 1, 1, 2, 0, 3, 1, 0, 2, 3, 3, *range(4, 14), 0, 1, 2, *range(4, 14),
             0, 13, 1]
    text = "".join(
        "".join(f'{name} = {"1" if k % 2 else f"{i * 10 + k}"}\n'
                for k, name in enumerate(kinds[kind])) + "\n"
        for i, kind in enumerate(order))
    ads, error = _agree(text, monkeypatch)
    assert error is None and len(ads) == len(order)
    assert [[key for key, _, _ in ad] for ad in ads][:4] == [
        ["a", "b", "c"], ["a", "b", "c", "d"], ["a", "b", "c"], ["a", "b", "c", "d"]]
    for chunk in (9, 40, 200):
        _agree(text, monkeypatch, chunk=chunk, limit=2)


def test_names_found_by_their_text(monkeypatch) -> None:
    """Names the scanner keeps by their text (``plain.c``) read as the Python reader
    reads them: a name that is a prefix of another, names in other cases, at shifting
    positions, heads with blanks, tables small enough to roll, and a head that is not
    a plain name."""
    heads = ["Cpus", "CpusX", "cpus ", "CPUS\t", "Cp", "Memory", "memory  ", "MemoryX"]
    ads = []
    for i in range(24):
        shift = ["Z = 1\n"] * (i % 3)
        picked = [heads[(i + k) % len(heads)] for k in range(3)]
        ads.append("".join(shift) + "".join(f"{h}= {i + k}\n"
                                            for k, h in enumerate(picked)))
    text = "\n".join(ads) + "\n"
    got, error = _agree(text, monkeypatch)
    assert error is None and len(got) == 24
    for chunk in (13, 100):
        _agree(text, monkeypatch, chunk=chunk, limit=1)
    # a head that is not a plain name stops both readers at the same line and column
    _, error = _agree(text + "Mem-ory = 1\n", monkeypatch, chunk=13, limit=1)
    assert error is not None


@pytest.mark.parametrize("ending", ["", "\n", "nul"])
def test_repeated_lines_compared_in_blocks(ending: str, monkeypatch) -> None:
    """Runs of the previous ad's lines (``adlines.c``: common_prefix, 32 bytes at a
    time) that differ at every offset of a block, in long and short lines (one whose
    text goes on where the previous ad's line ends), with
    CRLF ends, quotes and escapes in repeated text, non-ASCII bytes, a line of a
    megabyte, and at the end a last line without its line end, with one, or a NUL
    in a string (an error after every ad before it)."""
    base = ['Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa = "' + "q" * 70 + '"\n',
            'B = "say \\"hi\\" \\\\n there"\n', "C = 1\r\n", 'D = "caf\u00e9"\n',
            "E = 12345678901234567\n", 'F = "' + "m" * (1 << 20) + '"\n', "H = 7\n"]
    ads = ["".join(base)]
    for cut in [*range(0, 40, 3), *range(44, 114, 3)]:  # in the name, in the value
        lines = list(base)
        first = lines[0]
        lines[0] = first[:cut] + "x" + first[cut + 1:]
        ads.append("".join(lines))
        ads.append("".join(base))
    for k in range(40):  # a line that is the previous ad's with more before its end
        ads.append("".join(base[:2]) + f"Q = r{'x' * k}\n" + "".join(base[2:]))
        ads.append("".join(base[:2]) + f"Q = r{'x' * k}y\n" + "".join(base[2:]))
    last = 'G = "nul\x00here"\n' if ending == "nul" else "Z = 1" + ending
    text = "\n".join(ads) + "\n" + "".join(base[:4]) + last
    got, error = _agree(text, monkeypatch)
    assert len(got) == len(ads) + (ending != "nul")
    assert (error is not None) == (ending == "nul")
    _agree(text, monkeypatch, chunk=1 << 16, limit=4)
