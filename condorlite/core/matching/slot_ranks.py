"""A held slot's ``Rank`` of a job, shared between the classes that bind alike what it
reads of the job.

``Reasons.slot_rank`` keeps the slot's Rank of a class per *rank key* (the slot's
bindings of every name its Rank reaches, ``Reasons.rank_key``), one evaluation per
(class, rank key). A pool of desktops that prefer their owner's jobs (``Rank =
TARGET.Owner == "u043"``) has a rank key per owner, and every class asks each: with
preemption by priority off, a class's plan of the held groups asks them all
(``HeldGroups.plan``), classes x owners evaluations, although a class's Rank there
reads one name of the job, and a hundred submitters' jobs bind it a hundred ways.

Where the names the Rank can read are known from its tree
(``preq_reads.static_reads``: plain names, no record, no lazy built-in but
``ifThenElse``) and both the slot and the job bind each of them to a literal or not
at all, the evaluation reads those bindings and nothing else (and ``now``, fixed for
the cycle). The slot's are what its rank key stands for, so the value is kept per
(rank key, the job's numbers of those names: ``expr_numbers.Canon.key``) and every
class binding them alike takes it without an evaluation. Otherwise (a name bound to
an expression that reads further names) the class's evaluation decides, as before.
The names are read off the Rank of the first slot asked of each rank key: every slot
of a rank key binds what its Rank reaches alike (a desktop whose own literals were
hoisted, ``own_literals``, reads a hidden name of its own besides, bound to a
literal: keyed too, which keys more than needed, never less).

A Rank that compares one name of the job with a string (``TARGET.Owner == "u043"``,
or ``TARGET.Owner == MY.<hidden name>`` bound to one: ``_test``), asked of a job that
binds that name to a string, is ``operators.compare(op, job's string, slot's string)``
and nothing else: its value is kept per (rank key, that comparison's answer), two
entries per rank key where the job's numbers key one per submitter (a 10k owner-start
cycle: ~100 owners' jobs asked of each desktop owner's Rank).

A held plan asks a class's Rank of every rank key of its groups (``HeldGroups.plan``).
Where each of those Ranks is a ``StringTest`` ``==`` on one name with an ASCII string
(``StringRows``), and the job binds that name to an ASCII string ``s``, the row of
Ranks is the row of a job matching no key (each key's value for a false comparison)
but at the keys whose string lower-cased is ``s`` lower-cased (``compare``'s ``==``
on ASCII strings: ``ascii_lower`` is ``str.lower`` there), which take their value for
a true one: one row per plan made from two values per key, where the per-key path
asks each key of each owner (a 10k owner-start cycle: ~100 owners x ~90 keys). A
value not known yet is asked of the class (``ask``: ``Reasons.slot_rank``, which
evaluates and keeps it as before), so the same (rank key, answer) entries are
evaluated, once each.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.classad.operators import compare
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.preq_reads import static_reads

#: "not in the table" (a table whose values may be None)
MISSING = object()
#: the comparisons ``operators.compare`` answers (``=?=`` and ``=!=`` are not)
COMPARISONS = frozenset(("==", "!=", "<", "<=", ">", ">="))


class StringTest(NamedTuple):
    """A Rank ``TARGET.<name> <op> <string>`` (``job_left``) or ``<string> <op>
    TARGET.<name>``, the string the slot's (a literal or a slot name bound to one)."""

    op: str
    name: str
    text: str
    job_left: bool


