"""A pre-job rank that reads the job only through a slot's own literal tests, split
into a job-independent key per offer and the tests' values per (class, literals).

A desktop's ``Rank = TARGET.Owner == "alice"`` is hoisted (``own_literals``) to
``TARGET.Owner == MY.<hidden>``, the owner a literal of the vector. The default
``NEGOTIATOR_PRE_JOB_RANK`` reads ``My.Rank``, so it reads the job and is no
independent rank of the offer: the static's states could not be kept in order
(``ordered_states``) and every list walked all of them. Yet the job reaches the rank
only through such *literal tests* (a comparison of a ``TARGET.`` reference with a
hidden literal): with each test replaced by its value, the rank reads nothing of the
job. So for a static whose first offer's bindings say so (``split_of``):

* the tests' values ``sigma`` for a class and an offer depend only on the job's
  bindings the tests read (each a literal, or unbound: checked per class) and the
  offer's hidden literals the tests read (its *group*, ``LiteralSplit.group``);
* the rank of a state, for any class whose ``sigma`` at the offer's group is ``s``, is
  the rank with the tests replaced by ``s`` (``LiteralSplit.rank``), a residual of the
  vector made once per (static, ``s``) (``slot_vectors.rank_program``): a value that
  does not depend on the class.

Exactness: an evaluation is a pure function of what it reads; inside the rank, a test
is evaluated with MY the slot and TARGET the job, so replacing it by a literal of the
value it has there changes no value of the rank (``Literal`` keeps every value,
undefined and error included). Every offer of the static binds alike every name the
rank reaches but the vector's (the static keys the walked bindings, and a rank that
reads the job is walked), so the first offer's bindings decide for all of them and its
residuals hold at every state's vector (``partial``'s contract). That the rank with
the tests replaced reads no job is ``slot_walks.reads_job``'s answer in the first
offer's ad with the tests replaced: the same answer for any values put in.

The ordered states keep each such static in the order of one ``sigma`` (the one most
of the first asking class's offers have); a class's offers whose group has another
``sigma`` are *offsets*: left out of that order and made from their own ranks
(``LiteralOrders.offsets``): on the desktops of an owner-start pool, the owner's own.
For one equality test on string literals those are found by the groups' index
(``equal_literals``) without a value per group, when every other group has the
order's ``sigma``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from math import copysign
from operator import itemgetter
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad import operators as ops
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.classad.partial import Constant
from condorlite.core.classad.refs import references
from condorlite.core.classad.values import Undefined
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.equal_literals import EqualGroups, classes, equal_groups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.own_literals import HIDDEN
from condorlite.core.matching.slot_vectors import SlotVector, rank_program
from condorlite.core.matching.slot_walks import reads_job

#: the comparisons ``own_literals`` hoists a literal out of
_COMPARISONS = frozenset({"==", "!=", "=?=", "=!=", "is", "isnt"})
#: a comparison's function of its two operands' values, as the evaluator applies it
#: (``compiler``: ``=?=`` and ``is`` are ``meta_equal``, ``==`` and ``!=`` ``compare``)
_OPERATORS: dict[str, Callable[[object, object], object]] = {
    "==": partial(ops.compare, "=="), "!=": partial(ops.compare, "!="),
    "=?=": ops.meta_equal, "is": ops.meta_equal,
    "=!=": ops.meta_not_equal, "isnt": ops.meta_not_equal,
}
#: what a test is replaced by when only the shape of the rewrite matters
_PLACEHOLDER = Literal(0)
#: deeper expressions are left alone (``own_literals`` hoists no deeper)
_MAX_DEPTH = 200


class LiteralSplit:
    """One static's pre-job rank split on its literal tests (module doc).

    ``tests``: the tests, in a fixed order, each with the job name it reads;
    ``group``: an offer's group from its vector's values (the hidden literals the tests
    read: strings, as ``own_literals`` hoists only those, so equal keys are equal
    values); ``bound``: the slot names (lower-case, with their spelling and expression)
    whose expressions hold tests."""

    __slots__ = ("_ad", "_forms", "_now", "_places", "_pre", "_programs", "_vector", "bound",
                 "group", "tests")

    def __init__(self, offer: Offer, pre: Expr, now: float | None,
                 tests: list[tuple[Binary, str, int]],
                 bound: list[tuple[str, str, Expr]]) -> None:
        self._ad, self._vector, self._pre, self._now = offer.ad, offer.vector, pre, now
        self.tests = tests
        self.bound = bound
        positions = sorted({pos for _, _, pos in tests})
        self.group: Callable[[Sequence[object]], object] = itemgetter(*positions)
        #: each test's place in a group (None: the group is the one literal itself,
        #: as ``itemgetter`` of one position gives it)
        self._places = [None if len(positions) == 1 else positions.index(pos)
                        for _, _, pos in tests]
        self._forms = [_form(test, name) for test, name, _ in tests]
        #: sigma -> the rank's residual with the tests replaced by sigma (None: the
        #: rank cannot be specialised, the static is walked for that sigma)
        self._programs: dict[tuple, object] = {}

    @property
    def vector(self) -> SlotVector:
        """The first offer's vector (the static's names and positions)."""
        return self._vector  # type: ignore[return-value]

    def bindings(self, job_ad: ClassAd) -> tuple | None:
        """The job's bindings of the names the tests read (each a literal or None:
        unbound), or None when one is something other than a literal (its value
        could read the slot)."""
        out = tuple([adeval.attr(job_ad, name) for _, name, _ in self.tests])
        for binding in out:
            if binding is not None and type(binding) is not Literal:
                return None
        return out

    def sigma(self, job_ad: ClassAd, offer: Offer, known: dict) -> tuple | None:
        """The tests' values for the class of ``job_ad`` at ``offer`` (any offer of
        a group stands for it), or None when the job binds a name a test reads to
        something other than a literal (``bindings``)."""
        bindings = self.bindings(job_ad)
        return None if bindings is None else self.sigma_of(bindings, offer, known)

    def sigma_of(self, bindings: tuple, offer: Offer, known: dict) -> tuple:
        """``sigma`` with the job's ``bindings`` given (``sigmas_of`` of the offer's
        group)."""
        return self.sigmas_of(bindings, [self.group(offer.vector.vals)], known)[0]  # type: ignore[union-attr]

    def sigmas_of(self, bindings: tuple, groups: Sequence[object], known: dict
                  ) -> list[tuple]:
        """``sigma`` at each of ``groups`` (``group`` of an offer's values: the hidden
        literals the tests read, which carving never changes) with the job's
        ``bindings`` given, a test at a time, each value ``value_of_test`` of the
        test's form, the group's literal and the job's binding: no offer read, no ad
        built or evaluated (on the 10,000-slot partitionable mix 9,988 evaluations,
        each with a group's first offer's ad, and 30,230 reads of such offers' values
        were about 2.5 % of the cycle). ``known``: (the
        test's form, the job's binding) -> the literal (as ``_exact`` keys it, a
        string as itself) -> value, shared by the cycle: a test's value is a
        pure function of its operator, which side its literal is on, the job name it
        reads, the job's binding of it and the literal, whatever static or expression
        it is in (``_form``). A test's table is looked up once for all the offers (a
        class asks every group of a static: ``LiteralMatches``, ``LiteralOrders``)."""
        columns = []
        for place, form, binding in zip(self._places, self._forms, bindings, strict=True):
            table = known.get((form, binding))
            if table is None:
                table = known[(form, binding)] = {}
            # (the test's value worked out on its two operands' values, ``value_of_test``:
            # no ads, the test's one operator applied)
            apply, left = _OPERATORS[form[0]], form[1]
            job_value = Undefined if binding is None else binding.value
            column = []
            append = column.append
            for group in groups:
                literal = group if place is None else group[place]  # type: ignore[index]
                # (a string, the usual hidden literal, keys itself: no other key equals it)
                lit = literal if type(literal) is str else _exact(literal)
                value = table.get(lit, table)
                if value is table:
                    value = table[lit] = (apply(literal, job_value) if left
                                          else apply(job_value, literal))
                append(value)
            columns.append(column)
        return list(zip(*columns, strict=True))

    def rank(self, sigma: tuple) -> object:
        """The rank's residual with the tests replaced by ``sigma`` (a ``Constant``,
        a residual of the vector, or None when it cannot be made)."""
        key = exact(sigma)
        found = self._programs.get(key, self)
        if found is self:
            found = self._programs[key] = rank_program(
                self._pre, self.replaced(sigma), self._vector, self._now)  # type: ignore[arg-type]
        return found

    def replaced(self, sigma: tuple) -> ClassAd:
        """The first offer's ad with each test replaced by its value in ``sigma``."""
        values = dict(zip((id(test) for test, _, _ in self.tests), sigma, strict=True))
        entries = {name: (spelling, _replaced(expr, lambda t: _literal(values, t)))
                   for name, spelling, expr in self.bound}
        return adeval.with_entries(self._ad, entries)  # type: ignore[arg-type]

    def key(self, program: object, vals: Sequence[object]) -> float:
        """-rank of a state (an entry's first key) by ``rank(sigma)``."""
        if type(program) is Constant:
            return -as_rank(program.value)  # type: ignore[attr-defined]
        return -as_rank(program(vals))  # type: ignore[operator]


