"""Lazy tables (``_oldscan/table.c``, ``_oldscan/ads.c``): the compiled scanner gives
an ad of a run of ads of the same names, from the run's third ad on, a lazy table (the
run's private base and the ad's own pairs); ``ClassAd._attrs`` makes it whole on its
first read, the very dict the copy made before (same keys, order, values, table
size). Everything reads and writes such an ad as any other; the C readers by offset
(``oldscan.gather``, ``oldscan.changes``) read it as it is; the Python reader's ads
(whole dicts) compare equal."""

from __future__ import annotations

import pickle
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from condorlite.core.classad import ClassAd, oldscan
from condorlite.core.classad.ad import TABLE_SLOT, LazyClassAd, table_entry
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.interning import clear_all

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE,
                                reason="the compiled scanner was not built")

#: the lazy ads' descriptor (the compiled module is built here)
_TABLE = LazyClassAd.__dict__["_attrs"]
#: ClassAd's member, read raw
_RAW = ClassAd.__dict__[TABLE_SLOT]


def _job(proc: int, *, cmd: str = "/bin/run", owner: str = "alice") -> str:
    return (f'ClusterId = 7\nProcId = {proc}\nCmd = "{cmd}"\nOwner = "{owner}"\n'
            f'Args = "-n {proc}"\nRequestCpus = 1\nRank = Memory\n'
            f'GlobalJobId = "s#7.{proc}#1"\n\n')


