"""Unheld static shapes by static part, sorted by their numbers: a class's list passes
over the shapes its part's program rules out without looking at them.

A class's list of unheld static offers (``static_lists``) needs, for every static
shape, whether the class matches it. A shape of a shared static part
(``static_programs``) is answered by the (class, part) program at the shape's own
numbers (``MatchTable.static_program``), and that program is most often a box
(``carving``: a conjunction of bounds ``x op c`` on single numbers, such as
``TARGET.Disk >= RequestDisk``) or one that never matches (another ``OpSys``). Asking
every shape costs a Python step per (class, shape) even when the answer is no; so the
unheld static shapes are grouped by part once, each part's shapes sorted by each number
of the vector, and a class takes

* nothing of a part whose program never matches;
* of a box, only the shapes in the narrowest range its bounds leave on one number,
  found by bisection; the program still runs on each of those (``static_lists``:
  the bounds on the other numbers, or a bound a real cannot tell, may rule it out);
* every shape of a part whose program is no box or cannot be made, of a part with
  fewer than ``SORTED`` unheld shapes, and of no shared part, as before.

Exactness: a shape left out fails a bound of the program, and ``PairProgram.run``
answers no match where a bound of a box fails; the range errs on the side of holding
(``box_ranges``, which ``held_walks`` uses for held groups too).

Static shapes never gain members and lose them only when matched (``OfferShapes``):
a shape that has left is passed over, and the groups are made again when half of
their shapes have left or when offers were prepared since (none are, after the
cycle's set-up). Made again after shapes left, they are the last groups narrowed
(``StaticParts._narrowed``): shapes leave ``members`` without the rest moving, so
each part's shapes and each column keep their order filtered, which is the grouping
afresh of the shapes left (its values not read, converted or sorted again: at 10k
static mix, 5,900 shapes over five regroupings). The vectors are looked up by offer
``seq`` (``MatchTable.static_vectors``), a look-up per shape, not a call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import compress

from condorlite.core.matching.box_ranges import Column, Split, column, narrowest, split
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import StaticVector

#: the least number of unheld shapes a part must hold to be sorted (below it every
#: shape is asked, as for a part that is not shared)
SORTED = 2


class Part:
    """The unheld shapes of one shared static part: ``offer`` stands for all of them
    when the part's program is asked for; ``axes[i]``: the shapes by the vector's
    ``i``-th number (``box_ranges.Column``), or None when those numbers have no order."""

    __slots__ = ("_first", "_literals", "_plain", "axes", "offer", "shapes", "vals")

    def __init__(self, offer: Offer, shapes: list[int], axes: list[Column | None],
                 vals: dict[int, tuple]) -> None:
        self.offer, self.shapes, self.axes = offer, shapes, axes
        #: shape -> its numbers (``StaticVector.vals``: every offer of it has them)
        self.vals = vals
        #: (first literal position, width) -> ``by_literals``' answer, once made
        self._literals: tuple[tuple[int, int], list[list[int]] | None] | None = None
        #: position -> ``plain``'s answer, once asked
        self._plain: dict[int, bool] = {}
        #: the first of ``shapes`` that had not left at the last ``gone`` (``shapes``
        #: before it had)
        self._first = 0

    def by_literals(self, first: int, width: int) -> list[list[int]] | None:
        """The part's shapes grouped by their own literals (their vectors' values at
        positions ``first`` to ``width``), in the part's order; None when the groups
        would be more than half as many as the shapes (a probe per group would then
        cost about what it saves: ``literal_tests``)."""
        known = self._literals
        if known is not None and known[0] == (first, width):
            return known[1]
        groups: dict[tuple, list[int]] = {}
        vals = self.vals
        for shape in self.shapes:
            groups.setdefault(vals[shape][first:width], []).append(shape)
        found = list(groups.values()) if 2 * len(groups) <= len(self.shapes) else None
        self._literals = ((first, width), found)
        return found

    def narrowed(self, shapes: list[int], offer: Offer,
                 members: dict[int, dict[int, None]]) -> Part:
        """The part made of ``shapes`` (those of its shapes still in ``members``, in
        its order), ``offer`` standing for them: each column filtered in its order
        (the same as one sorted afresh: ties keep the shapes' order); a column
        that could not be made is made again of the values left."""
        vals = self.vals
        left = {shape: vals[shape] for shape in shapes}
        axes: list[Column | None] = []
        if len(shapes) >= SORTED:
            width = len(vals[shapes[0]])
            for index in range(width):
                axis = self.axes[index] if index < len(self.axes) else None
                if axis is None:
                    axes.append(column(shapes, [v[index] for v in left.values()]))
                    continue
                there = list(map(members.__contains__, axis.items))
                axes.append(Column(list(compress(axis.keys, there)),
                                   list(compress(axis.items, there))))
        return Part(offer, shapes, axes, left)

    def gone(self, members: dict[int, dict[int, None]]) -> bool:
        """Whether every shape of the part has left (none in ``members``): then no
        class's list takes one, and its program of the part need not be made. A
        shape that has left never comes back, so those found gone are not looked at
        again."""
        shapes, first = self.shapes, self._first
        end = len(shapes)
        while first < end and shapes[first] not in members:
            first += 1
        self._first = first
        return first == end

    def plain(self, index: int) -> bool:
        """Whether the shapes' values at position ``index`` are of one type, and
        none a real zero: then values equal in Python are equal in ClassAds too
        (``box_reads``: ``1`` and ``1.0``, ``0.0`` and ``-0.0`` are not)."""
        known = self._plain.get(index)
        if known is None:
            values = [vals[index] for vals in self.vals.values()]
            kinds = set(map(type, values))
            known = self._plain[index] = len(kinds) == 1 and (
                float not in kinds or 0.0 not in values)
        return known

    def within(self, program: PairProgram | None) -> Sequence[int]:
        """The shapes ``program`` (the part's program of a class, None: none can be
        made) may match (module doc): () when it never matches, the narrowest range
        of a box's bounds on one number, else every shape."""
        if program is None:
            return self.shapes
        if program.never:
            return ()
        if not program.box:
            return self.shapes
        axes = self.axes
        found = narrowest(program, lambda index: axes[index] if 0 <= index < len(axes)
                          else None)
        return self.shapes if found is None else found

    def split(self, program: PairProgram) -> Split | None:
        """``within`` of a box in two (``box_ranges.split``): the shapes it surely
        passes and those to run it on; None when that cannot be told (``within``)."""
        axes = self.axes
        return split(program, lambda index: axes[index] if 0 <= index < len(axes)
                     else None)


class StaticParts:
    """The cycle's unheld static shapes by shared static part (module doc).
    ``registry`` and ``members`` are the matchmaker's offers and static shapes (read,
    never changed); ``vectors()``: the vectors of the static offers whose part is
    shared, by ``seq`` (``MatchTable.static_vectors``: an offer not in it has none)."""

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]],
                 vectors: Callable[[], dict[int, StaticVector]]) -> None:
        self._registry, self._members, self._vectors = registry, members, vectors
        #: the shapes asked one by one, and the sorted parts (``_group``)
        self._walked: list[int] = []
        self._parts: list[Part] = []
        #: the shapes of no shared part, and every part (those too small to sort
        #: among them, without columns), as last grouped (``_narrowed``)
        self._plain: list[int] = []
        self._every: list[Part] = []
        #: how many offers were prepared and how many shapes were grouped, when grouped
        self._prepared = -1
        self._grouped = 0

    def groups(self) -> tuple[list[int], list[Part]]:
        """The shapes to ask one by one and the sorted parts; shapes in either may
        have left since (not in ``members``)."""
        if (self._prepared != len(self._registry)
                or len(self._members) * 2 < self._grouped):
            self._group()
        return self._walked, self._parts

    def _group(self) -> None:
        """Group the shapes: by narrowing the last grouping to the shapes still
        there when no offer was prepared since (``_narrowed``), else afresh."""
        if self._prepared == len(self._registry) and self._narrowed():
            return
        registry = self._registry
        # (a look-up per shape, not a call: every shape is placed at a grouping)
        vector_of = self._vectors().get
        plain: list[int] = []
        #: part id -> (an offer of it, its shapes, their vals)
        by_part: dict[int, tuple[Offer, list[int], list[tuple]]] = {}
        for shape, seqs in self._members.items():
            seq = next(iter(seqs))
            vector = vector_of(seq)
            if vector is None:
                plain.append(shape)
                continue
            found = by_part.get(vector.static)
            if found is None:
                found = by_part[vector.static] = (registry[seq], [], [])
            found[1].append(shape)
            found[2].append(vector.vals)
        every = [Part(offer, shapes, [column(shapes, [v[i] for v in vals])
                                      for i in range(len(vals[0]))]
                      if len(shapes) >= SORTED else [],
                      dict(zip(shapes, vals, strict=True)))
                 for offer, shapes, vals in by_part.values()]
        self._plain = plain
        self._settle(plain, every)

    def _settle(self, plain: list[int], every: list[Part]) -> None:
        """Keep ``every`` part (in the order of their first shapes in ``members``)
        and hand out, as ``_group`` made them, the shapes to ask one by one (those
        of no shared part, ``plain``, then those of parts too small to sort) and the
        sorted parts."""
        walked = list(plain)
        parts = []
        for part in every:
            if len(part.shapes) < SORTED:
                walked.extend(part.shapes)
            else:
                parts.append(part)
        self._every, self._walked, self._parts = every, walked, parts
        self._prepared, self._grouped = len(self._registry), len(self._members)

    def _narrowed(self) -> bool:
        """The last grouping less the shapes that have left, as a grouping afresh
        would make it: shapes leave ``members`` without the rest moving, so each
        part's shapes and each column (``box_ranges.Column``: ties in the shapes'
        order) keep their order filtered, and no value is read or sorted again
        (a column that could not be made is tried again on the shapes left; the
        parts are put in the order of their first shapes left). False, and nothing
        changed, when a shape has joined ``members`` since (then group afresh)."""
        members = self._members
        plain = [shape for shape in self._plain if shape in members]
        alive = len(plain)
        kept: list[tuple[Part, list[int]]] = []
        for part in self._every:
            shapes = [shape for shape in part.shapes if shape in members]
            if shapes:
                kept.append((part, shapes))
                alive += len(shapes)
        if alive != len(members):
            return False
        place = dict(zip(members, range(len(members)), strict=True))
        kept.sort(key=lambda found: place[found[1][0]])
        registry = self._registry
        every = [part.narrowed(shapes, registry[next(iter(members[shapes[0]]))],
                               members) for part, shapes in kept]
        self._plain = plain
        self._settle(plain, every)
        return True
