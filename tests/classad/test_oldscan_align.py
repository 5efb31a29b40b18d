"""The compiled old-form scanner's comparison of a line with the previous ad's line it
aligns with (``_oldscan/scanner.c``: ``shift``, ``align``), a line's freshness kept with
the line (``adlines.h``: ``LineRef.fresh``), and the literals it reads itself
(``values.c``: reals by Clinger's fast path; ``plain.c``: a Literal's slot set
directly). Interleaved layouts (a pool's slot types: a dynamic slot holds a few names
a partitionable one lacks) read as the Python reader reads them; a line after a name
one ad holds and the other lacks is compared with the previous ad's line of its name;
reals read to the very double Python's ``float`` gives."""

from __future__ import annotations

import os
import random
import struct

import pytest

from condorlite.core.classad import oldscan
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.interning import LIMIT, OLD_NAMES, clear_all
from condorlite.core.classad.oldform import _new_name, old_ad
from tests.classad.test_oldscan import _agree

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE,
                                reason="the compiled scanner was not built")


def _slot(kind: str, i: int) -> str:
    """A slot ad of one of three layouts: "p" (partitionable), "d" (dynamic: names the
    partitionable one lacks, before, between and after its own), "s" (names of "p"
    missing), each with per-slot values (new every ad) and shared lines."""
    lines = []
    if kind == "d":
        lines.append(f'ClientMachine = "c{i % 3}"')
    lines += ['Arch = "X86_64"', f"Cpus = {i % 4 + 1}", f"Disk = {1000 + i}"]
    if kind == "d":
        lines += [f'GlobalJobId = "s#{i}"', "JobUniverse = 5"]
    if kind != "s":
        lines += [f"KFlops = {7919 * i + 13}", f"LoadAvg = {i}.25"]
    lines += [f"Memory = {i % 5 * 512}", 'OpSys = "LINUX"']
    if kind == "p":
        lines += ["PartitionableSlot = true"]
    lines += [f"Mips = {31 * i}", "Requirements = START && Cpus > 0",
              f'Name = "slot{i}"', "Start = true"]
    if kind == "d":
        lines += [f"TotalJobRunTime = {i * 3}", f'ZLast = "{i}"']
    return "\n".join(lines) + "\n"


def _pool(kinds: str, repeat: int = 1) -> str:
    return "\n".join(_slot(kind, i) for i, kind in enumerate(kinds * repeat)) + "\n"


@pytest.mark.parametrize("kinds", ["pdd", "pdpd", "spdds", "ddddp", "psd"])
def test_interleaved_layouts_read_the_same(kinds: str, monkeypatch) -> None:
    text = _pool(kinds, 6)
    ads, error = _agree(text, monkeypatch)
    assert error is None and len(ads) == 6 * len(kinds)
    for chunk, limit in ((61, 3), (500, 1), (4096, 50)):
        _agree(text, monkeypatch, chunk=chunk, limit=limit)


def test_random_layouts_read_the_same(monkeypatch) -> None:
    """Ads of random subsets of one list of names (names dropped and added anywhere,
    values repeated or new, lines spelled with blanks), read the same."""
    rnd = random.Random(29)
    names = [f"N{k:02d}" for k in range(30)]
    ads = []
    for i in range(60):
        kept = [n for n in names if rnd.random() < 0.8]
        if rnd.random() < 0.2:
            rnd.shuffle(kept)
        ads.append("".join(
            f"{n}{' ' * rnd.randint(0, 1)}= "
            + rnd.choice([str(rnd.randint(0, 3)), f'"{i}"', f"{i}.5", "x + 1"]) + "\n"
            for n in kept))
    text = "\n".join(ads) + "\n"
    _agree(text, monkeypatch)
    _agree(text, monkeypatch, chunk=97, limit=5)


def _scanner() -> oldscan.Scanner:
    """A Scanner as ``scan_old_ad_lists`` makes one (whose ``stored`` is read here)."""
    def miss(raw: str, lineno: int) -> object:
        return oldscan.old_line(raw, lineno, None)

    return oldscan.Scanner(
        literal_type=Literal, value_descr=Literal.__dict__["value"], names=OLD_NAMES,
        new_name=_new_name, miss=miss, from_attrs=oldscan._FROM_ATTRS, old_ad=old_ad,
        end=oldscan._END, limit=LIMIT, key=int.from_bytes(os.urandom(8), "little"))


def test_a_shifted_per_ad_value_stays_out_of_the_line_table() -> None:
    """Ads that alternate between two layouts (a name more in one, before the per-ad
    values): each per-ad value line is compared with the previous ad's line of its
    name, which was fresh, so it is read without the line table and not stored; the
    shared lines after the extra name are the previous ad's (no table lookup, nothing
    stored). By position alone every other ad's values were stored."""
    clear_all()
    scanner = _scanner()
    done: list = []
    for i in range(40):
        extra = 'Extra = "e"\n' if i % 2 else ""
        scanner.feed(f'A = "a"\n{extra}B = "b"\nV = {1000 + i}\nW = "w{i}"\nC = "c"\n\n',
                     done)
        if i == 3:
            stored = scanner.stored
    scanner.finish(done)
    assert len(done) == 40
    assert scanner.stored == stored
    assert [ad._attrs["v"][1].value for ad in done] == [1000 + i for i in range(40)]
    assert all(ad._attrs["c"] is done[0]._attrs["c"] for ad in done)