def split_of(offer: Offer, pre: Expr, job_defined: frozenset[str], now: float | None
             ) -> LiteralSplit | None:
    """The split of ``pre`` in the static of ``offer`` (an offer nobody holds, with a
    vector and hidden literals), or None when ``pre`` reads the job otherwise than
    through literal tests (module doc)."""
    found = literal_tests(offer, pre)
    if found is None:
        return None
    tests, bound = found
    ad = offer.ad
    placeholders = dict.fromkeys((id(test) for test, _, _ in tests), _PLACEHOLDER.value)
    entries = {name: (spelling, _replaced(expr, lambda t: _literal(placeholders, t)))
               for name, spelling, expr in bound}
    if reads_job(adeval.with_entries(ad, entries), pre, job_defined)[0]:
        return None
    return LiteralSplit(offer, pre, now, tests, bound)


def literal_tests(offer: Offer, expr: Expr
                  ) -> tuple[list[tuple[Binary, str, int]], list[tuple[str, str, Expr]]] | None:
    """The literal tests ``expr`` reaches in the ad of ``offer`` (each with the job
    name it reads and its literal's position in the vector) and the slot names whose
    expressions hold them (lower-case, with their spelling and expression), as
    ``LiteralSplit`` takes them; None when there are none."""
    vector = offer.vector
    if vector is None or not vector.literals:
        return None
    ad = offer.ad
    hidden = {name: vector.index[name] for name in vector.names[-vector.literals:]}
    tests: list[tuple[Binary, str, int]] = []
    bound: list[tuple[str, str, Expr]] = []
    for name in sorted(_reached(ad, expr)):
        bound_expr = adeval.attr(ad, name)
        found: list[tuple[Binary, str, int]] = []
        _replaced(bound_expr, lambda t: _PLACEHOLDER, hidden, found)  # type: ignore[arg-type]
        if found:
            tests.extend(found)
            bound.append((name, adeval.spelling(ad, name) or name, bound_expr))  # type: ignore[arg-type]
    return (tests, bound) if tests else None


