"""``entry_keys.entry_key``: the compiled key and the Python one tell the same ads
apart: two tables get equal keys for some names exactly when they hold the same
entry objects (or both lack one) for each of the names. ``entry_keys.bound_to``: the
compiled test and the Python one give the same answer, True exactly when every name
is bound to an entry whose expression is of the type asked (not a subclass)."""

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
    """A subclass: of another type than ``Literal`` for ``bound_to``."""


#: entries as the readers store them, (spelling, expression), of kinds a slot binds
BINDINGS = [("Disk", Literal(1)), ("KFlops", Literal("x")), ("Start", AttrRef("Start")),
            ("Arch", _Literal(2)), ("Memory", Literal(None))]

_BOUND = st.dictionaries(st.sampled_from((*NAMES, "x")),
                         st.sampled_from(range(len(BINDINGS))), max_size=6)


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=300, deadline=None)
@given(picks=_BOUND, names=st.lists(st.sampled_from(NAMES), max_size=5),
       kind=st.sampled_from((Literal, AttrRef, _Literal)))
def test_compiled_and_python_bound_to_agree(picks, names, kind) -> None:
    table = {name: BINDINGS[i] for name, i in picks.items()}
    compiled = entry_keys._compiled_bound_to
    for asked in (tuple(names), list(names)):
        answer = compiled(table, asked, kind)
        assert answer is entry_keys.python_bound_to(table, asked, kind)
        assert answer is all(name in table and type(table[name][1]) is kind
                             for name in asked)


def test_bound_to_misses_an_unbound_name_and_another_expression() -> None:
    """Each way it is built: an absent name, an expression of another type (a
    subclass too) and no names at all."""
    table = {name: BINDINGS[i] for i, name in enumerate(("disk", "kflops", "start",
                                                         "arch", "memory"))}
    tests = [entry_keys.python_bound_to, entry_keys.bound_to]
    if oldscan.AVAILABLE:
        tests.append(entry_keys._compiled_bound_to)
    for bound_to in tests:
        assert bound_to(table, ("disk", "kflops", "memory"), Literal) is True
        assert bound_to(table, (), Literal) is True
        assert bound_to(table, ("disk", "cpus"), Literal) is False  # unbound
        assert bound_to(table, ("disk", "start"), Literal) is False  # an AttrRef
        assert bound_to(table, ("arch",), Literal) is False  # a subclass
        assert bound_to(table, ("start",), AttrRef) is True


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_bound_to_refuses_what_is_not_a_dict_a_sequence_and_a_type() -> None:
    compiled = entry_keys._compiled_bound_to
    with pytest.raises(TypeError):
        compiled({}, 3, Literal)
    with pytest.raises(TypeError):
        compiled([], ("a",), Literal)
    with pytest.raises(TypeError):
        compiled({}, ("a",), "Literal")
    with pytest.raises(TypeError):  # an unhashable name is the dict's error
        compiled({}, ([],), Literal)
    # an entry that is not a pair (no reader stores one) is no binding of the type
    assert compiled({"a": Literal(1), "b": ("B",)}, ("a",), Literal) is False
    assert compiled({"b": ("B",)}, ("b",), Literal) is False


def test_pure_python_is_chosen_at_import() -> None:
    code = ("from condorlite.core import entry_keys as e; "
            "print(e.entry_key is e.python_entry_key and e.bound_to is e.python_bound_to)")
    env = {**os.environ, "CONDORLITE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True"
