"""Lazy ads are a subclass (``ad.LazyClassAd``, ``_oldscan/table.c``): the compiled
scanner makes a run's ads from its third as ``LazyClassAd``; the first read or write of
``_attrs`` makes the table whole and turns the ad into a ``ClassAd`` (its type switched
in C, the types' reference counts moved with it); ``ClassAd._attrs`` stays a plain slot
(CPython specialises its read). A lazy ad is a ClassAd in every other way: equal,
printed, pickled and copied as the whole ad."""

from __future__ import annotations

import copy
import pickle
import sys

import pytest

from condorlite.core.classad import ClassAd, oldscan
from condorlite.core.classad.ad import TABLE_SLOT, LazyClassAd, table_entry
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.interning import clear_all

try:
    from condorlite.core.classad._oldscan import table_slot
except ImportError:  # (the module skips its tests)
    table_slot = None

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE,
                                reason="the compiled scanner was not built")

_TABLE = LazyClassAd.__dict__["_attrs"]
_MEMBERS = tuple(ClassAd.__dict__[name] for name in (TABLE_SLOT, "layout", "parent"))


def _job(proc: int) -> str:
    return (f'ClusterId = 7\nProcId = {proc}\nCmd = "/bin/run"\nOwner = "alice"\n'
            f'Args = "-n {proc}"\nRequestCpus = 1\nGlobalJobId = "s#7.{proc}#1"\n\n')


def _read(count: int, monkeypatch, *, pure: bool = False) -> list[ClassAd]:
    if pure:
        monkeypatch.setenv("CONDORLITE_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    text = "".join(_job(p) for p in range(count))
    return [ad for batch in parse_ad_lists(text, "old", filename="t.ads", newline_only=True)
            for ad in batch]


def test_classads_table_is_a_plain_slot() -> None:
    """ClassAd's own ``_attrs`` is the slot's member descriptor (the read CPython
    specialises); only the lazy subclass has the C descriptor, over the same member."""
    assert type(ClassAd.__dict__["_attrs"]).__name__ == "member_descriptor"
    assert type(_TABLE).__name__ == "TableSlot"
    assert LazyClassAd.__slots__ == () and LazyClassAd.__bases__ == (ClassAd,)
    assert LazyClassAd.__basicsize__ == ClassAd.__basicsize__
    assert not hasattr(ClassAd(), "__dict__")
    assert not hasattr(LazyClassAd.__new__(LazyClassAd), "__dict__")


def test_a_lazy_ads_type_before_and_after_its_first_read(monkeypatch) -> None:
    ads = _read(6, monkeypatch)
    assert [type(ad) for ad in ads] == [ClassAd, ClassAd] + [LazyClassAd] * 4
    assert [_TABLE.is_lazy(ad) for ad in ads] == [False, False, True, True, True, True]
    assert all(isinstance(ad, ClassAd) for ad in ads)
    # one entry read leaves it lazy, and of the lazy type
    assert table_entry(ads[2], "procid")[1].value == 2
    assert type(ads[2]) is LazyClassAd and _TABLE.is_lazy(ads[2])
    lazies, wholes = sys.getrefcount(LazyClassAd), sys.getrefcount(ClassAd)
    table = ads[2]._attrs
    assert type(table) is dict and type(ads[2]) is ClassAd and not _TABLE.is_lazy(ads[2])
    assert ads[2]._attrs is table  # (now the plain slot's read)
    assert sys.getrefcount(LazyClassAd) == lazies - 1
    assert sys.getrefcount(ClassAd) == wholes + 1
    # a method reads the table: the ad is a ClassAd after it
    assert ads[3].lookup("ProcId").value == 3 and type(ads[3]) is ClassAd
    # a write of the table turns it too; so does a delete
    ads[4]._attrs = {}
    assert type(ads[4]) is ClassAd and len(ads[4]) == 0
    del ads[5]._attrs
    assert type(ads[5]) is ClassAd
    with pytest.raises(AttributeError):
        ads[5]._attrs  # noqa: B018
    # the types' counts come back when the ads go
    del ads, table
    assert sys.getrefcount(LazyClassAd) == lazies - 4


def test_lazy_ads_are_the_pure_readers_ads(monkeypatch) -> None:
    """Equal, printed, iterated and written as the pure scanner's plain ClassAds."""
    want = _read(6, monkeypatch, pure=True)
    assert {type(ad) for ad in want} == {ClassAd}
    for check in (lambda ad: ad, str, repr, lambda ad: ad.to_old(), lambda ad: ad.to_json(),
                  lambda ad: list(ad), lambda ad: ad.evaluate("ProcId")):
        ads = _read(6, monkeypatch)
        assert type(ads[4]) is LazyClassAd
        assert [check(ad) for ad in ads] == [check(ad) for ad in want]
    ads = _read(6, monkeypatch)
    ads[3]["Owner"] = "eve"
    assert type(ads[3]) is ClassAd and ads[3]["Owner"].value == "eve"
    assert ads[4] == want[4] and ads[2] == want[2]


@pytest.mark.parametrize("how", ["pickle", "copy", "deepcopy", "method"])
def test_lazy_ads_pickle_and_copy_as_classads(how, monkeypatch) -> None:
    ads = _read(5, monkeypatch)
    want = _read(5, monkeypatch, pure=True)
    ad = ads[3]
    assert type(ad) is LazyClassAd
    made = {"pickle": lambda: pickle.loads(pickle.dumps(ad, protocol=pickle.HIGHEST_PROTOCOL)),
            "copy": lambda: copy.copy(ad), "deepcopy": lambda: copy.deepcopy(ad),
            "method": ad.copy}[how]()
    assert type(made) is ClassAd and made == want[3]
    assert list(made._attrs.items()) == list(want[3]._attrs.items())


def test_table_slot_takes_only_a_subclass_of_the_same_layout() -> None:
    """Switching an ad's type is legal only between types of one memory layout: no slot
    and no ``__dict__`` of the subclass's own, a direct subclass."""
    class Slotted(ClassAd):
        __slots__ = ("extra",)

    class WithDict(ClassAd):
        pass

    class Further(LazyClassAd):
        __slots__ = ()

    # (only wrong calls here: a right one would register the types again)
    for wrong in (Slotted, WithDict, Further, dict):
        with pytest.raises(TypeError):
            table_slot(_MEMBERS, wrong)
    with pytest.raises(TypeError):
        table_slot((ClassAd.__dict__["layout"], Slotted.__dict__["extra"]), LazyClassAd)


def test_the_descriptor_reads_only_classads() -> None:
    with pytest.raises(TypeError):
        _TABLE.__get__(object())
    assert _TABLE.entry(ClassAd({"A": 1}), "a")[0] == "A"  # (a whole ad's entry too)