def _reached(ad: ClassAd, expr: Expr) -> set[str]:
    """The names bound in ``ad`` that ``expr`` reaches there (``reads_job``'s walk)."""
    seen: set[str] = set()
    todo = list(references(expr))
    while todo:
        scope, name = todo.pop()
        if scope == "target" or name in seen:
            continue
        bound = adeval.attr(ad, name)
        if bound is not None:
            seen.add(name)
            todo.extend(references(bound))
    return seen


def _replaced(expr: Expr, value_of: Callable[[Binary], Literal | None],
              hidden: dict[str, int] | None = None,
              found: list[tuple[Binary, str, int]] | None = None, depth: int = 0) -> Expr:
    """``expr`` with each literal test replaced by ``value_of(test)``; with
    ``hidden`` (hidden name -> vector position), each test found is recorded in
    ``found`` as (test, the job name it reads, the literal's position). Descends as
    ``own_literals`` hoists (parentheses and binary operators), so every hoisted
    test is met."""
    kind = type(expr)
    if depth > _MAX_DEPTH:
        return expr
    if kind is Paren:
        inner = _replaced(expr.inner, value_of, hidden, found, depth + 1)  # type: ignore[attr-defined]
        return expr if inner is expr.inner else Paren(inner)  # type: ignore[attr-defined]
    if kind is not Binary:
        return expr
    left, right = expr.left, expr.right  # type: ignore[attr-defined]
    if expr.op in _COMPARISONS:  # type: ignore[attr-defined]
        literal, target = (left, right) if _is_hidden(left) else (right, left)
        if _is_hidden(literal) and type(target) is AttrRef and target.scope == "target":  # type: ignore[attr-defined]
            if found is not None and hidden is not None:
                pos = hidden.get(literal.name.lower())  # type: ignore[attr-defined]
                if pos is None:
                    return expr  # (not this vector's literal: left as it is)
                found.append((expr, target.name.lower(), pos))  # type: ignore[arg-type, attr-defined]
            value = value_of(expr)  # type: ignore[arg-type]
            return expr if value is None else value
        return expr
    new_left = _replaced(left, value_of, hidden, found, depth + 1)
    new_right = _replaced(right, value_of, hidden, found, depth + 1)
    if new_left is left and new_right is right:
        return expr
    return Binary(expr.op, new_left, new_right)  # type: ignore[attr-defined]


