"""Residuals specialised for the types of their free values: one Python function of
``vals`` per (residual, type tuple), its type tests folded away.

A residual (``partial.specialize``) tests the types of the values it meets at every
operator, because any free value may be of any type: the default post-job rank
``(RemoteOwner =?= UNDEFINED) * (ifThenElse(isUndefined(KFlops), 1000, KFlops) -
SlotID - 1.0e10 * (Offline =?= True))`` of a slot binding ``KFlops`` and ``SlotID``
to integers (``RemoteOwner`` and ``Offline`` absent) is ``true * ((KFlops - SlotID)
- 0.0)`` and costs 13 Python calls a run. ``partial.specialize`` given ``kinds`` (the
free values' types, one per free attribute) makes the residual that holds for every
``vals`` of those types: a free value is then a typed source (``Typed``), and

* ``isUndefined``, ``isError``, ``isString``, ``isInteger``, ``isReal`` and
  ``isBoolean`` of one are constants (``fold_call``: they read the type alone), so an
  ``ifThenElse`` of one chooses its branch as the walk is made;
* ``=?=`` / ``is`` (``=!=`` / ``isnt``) of one and undefined or error is ``false``
  (``true``): ``operators.meta_equal`` of a value that is no special value and a
  special value (``fold_meta``);
* ``+ - *`` of two typed operands whose types are numbers (``arithmetic``) is Python
  source without a call: ``operators.arithmetic_fn(op)``'s answer for those types,
  case by case. Two integers or booleans: integer arithmetic (a boolean is 0 or 1),
  wrapped to 64 bits out of range; a kind ``int``. A real with a number: the two as
  reals, an infinite result an error; a kind ``REAL`` (a real or error). A ``REAL``
  operand that is an error makes the result an error (``operators.strict2``: the
  other operand, a number, is never undefined).

Every other operator is made as ever, of the typed operands' general residuals (a
typed ``Res``'s ``fn``), and is a call of that residual in the typed source. The
whole residual is one ``lambda vals: <source>`` (``compiled``, made by
``partial``'s ``_top``). Exact: each rule is what the general residual computes for
values of those types (tests compare the two, and the reference walker, over
generated values).

Free values of a type tuple holding ``Undefined``/``Error`` (one type, two values)
are not specialised (``specialisable``); the general residual runs them.

*Running one* (``typed_runner``): a residual made per type tuple met, kept in the
runner's ``by_types``; the one made for the expected types (a plan's first slot's:
``literal_ranks``) is the runner itself, its types tested at its head
(``guarded``), so a run of the usual types is one Python call (the default post-job
rank's: 13 calls before).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .residuals import Res, Residual
from .residuals import arithmetic as general_arithmetic
from .values import INT64_MAX, INT64_MIN, Error, Special, wrap_int64

#: the kind of a value that is a real or the error value (``arithmetic``'s results)
REAL = "real"
#: the kinds a typed source of a value can have, beyond ``REAL``: the Python types of
#: the values it may be (None: unknown)
NUMBER_KINDS = frozenset((int, bool, float, REAL))
#: a value of each kind whose type alone the type predicates read (``fold_call``)
_SAMPLES: dict[object, object] = {int: 0, float: 0.0, str: "", bool: False}
#: the built-ins whose value is a function of the type of their one argument
TYPE_PREDICATES = frozenset(("isundefined", "iserror", "isstring", "isinteger", "isreal",
                             "isboolean"))
_META = {"=?=": False, "is": False, "=!=": True, "isnt": True}
_SOURCE = "<typed residual>"
#: the names every typed source may use
_GLOBALS = {"_MIN": INT64_MIN, "_MAX": INT64_MAX, "_wrap": wrap_int64, "_ERR": Error,
            "_INF": float("inf")}
_PY_OPS = {"+": "+", "-": "-", "*": "*"}


class Typed:
    """A typed source of a value: ``src``, a Python expression of ``vals`` and the
    names in ``names``, gives the value for every ``vals`` of the residual's type
    tuple; ``kind`` the value's type (or ``REAL``; None: unknown); ``depth``: the
    temporaries ``_t0`` ... ``_t<depth-1>`` it assigns (a node's own are above its
    operands', so none is overwritten before it is read)."""

    __slots__ = ("depth", "kind", "names", "src")

    def __init__(self, src: str, kind: object, names: dict[str, object], depth: int) -> None:
        self.src = src
        self.kind = kind
        self.names = names
        self.depth = depth


def specialisable(kinds: Sequence[type]) -> bool:
    """Whether a type tuple tells its values' kinds apart (``Special`` does not:
    undefined and error are one type)."""
    return Special not in kinds


def free(fn: Residual, index: int, kind: type) -> Res:
    """The free value ``vals[index]``, of type ``kind`` (``fn`` its general residual,
    for the operators made as ever)."""
    return _res(Typed(f"vals[{index}]", kind, {}, 0), fn)


def source(part: object) -> Typed:
    """The typed source of an operand: its own, else a call of its residual or a name
    for the constant (kind: its type, or None for a special value)."""
    if type(part) is Res:
        typed = typed_of(part)
        if typed is not None:
            return typed
        name = f"_f{id(part.fn)}"
        return Typed(f"{name}(vals)", None, {name: part.fn}, 0)
    name = f"_c{id(part)}"
    return Typed(name, None if type(part) is Special else type(part), {name: part}, 0)


def compiled(made: Typed | Residual | None) -> Residual | None:
    """What ``partial.specialize(..., kinds=...)`` made, as a function: a typed
    source as ``lambda vals: <src>`` (module doc), a residual as it is."""
    if type(made) is not Typed:
        return made  # type: ignore[return-value]
    names = dict(_GLOBALS)
    names.update(made.names)
    return _function(f"lambda vals: {made.src}", names)


def _function(text: str, names: dict[str, object]) -> Residual | None:
    """``text`` (a lambda) compiled with ``names``, or None where Python's compiler
    refuses it: a residual nested deeper than its parser's limits (a slot's own
    expression of 150 nested sums read by a policy rank; the ClassAd parser allows
    500 levels) is then run by its general residual, never a failed cycle."""
    try:
        return eval(compile(text, _SOURCE, "eval"), names)
    except (SyntaxError, RecursionError, MemoryError):
        return None


def typed_of(part: Res) -> Typed | None:
    """A residual's typed source, None if it has none (made as ever)."""
    return getattr(part, "typed", None)


def _res(typed: Typed, general: object) -> Res:
    """The typed value: its function is the general residual's (``general``: what
    ``residuals`` makes of the operands, or a residual), for the operators made as
    ever; only the whole residual is compiled (``typed_runner``)."""
    out = Res(general.fn if type(general) is Res else general)  # type: ignore[arg-type]
    out.typed = typed
    return out


def arithmetic(op: str, left: object, right: object) -> Res | None:
    """``left op right`` (``+ - *``, one operand at least a residual) as typed source
    when both operands' kinds are numbers (module doc), else None (made as ever)."""
    if type(left) is not Res and type(right) is not Res:
        return None  # (two constants: folded as ever)
    a, b = source(left), source(right)
    if a.kind not in NUMBER_KINDS or b.kind not in NUMBER_KINDS:
        return None
    names = {**a.names, **b.names}
    base = max(a.depth, b.depth)
    py = _PY_OPS[op]
    if (a.kind is int or a.kind is bool) and (b.kind is int or b.kind is bool):
        t = f"_t{base}"
        source_text = f"({t} if _MIN <= ({t} := {a.src} {py} {b.src}) <= _MAX else _wrap({t}))"
        return _res(Typed(source_text, int, names, base + 1),
                    general_arithmetic(op, left, right))
    # A real with a number: reals, an infinite result an error; a REAL operand that
    # is the error value makes the whole an error.
    checks = []
    depth = base
    operands = []
    for part in (a, b):
        if part.kind is REAL:
            t = f"_t{depth}"
            depth += 1
            checks.append(f"({t} := {part.src}) is _ERR")
            operands.append(t)
        elif part.kind is float:
            operands.append(part.src)
        elif part.src in part.names:  # a constant: made a real once, here
            name = f"{part.src}r"
            names[name] = float(part.names[part.src])  # type: ignore[arg-type]
            operands.append(name)
        else:
            operands.append(f"float({part.src})")
    t = f"_t{depth}"
    real = f"(_ERR if ({t} := {operands[0]} {py} {operands[1]}) == _INF else {t})"
    if checks:
        real = f"(_ERR if {' or '.join(checks)} else {real})"
    return _res(Typed(real, REAL, names, depth + 1), general_arithmetic(op, left, right))


def fold_call(lname: str, fn: Callable[[object], object], args: Sequence[object]
              ) -> tuple[bool, object]:
    """``(True, value)`` when the built-in ``lname`` (its function ``fn``) of ``args``
    is a constant for the type tuple (a type predicate of a typed value of known kind:
    ``fn`` of a value of that kind), else ``(False, None)``."""
    if lname in TYPE_PREDICATES and len(args) == 1:
        (arg,) = args
        typed = typed_of(arg) if type(arg) is Res else None
        if typed is not None and typed.kind in _SAMPLES:
            return True, fn(_SAMPLES[typed.kind])
    return False, None


def fold_meta(op: str, left: object, right: object) -> tuple[bool, object]:
    """``(True, value)`` for ``=?=`` / ``is`` / ``=!=`` / ``isnt`` of a typed value of a
    known kind (never a special value) and undefined or error; else ``(False, None)``."""
    if op not in _META:
        return False, None
    for value, other in ((left, right), (right, left)):
        typed = typed_of(value) if type(value) is Res else None
        if typed is not None and typed.kind in _SAMPLES and type(other) is Special:
            return True, _META[op]
    return False, None


def typed_runner(general: Residual, make: Callable[[tuple], Typed | Residual | None],
                 expected: tuple | None = None) -> Residual:
    """A residual that runs, for ``vals`` of a type tuple seen before, the residual
    made for it (``compiled(make(types))``: ``make`` is ``partial.specialize`` given
    the types; made once, kept in ``by_types``), ``general`` where ``make`` gives
    None or the tuple is not ``specialisable``. ``expected``: the
    type tuple the values are expected to have (the first slot's): the residual
    returned is then the one made for it, guarded (``guarded``), which runs the
    others' on a tuple of other types."""
    by_types: dict[tuple, Residual] = {}

    def run(vals):  # type: ignore[no-untyped-def]
        kinds = tuple(map(type, vals))
        fn = by_types.get(kinds)
        if fn is None:
            fn = (compiled(make(kinds)) if specialisable(kinds) else None) or general
            by_types[kinds] = fn
        return fn(vals)

    run.by_types = by_types  # type: ignore[attr-defined]
    run.general = general  # type: ignore[attr-defined]
    if expected is None or not specialisable(expected):
        return run
    made = make(expected)
    if type(made) is not Typed:
        by_types[expected] = made or general  # type: ignore[assignment]
        return run
    # (the guard's own: ``run`` meets the expected types only through ``by_types``)
    out = guarded(made, expected, run)
    if out is None:  # (too deep for Python's compiler: ``_function``)
        by_types[expected] = general
        return run
    by_types[expected] = out
    out.by_types = by_types  # type: ignore[attr-defined]
    out.general = general  # type: ignore[attr-defined]
    return out


def guarded(typed: Typed, kinds: tuple, other: Residual) -> Residual | None:
    """``lambda vals: <typed.src>`` for ``vals`` whose types are ``kinds``, else
    ``other(vals)``: one call a run, the types tested once at its head (None where
    Python's compiler refuses the source, ``_function``)."""
    names = dict(_GLOBALS)
    names.update(typed.names)
    names["_other"] = other
    tests = []
    for i, kind in enumerate(kinds):
        names[f"_k{i}"] = kind
        tests.append(f"type(vals[{i}]) is _k{i}")
    test = " and ".join(tests) or "True"
    text = f"lambda vals: ({typed.src}) if {test} else _other(vals)"
    return _function(text, names)
