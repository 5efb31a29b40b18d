"""``ClassAd``: an ordered, case-insensitive mapping of attribute name -> expression.

Invariants:

* Keys compare case-insensitively; the spelling kept is the one first inserted, and
  re-assigning a name keeps its spelling and its position (as HTCondor keeps the first
  spelling).
* Iteration follows insertion order. (HTCondor itself stores attributes sorted by
  length, then case-insensitively; the writers take ``sort=True`` to print that way,
  byte for byte as classad2 prints.)
* Values are expression nodes (``ast.Expr``). Assigning a Python value converts it to a
  literal node: bool, int (must fit in 64 bits), float, str, Undefined, Error; a list
  or tuple becomes a list expression, a dict or ClassAd a nested record.
* ``parent`` is the enclosing ad of a nested ad (the evaluator's scoping); None at top.

Storage is one dict: lower-cased name -> (spelling, expr). The readers intern what
they parse (``interning.py``), so the ``(spelling, expr)`` tuples and the expressions
in them are shared between ads: they are immutable, and assignment replaces an entry,
never changes one. (The evaluator reads the dict directly, so the entry layout is a
contract; parsing is eager, see ``formats.py`` for why lazy parsing was measured not
to pay.)

A ClassAd's dict is the plain slot ``_attrs`` (CPython specialises its read: the hot
readers, evaluator, scope and programs, read it for every attribute). Where the
compiled module is built, the compiled scanner makes the ads of a run of ads of the
same names, from the run's third on (``_oldscan/ads.c``), as ``LazyClassAd``: a
subclass of the very same layout whose ``_attrs`` is a C data descriptor
(``_oldscan/table.c``) over the same member, which may hold the *lazy form*: the run's
private base dict and the ad's own pairs. The first read of a lazy ad's ``_attrs``
makes the very dict the copy would have been (same keys, order, values and table size),
stores it, and turns the ad into a ``ClassAd`` (its type switched in C, as
``ad.__class__ = ClassAd`` would); so does a write of ``_attrs``. Invariants: a
``ClassAd``'s ``_attrs`` is always a whole dict; a lazy ad is a ``ClassAd`` for
``isinstance`` and for every method, and equal, printed and pickled as the whole ad; a
fast path that tests ``type(ad) is ClassAd`` tests ``LazyClassAd`` too (reading its
``_attrs`` makes it whole) or reads it as it is (``table_entry``: one entry without
making the table whole). Readers that take the member by offset in C
(``oldscan.gather``, ``oldscan.changes``) handle the lazy form. ``TABLE_SLOT`` names
the member, for the C readers and writers by offset.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, MutableMapping

from condorlite.core.classad.ast import Expr, ListExpr, Literal, RecordExpr
from condorlite.core.classad.evaluator import evaluate_attribute
from condorlite.core.classad.jsonads import ad_to_json
from condorlite.core.classad.printer import format_name, htcondor_order, unparse, unparse_attrs
from condorlite.core.classad.scope import install_no_ad
from condorlite.core.classad.values import INT64_MAX, INT64_MIN, Special

try:
    from condorlite.core.classad._oldscan import table_slot
except ImportError:  # built without a C compiler: ``_attrs`` is the slot itself
    table_slot = None

#: the slot that holds an ad's table (module doc)
TABLE_SLOT = "_attrs"


def to_expr(value: object) -> Expr:
    """Convert a Python value (or an expression, returned as is) to an expression node."""
    if isinstance(value, Expr):
        return value
    if isinstance(value, (bool, float, str, Special)):
        return Literal(value)
    if isinstance(value, int):
        if not INT64_MIN <= value <= INT64_MAX:
            raise ValueError(f"integer {value} does not fit in a 64-bit ClassAd integer")
        return Literal(value)
    if isinstance(value, (list, tuple)):
        return ListExpr(tuple(to_expr(item) for item in value))
    if isinstance(value, ClassAd):
        return RecordExpr(tuple(value.items()))
    if isinstance(value, Mapping):
        return RecordExpr(tuple((_check_name(k), to_expr(v)) for k, v in value.items()))
    raise TypeError(f"cannot store a {type(value).__name__} in a ClassAd")


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not name:
        raise TypeError(f"a ClassAd attribute name must be a non-empty str, not {name!r}")
    return name


class ClassAd(MutableMapping[str, Expr]):
    """An ad: ordered, case-insensitive attributes holding expressions."""

    __slots__ = (TABLE_SLOT, "layout", "parent")

    def __init__(
        self,
        attrs: Mapping[str, object] | Iterable[tuple[str, object]] | None = None,
        /,
        **kwargs: object,
    ) -> None:
        self._attrs: dict[str, tuple[str, Expr]] = {}
        self.parent: ClassAd | None = None
        #: what the ad shares with the ads read just before it that bind the very
        #: same names (the reader's mark, ``_from_attrs``), or None
        self.layout: object | None = None
        if attrs is not None:
            pairs = attrs.items() if isinstance(attrs, Mapping) else attrs
            for name, value in pairs:
                self[name] = value
        for name, value in kwargs.items():
            self[name] = value

    @classmethod
    def _from_attrs(cls, attrs: dict[str, tuple[str, Expr]], layout: object | None = None
                    ) -> ClassAd:
        """An ad that takes ``attrs`` (lower-case name -> (spelling, expr)) as its
        storage, unchecked and uncopied: for readers that built it correctly.

        ``layout``: a mark the reader gives every ad of one run of consecutive ads
        whose tables hold the very same names (the same key objects), or None. The
        compiled scanner's marks are sets of names (``_oldscan/ads.c``): the names
        whose lines differ between the run's first two ads, and a later ad stays in
        the run only while the lines it changes are at those names.
        Invariants: two ads with the same mark (``is``) bind the same names, so a
        reader of many tables may take the names of one of them for all; two ads
        with the same mark that is a set bind every name not in it to the very same
        entry object, so a reader of a run may read such names in its first ad only
        (the grouping's sweep does both, ``matching.significant``); any change of the
        ad's attributes drops its mark. (The compiled scanner builds its ads as this
        does, in C: ``oldscan._FROM_ATTRS``, which sets the three slots.)"""
        ad = cls.__new__(cls)
        ad._attrs = attrs
        ad.parent = None
        ad.layout = layout
        return ad

    # -- mapping protocol -------------------------------------------------------------

    def lookup(self, name: str) -> Expr | None:
        """The expression of attribute ``name`` (any case), or None when absent."""
        entry = self._attrs.get(name.lower())
        return None if entry is None else entry[1]

    def __getitem__(self, name: str) -> Expr:
        entry = self._attrs.get(name.lower()) if isinstance(name, str) else None
        if entry is None:
            raise KeyError(name)
        return entry[1]

    def __setitem__(self, name: str, value: object) -> None:
        _check_name(name)
        key = name.lower()
        entry = self._attrs.get(key)
        spelling = name if entry is None else entry[0]
        self._attrs[key] = (spelling, to_expr(value))
        self.layout = None

    def __delitem__(self, name: str) -> None:
        key = name.lower() if isinstance(name, str) else name
        if key not in self._attrs:
            raise KeyError(name)
        del self._attrs[key]
        self.layout = None

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._attrs

    def __iter__(self) -> Iterator[str]:
        return (spelling for spelling, _ in self._attrs.values())

    def __len__(self) -> int:
        return len(self._attrs)

    def items(self) -> list[tuple[str, Expr]]:  # type: ignore[override]
        """``(spelling, expr)`` pairs in order (a list: cheap, and safe to mutate under)."""
        return list(self._attrs.values())

    def copy(self) -> ClassAd:
        """A shallow copy: same attributes (expressions are immutable), same parent."""
        new = ClassAd()
        new._attrs = dict(self._attrs)
        new.parent = self.parent
        return new

    def spelling(self, name: str) -> str | None:
        """The stored spelling of ``name``, or None when absent."""
        entry = self._attrs.get(name.lower())
        return None if entry is None else entry[0]

    # -- evaluation -------------------------------------------------------------------

    def evaluate(self, name: str, target: ClassAd | None = None, *, now: int | None = None):
        """The value of attribute ``name`` with this ad as MY and ``target`` as TARGET."""
        return evaluate_attribute(self, name, target, now=now)

    # -- writers ----------------------------------------------------------------------

    def to_old(self, *, sort: bool = False) -> str:
        """Old syntax, one ``Name = expr`` line each (classad2's ``printOld()``)."""
        pairs = self._sorted_items() if sort else self.items()
        return "".join(
            f"{format_name(name, old=True)} = {unparse(expr, old=True, sort=sort)}\n"
            for name, expr in pairs
        )

    def to_new(self, *, pretty: bool = True, sort: bool = False) -> str:
        """New syntax ``[ ... ]``: pretty (classad2's ``str(ad)``) or one line
        (``pretty=False``, classad2's ``repr(ad)``)."""
        return unparse_attrs(self.items(), pretty=pretty, sort=sort)

    def to_json(self, *, sort: bool = False) -> str:
        """JSON object (classad2's ``printJson()``)."""
        return ad_to_json(self, sort=sort)

    def _sorted_items(self) -> list[tuple[str, Expr]]:
        return sorted(self.items(), key=lambda pair: htcondor_order(pair[0]))

    # -- comparison and display -------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        """Equal when both hold the same names (any case) with equal expressions."""
        if not isinstance(other, ClassAd):
            return NotImplemented
        if len(self._attrs) != len(other._attrs):
            return False
        for key, (_, expr) in self._attrs.items():
            theirs = other._attrs.get(key)
            if theirs is None or theirs[1] != expr:
                return False
        return True

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"ClassAd({unparse_attrs(self.items())!r})"

    def __str__(self) -> str:
        return unparse_attrs(self.items())


class LazyClassAd(ClassAd):
    """An ad the compiled scanner read inside a run, whose table may still be in the
    lazy form: a ``ClassAd`` in every way (it adds no field and no behaviour), until
    the first read or write of its ``_attrs`` turns it into one (module doc). Only the
    compiled scanner makes them; nothing else should."""

    __slots__ = ()

    def __reduce_ex__(self, protocol: object) -> object:
        # Pickled and copied as the ClassAd it is: the reduction reads ``_attrs``,
        # which turns the ad into one mid-way (pickle then refuses a class that
        # changed), so the table is made whole first.
        self._attrs  # noqa: B018
        return ClassAd.__reduce_ex__(self, protocol)


def _entry_of_whole(ad: ClassAd, key: str) -> tuple[str, Expr] | None:
    return ad._attrs.get(key)


#: ``table_entry(ad, key)``: ``ad._attrs.get(key)`` (``key`` a lower-case name),
#: without making a lazy table whole (module doc)
table_entry: Callable[[ClassAd, str], tuple[str, Expr] | None] = _entry_of_whole
if table_slot is not None:
    LazyClassAd._attrs = table_slot(  # type: ignore[misc]
        tuple(ClassAd.__dict__[name] for name in (TABLE_SLOT, "layout", "parent")),
        LazyClassAd)
    table_entry = LazyClassAd.__dict__["_attrs"].entry

install_no_ad(ClassAd())  # the empty ad that stands for "no MY ad" (``scope._no_ad``)