def _literal(values: dict[int, object], test: Binary) -> Literal | None:
    """The literal that replaces ``test`` (by its id in ``values``), None: none."""
    return Literal(values[id(test)]) if id(test) in values else None


def value_of_test(form: tuple[str, bool, str], literal: object, binding: Literal | None
               ) -> object:
    """The value of a literal test of ``form`` (``_form``) whose hidden literal is
    ``literal`` for a job binding its name to ``binding`` (a literal, or None:
    unbound), as ``adeval.eval_expr`` of the test gives it with the slot's ad and the
    job's: the test compares ``MY.<hidden>``, a literal of the slot (its value), with
    ``TARGET.<name>``, whose value is the binding's (undefined when unbound: a
    ``TARGET.`` reference reads the job alone), by its operator's function
    (``_OPERATORS``, the ones the evaluator applies), so nothing else is read.
    ``LiteralSplit.sigmas_of`` writes it out."""
    apply = _OPERATORS[form[0]]
    job_value = Undefined if binding is None else binding.value
    return apply(literal, job_value) if form[1] else apply(job_value, literal)


def _form(test: Binary, name: str) -> tuple[str, bool, str]:
    """What a test's value depends on besides the job's binding and the literal: its
    operator, whether the literal is its left operand, the job name it reads."""
    return (test.op, _is_hidden(test.left), name)


def _is_hidden(node: Expr) -> bool:
    return (type(node) is AttrRef and node.scope == "my"  # type: ignore[attr-defined]
            and node.name.startswith(HIDDEN))  # type: ignore[attr-defined]


def _exact(value: object) -> tuple:
    """``value`` as a key that keeps ClassAd values apart (1 and 1.0, 0.0 and -0.0)."""
    if type(value) is float and value == 0.0:
        return (float, copysign(1.0, value))
    return (type(value), value)


class LiteralSnapshot(NamedTuple):
    """``static_orders.StaticOrders.literal``'s answer: the static's items (shared, as
    ``snapshot`` gives them: by tier, or one tier's list as ``LiteralStates`` takes
    it), the class's offsets' items (sorted: their own ranks), what tells an item's
    group from its vector's values, and the offsets' groups (their items in
    ``items`` are passed over)."""

    items: dict[tuple, list[tuple]] | list[tuple]
    extra: list[tuple]
    group: Callable[[Sequence[object]], object]
    skip: frozenset