def _read(text: str, monkeypatch, *, pure: bool = False) -> list[ClassAd]:
    if pure:
        monkeypatch.setenv("CONDORLITE_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    ads: list[ClassAd] = []
    for batch in parse_ad_lists(text, "old", filename="t.ads", newline_only=True):
        ads.extend(batch)
    return ads


def _lazy(ads: list[ClassAd]) -> list[bool]:
    return [_TABLE.is_lazy(ad) for ad in ads]


def _as_copied(ad: ClassAd) -> dict:
    """What the scanner made before: the dict of the run's ad before it, copied, with
    the ad's own entries set (``attrs_from_template``)."""
    return dict(ad._attrs)


def test_a_runs_ads_are_lazy_from_its_third(monkeypatch) -> None:
    ads = _read("".join(_job(p) for p in range(6)), monkeypatch)
    assert _lazy(ads) == [False, False, True, True, True, True]
    raw = _RAW.__get__(ads[3])
    # the base and the own pairs at the mark's names (ProcId, Args, GlobalJobId)
    assert type(raw) is tuple and type(raw[0]) is dict
    assert sorted(name for name, _ in raw[1:]) == sorted(ads[3].layout)
    assert raw[0] is _RAW.__get__(ads[4])[0]  # one base for the run
    assert raw[0] is not ads[1]._attrs  # (a private copy: no ad holds it)
    pure = _read("".join(_job(p) for p in range(6)), monkeypatch, pure=True)
    for ad, want in zip(ads, pure, strict=True):
        assert ad == want
        assert list(ad._attrs.items()) == list(want._attrs.items())
    assert not any(_lazy(ads))  # (read whole above)


def test_a_whole_table_is_the_copy_the_scanner_made(monkeypatch) -> None:
    """Same keys in the same order, the very entry objects, the same table size."""
    ads = _read("".join(_job(p) for p in range(5)), monkeypatch)
    second = ads[1]._attrs
    for ad in ads[2:]:
        table = ad._attrs
        assert list(table) == list(second)
        assert sys.getsizeof(table) == sys.getsizeof(second)
        assert ad._attrs is table  # made whole once, then kept
        assert all(table[key] is second[key] for key in table if key not in ad.layout)


def test_reads_of_a_lazy_ad(monkeypatch) -> None:
    text = "".join(_job(p) for p in range(4))
    ads = _read(text, monkeypatch)
    want = _read(text, monkeypatch, pure=True)[3]
    ad = ads[3]
    assert table_entry(ad, "procid") == ("ProcId", want.lookup("ProcId"))
    assert table_entry(ad, "owner") == want._attrs["owner"]
    assert table_entry(ad, "nosuch") is None
    assert _TABLE.is_lazy(ad)  # (entry reads without making it whole)
    assert ad.lookup("procid") == want.lookup("procid")
    assert ad.evaluate("ProcId") == want.evaluate("ProcId") == 3
    assert ad.to_old() == want.to_old() and ad.to_json() == want.to_json()
    assert str(ad) == str(want) and repr(ad) == repr(want)
    assert len(ad) == len(want) and list(ad) == list(want) and "args" in ad


def test_writes_to_lazy_ads_and_their_runs_base(monkeypatch) -> None:
    text = "".join(_job(p) for p in range(6))
    ads = _read(text, monkeypatch)
    want = _read(text, monkeypatch, pure=True)
    # a change to the ad whose dict was the template, and to a lazy ad, reaches no other
    ads[1]["Owner"] = "mallory"
    ads[3]["Owner"] = "eve"
    del ads[4]["Args"]
    assert ads[3]["Owner"].value == "eve" and list(ads[3]) == list(want[3])
    assert "Args" not in ads[4] and ads[4].layout is None
    for at in (2, 5):
        assert _TABLE.is_lazy(ads[at])
        assert ads[at] == want[at] and ads[at]["Owner"].value == "alice"
    ads[5]._attrs = {"a": ("A", want[0]["ProcId"])}
    assert not _TABLE.is_lazy(ads[5]) and list(ads[5]) == ["A"]


def test_an_ad_leaving_the_run_is_whole_and_right(monkeypatch) -> None:
    """The same names, a line changed outside the mark: a new run, whose first ad is
    copied from the base with the mark's entries set too (not only those that differ
    from the lazy ad before)."""
    text = ("".join(_job(p) for p in range(4)) + _job(4, cmd="/bin/other")
            + "".join(_job(p) for p in range(5, 9)) + _job(9, owner="bob"))
    ads = _read(text, monkeypatch)
    want = _read(text, monkeypatch, pure=True)
    assert _lazy(ads) == [False, False, True, True, False, False, True, True, True, False]
    assert ads[4].layout is not ads[3].layout
    for ad, theirs in zip(ads, want, strict=True):
        assert list(ad._attrs.items()) == list(theirs._attrs.items())


def test_pickled_lazy_ads_come_back_equal(monkeypatch) -> None:
    ads = _read("".join(_job(p) for p in range(5)), monkeypatch)
    back = pickle.loads(pickle.dumps(ads, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == ads
    assert [list(ad._attrs.items()) for ad in back] == [list(ad._attrs.items()) for ad in ads]


def test_the_c_readers_by_offset(monkeypatch) -> None:
    """``changes`` reads a lazy table's names as the whole dict's; ``gather`` makes whole
    the tables of rows that start a run within its rows, and no others."""
    ads = _read("".join(_job(p) for p in range(8)), monkeypatch)
    raw = [_RAW.__get__(ad) for ad in ads]
    marks = [ad.layout for ad in ads]
    names = ["procid", "owner", "args", "nosuch"]
    lazy_rows = oldscan.changes(raw, names, marks)
    lazy_rows_unmarked = oldscan.changes(raw, names, None)
    assert any(_lazy(ads))
    whole = [ad._attrs for ad in ads]
    assert oldscan.changes(whole, names, marks) == lazy_rows
    assert oldscan.changes(whole, names, None) == lazy_rows_unmarked


def test_gather_makes_whole_the_first_of_each_run(monkeypatch) -> None:
    from condorlite.core.matching import columns
    from condorlite.core.model import Job

    ads = _read("".join(_job(p) for p in range(8)), monkeypatch)
    jobs = [Job(f"7.{p}", 7, p, p, ad, 1, "alice@x", 0, 0) for p, ad in enumerate(ads)]
    # rows 4 on: row 4 starts the rows (made whole), 5-7 stay lazy; 2 is a run's row
    # after one of another mark (made whole), then 3 stays lazy
    picked = [jobs[0], jobs[2], jobs[3]]
    if not columns.GATHER_COMPILED:
        pytest.skip("no compiled gather")
    rows = columns.gather(jobs[4:])
    assert _lazy(ads[4:]) == [False, True, True, True]
    assert type(rows.tables[0]) is dict and rows.tables[0] is ads[4]._attrs
    picked[0] = Job("1.0", 1, 0, 0, ClassAd({"x": 1}), 1, "alice@x", 0, 0)
    columns.gather(picked)
    assert _lazy([ads[2], ads[3]]) == [False, True]


_NAMES = ["A", "B", "C", "D"]
_AD = st.lists(st.tuples(st.sampled_from(_NAMES), st.sampled_from(["1", "2", '"x"', "A + 1",
                                                                   "(", "1 2"])),
               min_size=0, max_size=4)


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=_AD, changes=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(_NAMES),
                                             st.sampled_from(["1", "2", "3", '"y"', "(",
                                                              "B"])), max_size=12))
def test_runs_whose_names_or_values_change_mid_run(first, changes, monkeypatch) -> None:
    """A hostile text: ads derived one from the other by changes of a value, a name or
    a bad line at some position; both readers give equal ads and the same error."""
    ads_text, lines = [], list(first)
    for at, name, value in changes:
        if lines and at < len(lines):
            lines[at] = (name, value) if value != "B" else (lines[at][0], value)
        else:
            lines.append((name, value))
        ads_text.append("".join(f"{n} = {v}\n" for n, v in lines) + "\n")
    text = "".join(ads_text) * 3

    def outcome(pure: bool):
        try:
            return [list(ad._attrs.items()) for ad in _read(text, monkeypatch, pure=pure)], None
        except ClassAdSyntaxError as exc:
            return None, (exc.line, exc.column, exc.message)

    assert outcome(False) == outcome(True)
