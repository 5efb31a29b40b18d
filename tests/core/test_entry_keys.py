"""``entry_keys.entry_key``: the compiled key and the Python one tell the same ads
apart: two tables get equal keys for some names exactly when they hold the same
entry objects (or both lack one) for each of the names. ``entry_keys.find_split``:
the compiled lookup and the Python one give the same answer, the first split whose
records of the kind hold the table's entries for its keyed names and whose literal
names are each bound to an entry whose expression is of the type asked (not a
subclass), with those expressions' values."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import entry_keys
from condorlite.core.classad import oldscan
from condorlite.core.classad.ast import AttrRef, Literal

ENTRIES = [("A", object()), ("a", object()), ("B", object()), ("A", object())]
NAMES = ("a", "b", "c", "requirements")

_TABLE = st.dictionaries(st.sampled_from((*NAMES, "x", "y")),
                         st.sampled_from(range(len(ENTRIES))), max_size=6)


def _table(picks: dict[str, int]) -> dict:
    return {name: ENTRIES[i] for name, i in picks.items()}


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=300, deadline=None)
@given(one=_TABLE, other=_TABLE, names=st.lists(st.sampled_from(NAMES), max_size=5))
def test_compiled_and_python_keys_tell_the_same_tables_apart(one, other, names) -> None:
    names = tuple(names)
    a, b = _table(one), _table(other)
    compiled = entry_keys._compiled
    same_python = (entry_keys.python_entry_key(a, names)
                   == entry_keys.python_entry_key(b, names))
    assert (compiled(a, names) == compiled(b, names)) == same_python
    assert same_python == all(a.get(n) is b.get(n) for n in names)


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_key_refuses_what_is_not_a_dict_and_a_sequence() -> None:
    assert entry_keys._compiled({"a": None}, ["a"]) == entry_keys._compiled({"a": None}, ("a",))
    with pytest.raises(TypeError):
        entry_keys._compiled({}, 3)
    with pytest.raises(TypeError):
        entry_keys._compiled([], ("a",))
    with pytest.raises(TypeError):  # an unhashable name is the dict's error
        entry_keys._compiled({}, ([],))


class _Literal(Literal):
    """A subclass: of another type than ``Literal`` for ``find_split``."""


#: entries as the readers store them, (spelling, expression), of kinds a slot binds
BINDINGS = [("Disk", Literal(1)), ("KFlops", Literal("x")), ("Start", AttrRef("Start")),
            ("Arch", _Literal(2)), ("Memory", Literal(None))]

_BOUND = st.dictionaries(st.sampled_from((*NAMES, "x")),
                         st.sampled_from(range(len(BINDINGS))), max_size=6)


#: the value of a ``Literal`` (or of a subclass), as ``find_split`` reads it
VALUE = Literal.value  # type: ignore[attr-defined]

_SPLIT = st.tuples(st.lists(st.sampled_from(NAMES), max_size=3),
                   st.lists(st.sampled_from(NAMES), max_size=3),
                   st.sampled_from(("static", "partitionable")))


def _splits(specs, tables: list[dict], key) -> list[tuple]:
    """Splits ``(keyed, literal, records)`` of ``specs`` (keyed names, literal
    names, kind), each holding the record ``(i, j)`` under the key of ``tables[j]``
    (``key``: the ``entry_key`` the lookup asks with) for its kind."""
    out = []
    for i, (keyed, literal, kind) in enumerate(specs):
        keyed = tuple(keyed)
        records = {j: ((i, j), key(table, keyed)) for j, table in enumerate(tables)}
        out.append((keyed, tuple(literal),
                    {kind: {made: record for record, made in records.values()}}))
    return out


def _expected(table: dict, splits: list[tuple], kind: str, key) -> tuple | None:
    for at, (keyed, literal, records) in enumerate(splits):
        record = records.get(kind, {}).get(key(table, keyed))
        if record is not None and all(name in table and type(table[name][1]) is Literal
                                      for name in literal):
            return at, record, tuple(table[name][1].value for name in literal)
    return None


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=300, deadline=None)
@given(picks=st.lists(_BOUND, min_size=1, max_size=3), asked=_BOUND,
       specs=st.lists(_SPLIT, max_size=4), kind=st.sampled_from(("static", "partitionable")))
def test_compiled_and_python_find_split_agree(picks, asked, specs, kind) -> None:
    tables = [{name: BINDINGS[i] for name, i in one.items()} for one in picks]
    table = {name: BINDINGS[i] for name, i in asked.items()}
    for key, find in ((entry_keys._compiled, entry_keys._compiled_find_split),
                      (entry_keys.entry_key, entry_keys.python_find_split)):
        # (the records are kept under the keys the lookup asks with, as
        # ``kind_records`` keeps them: the compiled one's, and the Python one
        # asks with the module's ``entry_key``)
        splits = _splits(specs, [*tables, table], key)
        assert find(table, splits, kind, Literal, VALUE) == _expected(table, splits, kind, key)


def test_find_split_misses_an_unbound_name_and_another_expression() -> None:
    """Each way it is built: the first split that holds the entries and whose
    literals are bound to ``Literal`` s; an absent literal name, an expression of
    another type (a subclass too), another kind or other entries: the next split."""
    table = {name: BINDINGS[i] for i, name in enumerate(("disk", "kflops", "start",
                                                         "arch", "memory"))}
    ways = [(entry_keys.entry_key, entry_keys.python_find_split),
            (entry_keys.entry_key, entry_keys.find_split)]
    if oldscan.AVAILABLE:
        ways.append((entry_keys._compiled, entry_keys._compiled_find_split))
    for key, find in ways:
        def split(keyed, literal, record, kind="static", made=None, key=key):
            return (keyed, literal, {kind: {key(made or table, keyed): record}})
        other = {**table, "start": ("Start", AttrRef("Start"))}
        good = split(("start",), ("disk", "kflops", "memory"), "good")
        assert find(table, [good], "static", Literal, VALUE) == (
            0, "good", (1, "x", None))
        assert find(table, [split(("start",), (), "none")], "static", Literal,
                    VALUE) == (0, "none", ())
        misses = [split(("start",), ("disk", "cpus"), "unbound"),
                  split(("start",), ("disk", "start"), "expression"),
                  split(("start",), ("arch",), "subclass"),
                  split(("start",), ("disk",), "kind", "partitionable"),
                  split(("start",), ("disk",), "entries", made=other)]
        assert find(table, misses, "static", Literal, VALUE) is None
        assert find(table, [*misses, good], "static", Literal, VALUE) == (
            len(misses), "good", (1, "x", None))
        assert find(table, [], "static", Literal, VALUE) is None


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_find_split_refuses_what_is_not_a_dict_a_list_a_split_and_a_type() -> None:
    find = entry_keys._compiled_find_split
    good = [((), (), {"static": {entry_keys._compiled({}, ()): "r"}})]
    assert find({}, good, "static", Literal, VALUE) == (0, "r", ())
    with pytest.raises(TypeError):
        find([], good, "static", Literal, VALUE)
    with pytest.raises(TypeError):
        find({}, tuple(good), "static", Literal, VALUE)
    with pytest.raises(TypeError):
        find({}, good, "static", "Literal", VALUE)
    with pytest.raises(TypeError):  # a split too short, records not a dict
        find({}, [((), ())], "static", Literal, VALUE)
    with pytest.raises(TypeError):
        find({}, [((), (), [])], "static", Literal, VALUE)
    with pytest.raises(TypeError):  # a kind's records not a dict
        find({}, [((), (), {"static": []})], "static", Literal, VALUE)
    with pytest.raises(TypeError):  # literal names not a tuple
        find({}, [((), ["a"], {"static": {entry_keys._compiled({}, ()): "r"}})],
             "static", Literal, VALUE)
    # an entry that is not a pair (no reader stores one) is no binding of the type
    table = {"a": Literal(1), "b": ("B",)}
    for names in (("a",), ("b",)):
        split = ((), names, {"static": {entry_keys._compiled(table, ()): "r"}})
        assert find(table, [split], "static", Literal, VALUE) is None


def test_pure_python_is_chosen_at_import() -> None:
    code = ("from condorlite.core import entry_keys as e; "
            "print(e.entry_key is e.python_entry_key and e.find_split is e.python_find_split)")
    env = {**os.environ, "CONDORLITE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True"