def test_lines_after_a_dropped_name_take_the_previous_ads_pairs() -> None:
    """A line after a name the previous ad held and this one lacks (or the other way)
    is compared with the previous ad's line of its name: equal text takes that pair,
    and the ads are those the Python reader reads."""
    clear_all()
    scanner = _scanner()
    done: list = []
    scanner.feed('A = 1\nX = 2\nB = "b"\nC = 3.5\n\nA = 1\nB = "b"\nC = 3.5\n\n'
                 'A = 1\nY = 0\nZ = 0\nB = "b"\nC = 3.5\n\n', done)
    scanner.finish(done)
    assert [list(ad._attrs) for ad in done] == [["a", "x", "b", "c"], ["a", "b", "c"],
                                                ["a", "y", "z", "b", "c"]]
    assert done[0]._attrs["b"] is done[1]._attrs["b"] is done[2]._attrs["b"]
    assert done[0]._attrs["c"] is done[1]._attrs["c"] is done[2]._attrs["c"]


REALS = ["0.0", "-0.0", "0.000", "-0.000e-3", "0.0e999999999999999999", "1.5", "-1.5",
         "0.1", "0.30000000000000004", "123456789012345.0", "1234567890123456.0",
         "9007199254740993.0", "1.0e22", "1.0e23", "1.0e-22", "1.0e-23", "00001.50",
         "-00.000000000000000000001", "1.7976931348623157e308", "1.8e308", "4.9e-324",
         "2.4e-324", "1.0e400", "1.0e-400", "2.2250738585072011e-308", "1.5E+3",
         "1.5e-03", "73575632.0", "0.017399", "999999999999999.9", "1.000000000000000e15"]


@pytest.mark.parametrize("text", REALS)
def test_edge_reals_read_as_float_reads_them(text: str, monkeypatch) -> None:
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    ad = next(iter(parse_ad_lists(f"R = {text}\n", "old")))[0]
    value = ad._attrs["r"][1].value
    assert type(value) is float
    assert struct.pack("<d", value) == struct.pack("<d", float(text))
    _agree(f"R = {text}\n", monkeypatch)


def test_random_reals_read_as_float_reads_them(monkeypatch) -> None:
    """200,000 reals of 1 to 17 digits, with and without exponents, signs, leading
    zeros: each the very double ``float`` reads (the fast path's and strtod's)."""
    monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    rnd = random.Random(5)
    texts = []
    for _ in range(200_000):
        k = rnd.randint(1, 17)
        digits = "".join(rnd.choice("0123456789") for _ in range(k))
        cut = rnd.randint(1, k)
        text = ("-" if rnd.random() < 0.3 else "") + digits[:cut] + "." + (digits[cut:] or "0")
        if rnd.random() < 0.4:
            text += rnd.choice("eE") + rnd.choice(["", "+", "-"]) + str(rnd.randint(0, 40))
        texts.append(text)
    source = "".join(f"A{i} = {t}\n" for i, t in enumerate(texts))
    table = next(iter(parse_ad_lists(source, "old")))[0]._attrs
    bad = [t for i, t in enumerate(texts)
           if struct.pack("<d", table[f"a{i}"][1].value) != struct.pack("<d", float(t))]
    assert bad == []


@pytest.mark.parametrize("text", [
    "1e5", "1.e5", ".5", "1.5e", "1.5e+", "0x1F", "-0x1F", '"0x1F"', "1_000", "1.5f",
    "NaN", "nan", "-inf", "Infinity", "real(\"NaN\")", "real(\"-INF\")", "+1.5", "- 1.5",
    "1.5.5", "12345678901234567890", "-12345678901234567890", "123456789012345678",
    "-123456789012345678", "007", "-0", "0", '"-0.0"', "1.5 e5"])
def test_numbers_at_the_edges_read_the_same(text: str, monkeypatch) -> None:
    """Texts near the plain literals the scanner reads itself (exponents without a
    fraction, hex, underscores, NaN and infinity spellings, huge integers, leading
    zeros, signs): the same literal or the same error as the Python reader's."""
    _agree(f"V = {text}\nW = 1\n\nV = {text}\nW = 2\n", monkeypatch)


class _Boxed:
    """A literal type whose value is set through a property, not a member slot."""

    def _get(self) -> object:
        return self.__dict__["held"]

    def _set(self, value: object) -> None:
        self.__dict__["held"] = ("set", value)

    value = property(_get, _set)


@pytest.mark.parametrize("literal_type", [Literal, _Boxed])
def test_a_literals_value_set_in_its_slot_or_through_its_descriptor(literal_type) -> None:
    """The scanner sets a Literal's member slot directly (``plain.c``), and any other
    settable descriptor through its setter."""
    clear_all()
    scanner = oldscan.Scanner(
        literal_type=literal_type, value_descr=literal_type.__dict__["value"],
        names=OLD_NAMES, new_name=_new_name, miss=lambda raw, lineno: None,
        from_attrs=oldscan._FROM_ATTRS, old_ad=old_ad, end=oldscan._END, limit=LIMIT,
        key=7)
    done: list = []
    scanner.feed('I = 12\nS = "s"\nR = 2.5\n\n', done)
    scanner.finish(done)
    values = [entry[1].value for entry in done[0]._attrs.values()]
    want = [12, "s", 2.5]
    assert values == (want if literal_type is Literal else [("set", v) for v in want])
