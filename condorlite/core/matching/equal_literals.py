"""A split static's groups by equality of their literal with the job's binding: a
class's tests' values found from the groups whose literal equals the job's, not from
every group.

``literal_matches`` (a slot's ``Requirements``) and ``literal_orders`` (the pre-job
rank) split a static of desktops on their literal tests, each group the offers of
one hidden owner (``LiteralSplit.group``), and ask, per (static, the job's bindings
the tests read), the tests' values ``sigma`` at every group: on the 10,000-slot
partitionable mix 796 such asks read 34,763 groups and filled 9,988 test values,
about 2 % of the cycle's opcodes, for classes of which at most a few groups (their
owner's) get a value other than the rest's.

For a split of one test (``TARGET.<name> <op> MY.<hidden>``, the usual hoisted
``TARGET.Owner == MY.<owner>``) whose groups' literals are all strings, a test's
value depends on the literal only through whether it equals the job's value in the
operator's sense (``EQUALITY``):

* ``==`` and ``!=`` (``operators.compare``): of two strings, strcasecmp's answer
  (``ascii_lower``, compared as ``utf8`` bytes when either is not ASCII), so the value is
  one for the literals whose folded bytes (``_folded``) are the job's and one for
  every other; of a string and a value of another type, error or undefined whatever
  the string (``strict2``, then error: the operands' types alone);
* ``=?=``, ``is``, ``=!=``, ``isnt`` (``operators.meta_equal``): of two strings, whether
  they are the same string; of a string and another type, false (true for the
  negations) whatever the string.

So ``classes`` looks up the groups whose literal's key is the job's (none when the
job's value is no string) and works out two values only, each by the test itself
on one group of its kind (``LiteralSplit.sigmas_of``, through the cycle's table of
test values): the matched groups' sigma and every other group's. Exact: each group
gets the value the test gives at it (the property above; tested on every operator
against ``sigmas_of`` at every group). A split of several tests, or a group whose
literal is no string, has no index (``equal_groups`` answers None) and its callers
ask every group, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from condorlite.core.classad.ast import Binary
from condorlite.core.classad.operators import ascii_lower
from condorlite.core.classad.values import utf8


def _folded(text: str) -> bytes:
    """``operators.compare``'s equality of two strings as a key: its folded bytes."""
    return utf8(ascii_lower(text))


def _same(text: str) -> str:
    """``operators.meta_equal``'s equality of two strings as a key: the string."""
    return text


#: the hoisted comparisons (``literal_orders._COMPARISONS``), each with the key of a
#: string under which two strings are equal for it (module doc)
EQUALITY: dict[str, Callable[[str], object]] = {
    "==": _folded, "!=": _folded,
    "=?=": _same, "is": _same, "=!=": _same, "isnt": _same,
}


class EqualGroups(NamedTuple):
    """A split static's groups indexed by their literal's key (``equal_groups``)."""

    #: the groups, in the order they were given
    groups: list[object]
    #: a literal's key (``EQUALITY``) -> the positions in ``groups`` of its groups
    by_key: dict[object, list[int]]
    #: the key of a string for the split's one test
    key: Callable[[str], object]


class GroupClasses(NamedTuple):
    """A class's tests' values at a static's groups (``classes``)."""

    #: the positions (in ``EqualGroups.groups``, ascending) of the groups whose
    #: literal equals the job's value (the index's own list: read only)
    matched: list[int]
    #: their sigma (None: no group matched)
    matched_sigma: tuple | None
    #: every other group's sigma (None: every group matched)
    other_sigma: tuple | None


def equal_groups(tests: Sequence[tuple[Binary, str, int]], groups: Sequence[object]
                 ) -> EqualGroups | None:
    """``groups`` (of a static split on ``tests``, ``LiteralSplit.tests``) indexed
    by their literal's key, or None when there is more than one test or a group's
    literal is no string (module doc)."""
    if len(tests) != 1:
        return None
    key = EQUALITY.get(tests[0][0].op)
    if key is None:
        return None
    by_key: dict[object, list[int]] = {}
    for at, group in enumerate(groups):
        if type(group) is not str:
            return None
        by_key.setdefault(key(group), []).append(at)
    return EqualGroups(list(groups), by_key, key)


def classes(sigmas_of: Callable[[tuple, Sequence[object], dict], list[tuple]],
            equal: EqualGroups, bindings: tuple, known: dict) -> GroupClasses:
    """The tests' values at every group of ``equal`` for a class whose jobs bind the
    tests' names to ``bindings`` (``LiteralSplit.bindings``): the groups whose
    literal equals the job's value and the two sigmas, each worked out by the
    split's ``sigmas_of`` at one group of its kind (``known``: the cycle's test
    values)."""
    binding = bindings[0]
    value = None if binding is None else binding.value
    matched = equal.by_key.get(equal.key(value), []) if type(value) is str else []
    groups = equal.groups
    other = None
    if len(matched) < len(groups):
        # (the first group not matched: ``matched`` is ascending)
        other = len(matched)
        for at, position in enumerate(matched):
            if position != at:
                other = at
                break
    asked = ([groups[matched[0]]] if matched else []) + (
        [groups[other]] if other is not None else [])
    sigmas = sigmas_of(bindings, asked, known)
    return GroupClasses(matched, sigmas[0] if matched else None,
                        sigmas[-1] if other is not None else None)