class SharedRanks:
    """The cycle's slot Ranks by rank key and the job's numbers (module doc).
    ``number(ad, names)``: the numbers of the ad's bindings of ``names``."""

    def __init__(self, number: Callable[[ClassAd, tuple[str, ...]], tuple]) -> None:
        self._number = number
        #: rank key -> the names its Rank can read, or None (not known, or some
        #: bound in the slot to anything but a literal)
        self._names: dict[int, tuple[str, ...] | None] = {}
        #: (class, bindings, names) -> the job's numbers of them, or None (some bound
        #: to anything but a literal)
        self._jobs: dict[tuple, tuple | None] = {}
        #: rank key -> its Rank as a comparison with a string, or None (``_test``)
        self._tests: dict[int, StringTest | None] = {}
        #: (rank key, the job's numbers, or the comparison's answer) -> the slot's
        #: Rank (``adeval.slot_rank``)
        self.values: dict[tuple, float] = {}

    def test(self, rank_key: int, offer: Offer) -> StringTest | None:
        """The Rank of ``offer`` (of ``rank_key``) as a ``StringTest``, or None."""
        test = self._tests.get(rank_key, MISSING)
        if test is MISSING:
            expr = adeval.attr(offer.ad, "Rank")
            test = self._tests[rank_key] = None if expr is None else _test(expr, offer.ad)
        return test  # type: ignore[return-value]

    def key(self, klass: tuple, job_ad: ClassAd, offer: Offer, expr: Expr,
            rank_key: int) -> tuple | None:
        """The key of the slot's Rank ``expr`` (of ``offer``, whose rank key is
        ``rank_key``) of the class key ``klass``'s job ``job_ad`` in ``values``, or
        None when it cannot be shared (module doc)."""
        test = self._tests.get(rank_key, MISSING)
        if test is MISSING:
            test = self._tests[rank_key] = _test(expr, offer.ad)
        if test is not None:
            bound = adeval.attr(job_ad, test.name)  # type: ignore[union-attr]
            if type(bound) is Literal and type(bound.value) is str:
                job, text = bound.value, test.text  # type: ignore[union-attr]
                return (rank_key, compare(test.op, job, text) if test.job_left  # type: ignore[union-attr]
                        else compare(test.op, text, job))  # type: ignore[union-attr]
        names = self._names.get(rank_key, MISSING)
        if names is MISSING:
            names = self._names[rank_key] = _literal_names(expr, offer.ad)
        if names is None:
            return None
        job_key = (klass, names)
        numbers = self._jobs.get(job_key, MISSING)
        if numbers is MISSING:
            numbers = self._jobs[job_key] = (
                self._number(job_ad, names)  # type: ignore[arg-type]
                if _literals(job_ad, names) else None)  # type: ignore[arg-type]
        if numbers is None:
            return None
        return (rank_key, numbers)


class RowKeys:
    """The rank keys of a plan's others (``keys``, in order, and the first offer of
    each, ``firsts``) when each Rank is a ``StringTest`` ``==`` on ``name`` with an
    ASCII string: ``at``, each string lower-cased -> the positions of its keys;
    ``base``, each key's value for a false comparison (``MISSING`` until known).
    The first offers are those of the tuple's first plan: any offer of a rank key
    stands for it (every slot of one key gives every job the same Rank)."""

    __slots__ = ("at", "base", "firsts", "keys", "name")

    def __init__(self, keys: tuple[int, ...], firsts: list[Offer], name: str,
                 at: dict[str, list[int]], base: list) -> None:
        self.keys, self.firsts, self.name, self.at = keys, firsts, name, at
        self.base = base


class StringRows:
    """A class's Ranks of a plan's rank keys as one row (module doc), from the
    ``SharedRanks`` values of (rank key, the comparison's answer)."""

    def __init__(self, shared: SharedRanks) -> None:
        self._shared = shared
        #: the plan's rank keys -> their ``RowKeys``, or None (not all such tests)
        self._rows: dict[tuple[int, ...], RowKeys | None] = {}

    def row(self, job_ad: ClassAd, keys: tuple[int, ...], firsts: Callable[[], list[Offer]],
            ask: Callable[[Offer], float]) -> tuple | None:
        """The job's Ranks of ``keys`` (``firsts()``: their first offers), or None
        when not a row of string tests the job binds (the per-key path decides);
        ``ask(first)``: the class's Rank of a key whose value is not known yet."""
        found = self._rows.get(keys, MISSING)
        if found is MISSING:
            found = self._rows[keys] = self._made(keys, firsts())
        if found is None:
            return None
        bound = adeval.attr(job_ad, found.name)  # type: ignore[union-attr]
        if type(bound) is not Literal or type(bound.value) is not str \
                or not bound.value.isascii():  # type: ignore[union-attr]
            return None
        hits = found.at.get(bound.value.lower(), ())  # type: ignore[union-attr]
        base, row = found.base, list(found.base)  # type: ignore[union-attr]
        if MISSING in base:
            for i, value in enumerate(base):
                if value is MISSING and i not in hits:
                    base[i] = row[i] = ask(found.firsts[i])  # type: ignore[union-attr]
        values = self._shared.values
        for i in hits:
            value = values.get((keys[i], True), MISSING)
            row[i] = ask(found.firsts[i]) if value is MISSING else value  # type: ignore[union-attr]
        return tuple(row)

    def _made(self, keys: tuple[int, ...], firsts: list[Offer]) -> RowKeys | None:
        """``keys``' ``RowKeys`` when each key's Rank (read off its first offer) is a
        ``StringTest`` ``==`` on one name with an ASCII string, else None."""
        at: dict[str, list[int]] = {}
        name = None
        for i, (rank_key, first) in enumerate(zip(keys, firsts, strict=True)):
            test = self._shared.test(rank_key, first)
            if test is None or test.op != "==" or not test.text.isascii() or (
                    name is not None and test.name != name):
                return None
            name = test.name
            at.setdefault(test.text.lower(), []).append(i)
        if name is None:
            return None
        # (a key's values are the cycle's: those known under earlier keys stand)
        values = self._shared.values
        return RowKeys(keys, firsts, name, at,
                       [values.get((rank_key, False), MISSING) for rank_key in keys])