class LiteralOrders:
    """The cycle's splits (per static) and the tests' values (module doc).
    ``pre``: the pre-job rank; ``job_defined``: the names some job binds."""

    def __init__(self, pre: Expr, job_defined: frozenset[str], now: float | None) -> None:
        self._pre, self._job_defined, self._now = pre, job_defined, now
        #: static -> its split, None when it has none
        self._splits: dict[int, LiteralSplit | None] = {}
        #: (the test's form, the job's binding) -> the literal -> the test's value
        #: (``LiteralSplit.sigmas_of``)
        self.known: dict[tuple, object] = {}
        #: (static, the job's bindings the tests read) -> the offsets' groups and
        #: their sigma (``offsets``), or None when the class walks the static
        self._plans: dict[tuple, dict | None] = {}
        #: static -> its groups by their literal's equality with a job's binding
        #: (``equal_literals``; None: no such index), made from the groups ``offsets``
        #: was given and made again when they are more
        self._equal: dict[int, EqualGroups | None] = {}

    def split(self, offer: Offer) -> LiteralSplit | None:
        """``split_of`` for the static of ``offer``, once per static."""
        static = offer.vector.static  # type: ignore[union-attr]
        if static not in self._splits:
            self._splits[static] = split_of(offer, self._pre, self._job_defined, self._now)
        return self._splits[static]

    def sigmas(self, split: LiteralSplit, job_ad: ClassAd, groups: dict[object, dict]
               ) -> dict[object, tuple] | None:
        """Each group's tests' values for the class of ``job_ad`` (``groups``: group
        -> its offers' positions; an empty group is left out), None when the class
        reads the tests otherwise than through literals."""
        asked = [group for group, members in groups.items() if members]
        if not asked:
            return {}
        bindings = split.bindings(job_ad)
        if bindings is None:
            return None
        return dict(zip(asked, split.sigmas_of(bindings, asked, self.known), strict=True))

    def offsets(self, static: int, split: LiteralSplit, job_ad: ClassAd, order: tuple,
                groups: dict[object, dict]) -> dict | None:
        """The groups whose tests' values for the class of ``job_ad`` are not the
        order's (``order``, as ``exact`` keys it), with theirs; None when the class
        reads the tests otherwise than through literals. Kept per (static, the
        job's bindings the tests read): a group's values never change."""
        key = (static, tuple(adeval.attr(job_ad, name) for _, name, _ in split.tests))
        if key in self._plans:
            return self._plans[key]
        plan = self._by_equality(static, split, job_ad, order, groups)
        if plan is None:
            sigmas = self.sigmas(split, job_ad, groups)
            plan = None if sigmas is None else {
                group: sigma for group, sigma in sigmas.items() if exact(sigma) != order}
        self._plans[key] = plan
        return plan

    def _by_equality(self, static: int, split: LiteralSplit, job_ad: ClassAd, order: tuple,
                     groups: dict[object, dict]) -> dict | None:
        """``offsets``' plan by the static's index (``equal_literals.classes``) when
        every group not matched has the order's sigma: the matched groups (those with
        offers) if theirs is another; None when it cannot tell (no index, or the
        other groups' sigma is not the order's: ``offsets`` asks every group)."""
        equal = self._equal.get(static)
        if equal is None or len(equal.groups) != len(groups):
            if static in self._equal and equal is None:
                return None
            equal = self._equal[static] = equal_groups(split.tests, list(groups))
            if equal is None:
                return None
        if not any(groups.values()):
            return {}  # (no group has offers: ``sigmas`` asks none)
        bindings = split.bindings(job_ad)
        if bindings is None:
            return None
        found = classes(split.sigmas_of, equal, bindings, self.known)
        if found.other_sigma is not None and exact(found.other_sigma) != order:
            return None
        if not found.matched or exact(found.matched_sigma) == order:  # type: ignore[arg-type]
            return {}
        listed = equal.groups
        return {listed[at]: found.matched_sigma for at in found.matched if groups[listed[at]]}


def exact(sigma: tuple) -> tuple:
    """The tests' values as a key that keeps ClassAd values apart."""
    return tuple(map(_exact, sigma))