def rank_reads(offer: Offer) -> tuple[str, ...] | None:
    """The names the slot ``Rank`` of ``offer`` can read when its ad binds each to a
    literal or not at all (module doc), else None: every slot of one rank key reads
    them alike."""
    expr = adeval.attr(offer.ad, "Rank")
    return None if expr is None else _literal_names(expr, offer.ad)


def job_numbers(number: Callable[[ClassAd, tuple[str, ...]], tuple], job_ad: ClassAd,
                names: tuple[str, ...]) -> tuple | None:
    """The job's numbers of ``names`` (``number``: ``expr_numbers.Canon.key``) when it
    binds each to a literal or not at all, else None: two jobs of equal numbers get
    an equal Rank of every slot whose Rank reads only ``names`` (``rank_reads``)."""
    return number(job_ad, names) if _literals(job_ad, names) else None


def _test(expr: Expr, slot_ad: ClassAd) -> StringTest | None:
    """``expr`` as a ``StringTest`` when it is one (parentheses aside), else None: one
    operand ``TARGET.<name>``, the other a string literal or a name (``MY.`` or bare)
    the slot binds to one, so the value is the comparison of the two strings."""
    while type(expr) is Paren:
        expr = expr.inner  # type: ignore[attr-defined]
    if type(expr) is not Binary or expr.op not in COMPARISONS:  # type: ignore[attr-defined]
        return None
    left, right = expr.left, expr.right  # type: ignore[attr-defined]
    for job, other, job_left in ((left, right, True), (right, left, False)):
        if type(job) is not AttrRef or job.scope != "target":
            continue
        text = _slot_string(other, slot_ad)
        if text is not None:
            return StringTest(expr.op, job.name, text, job_left)  # type: ignore[attr-defined]
    return None


def _slot_string(expr: Expr, slot_ad: ClassAd) -> str | None:
    """The string ``expr`` stands for in the slot: a string literal, or a name the
    slot binds to one (``MY.`` or bare: the slot's binding is read first); else None."""
    if type(expr) is AttrRef and expr.scope in (None, "my"):  # type: ignore[attr-defined]
        expr = adeval.attr(slot_ad, expr.name)  # type: ignore[attr-defined,assignment]
    if type(expr) is Literal and type(expr.value) is str:  # type: ignore[attr-defined]
        return expr.value  # type: ignore[attr-defined]
    return None


def _literal_names(expr: Expr, slot_ad: ClassAd) -> tuple[str, ...] | None:
    """The names ``expr`` can read (``static_reads``) when the slot binds each to a
    literal or not at all, else None."""
    names = static_reads(expr)
    if names is None or not _literals(slot_ad, names):
        return None
    return names


def _literals(ad: ClassAd, names: tuple[str, ...]) -> bool:
    """Whether ``ad`` binds each of ``names`` to a literal or not at all."""
    for name in names:
        bound = adeval.attr(ad, name)
        if bound is not None and type(bound) is not Literal:
            return False
    return True
