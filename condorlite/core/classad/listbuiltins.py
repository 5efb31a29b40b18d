"""List built-ins (see ``builtins.py``): sum avg min max size, member and
identicalMember, anyCompare and allCompare, and the nested-ad functions countMatches
and evalInEachContext.

Each follows HTCondor's function of the same name argument by argument, including
the order in which undefined and error arguments are checked (the differential tests
pin these against classad2).
"""

from __future__ import annotations

from . import operators as ops
from .ad import ClassAd
from .ast import AttrRef, Expr, ListExpr, RecordExpr, Select
from .builtins import _is_ad, _plain_number, register
from .cache import compile_expr
from .scope import MAX_DEPTH, MAX_STEPS, Env, _lookup_in_scope, resolve_unscoped, unscoped
from .values import Error, ExprList, Undefined, is_list, list_values, utf8


def _list_numbers(values: object) -> list[int | float] | object:
    """The numeric elements of a list (undefined skipped, booleans as 0/1), or error."""
    values = list_values(values)
    if type(values) is not list:
        return Undefined if values is Undefined else Error
    numbers: list[int | float] = []
    for item in values:
        if item is Undefined:
            continue
        n = _plain_number(item)
        if n is None:
            return Error
        numbers.append(n)
    return numbers


@register("sum", 1, 1, reads_lists=True)
def sum_(values):  # type: ignore[no-untyped-def]
    """sum(list): the sum of the numbers in list (undefined elements skipped; 0 if
    none, the element itself if one); an integer unless a real is present; a
    non-number is error."""
    values = list_values(values)
    if type(values) is not list:
        return Undefined if values is Undefined else Error
    kept = [item for item in values if item is not Undefined]
    if any(_plain_number(item) is None for item in kept):
        return Error
    if not kept:
        return 0
    total = kept[0]  # a single element comes back as it is (even a boolean)
    for n in kept[1:]:
        total = ops.arithmetic("+", total, n)
    return total


@register("avg", 1, 1, reads_lists=True)
def avg(values):  # type: ignore[no-untyped-def]
    """avg(list): the mean of the numbers in list as a real (0 if none): the sum
    starts from the first number itself (so the sign of a lone -0.0 survives) and is
    divided by the count as a real."""
    numbers = _list_numbers(values)
    if type(numbers) is not list:
        return numbers
    if not numbers:
        return 0
    total: object = numbers[0]
    for n in numbers[1:]:
        total = ops.arithmetic("+", total, n)
    if type(total) is not int and type(total) is not float:
        return total  # the sum overflowed to an infinity: error, as in HTCondor
    return ops.arithmetic("/", float(total), float(len(numbers)))


def _extreme(name: str, better: str) -> None:
    def extreme(values):  # type: ignore[no-untyped-def]
        values = list_values(values)
        if type(values) is not list:
            return Undefined if values is Undefined else Error
        kept = [item for item in values if item is not Undefined]
        if any(_plain_number(item) is None for item in kept):
            return Error
        if not kept:
            return Undefined
        if len(kept) == 1:
            return kept[0]
        numbers = [_plain_number(item) for item in kept]
        best = numbers[0]
        for n in numbers[1:]:
            if ops.compare(better, n, best) is True:
                best = n
        any_real = any(type(n) is float for n in numbers)
        return float(best) if any_real else best  # type: ignore[arg-type]

    extreme.__doc__ = (
        f"{name}(list): the {name}imum of the numbers in list (undefined elements "
        "skipped, undefined if none); real if any element is real; non-number is error."
    )
    register(name, 1, 1, reads_lists=True)(extreme)


_extreme("min", "<")
_extreme("max", ">")


@register("size", 1, 1)
def size(value):  # type: ignore[no-untyped-def]
    """size(x): the length of a string (in UTF-8 bytes), a list, or a record."""
    if value is Undefined:
        return Undefined
    if type(value) is str:
        return len(value) if value.isascii() else len(utf8(value))
    if is_list(value):
        return len(value)
    if _is_ad(value):
        return len(value)  # type: ignore[arg-type]
    return Error


@register("member", 2, 2, reads_lists=True)
def member(item, values):  # type: ignore[no-untyped-def]
    """member(x, list): true if some element == x is true (=='s promotion,
    case-insensitive strings; elements whose comparison is undefined or error are
    skipped). Undefined if list or x is undefined; error if list is not a list, if x
    is a list or record, or if x is error (checked in that order)."""
    return _member(item, values, identical=False)


@register("identicalMember", 2, 2, reads_lists=True)
def identical_member(item, values):  # type: ignore[no-untyped-def]
    """identicalMember(x, list): true if some element =?= x; as member, except that
    an undefined or error x is compared like any other value."""
    return _member(item, values, identical=True)


def _member(item, values, *, identical):  # type: ignore[no-untyped-def]
    if values is Undefined or (not identical and item is Undefined):
        return Undefined
    if not is_list(values) or is_list(item) or _is_ad(item):
        return Error
    values = list_values(values)
    if not identical and item is Error:
        return Error
    for element in values:
        same = ops.meta_equal(element, item) if identical else ops.compare("==", element, item)
        if same is True:
            return True
    return False


# The operator names anyCompare/allCompare accept, spelled exactly (case matters).
_COMPARE_NAMES = ("<", "<=", "==", "!=", ">", ">=", "is", "isnt")


def _compare_any(op: str, a: object, b: object) -> object:
    if op == "is":
        return ops.meta_equal(a, b)
    if op == "isnt":
        return ops.meta_not_equal(a, b)
    return ops.compare(op, a, b)


@register("anyCompare", 3, 3, reads_lists=True)
def any_compare(op, values, target):  # type: ignore[no-untyped-def]
    """anyCompare(op, list, v): true if (element op v) is true for some element."""
    return _list_compare(op, values, target, any_of=True)


@register("allCompare", 3, 3, reads_lists=True)
def all_compare(op, values, target):  # type: ignore[no-untyped-def]
    """allCompare(op, list, v): true if (element op v) is true for every element."""
    return _list_compare(op, values, target, any_of=False)


def _list_compare(op, values, target, *, any_of):  # type: ignore[no-untyped-def]
    """HTCondor's listCompare. op: undefined gives undefined, anything but one of
    ``< <= == != > >= is isnt`` (exact spelling) error; then list: undefined gives
    undefined, a non-list error. Elements are compared in order: error stops with
    error; undefined stops with false (for allCompare *and* anyCompare, as HTCondor
    does); a decisive boolean stops early."""
    if op is Undefined:
        return Undefined
    if type(op) is not str or op not in _COMPARE_NAMES:
        return Error
    if values is Undefined:
        return Undefined
    values = list_values(values)
    if type(values) is not list:
        return Error
    for element in values:
        r = _compare_any(op, element, target)
        if type(r) is not bool:
            return False if r is Undefined else Error
        if r is any_of:
            return r
    return not any_of


# --- nested-ad contexts --------------------------------------------------------------


class NestedEnv(Env):
    """HTCondor evaluates countMatches' expression in a fresh state whose root is the
    nested ad, with the nested ad's alternate scope set to that of the top-level ad of
    the match it belongs to (MY's is TARGET and back)."""

    __slots__ = ("alternate", "nested")

    def __init__(self, base: Env, nested: object) -> None:
        super().__init__(base.my, base.target, base.now)
        self.depth = base.depth + 1
        self.steps = base.steps  # one budget (MAX_STEPS) for the whole evaluation
        self.nested = nested
        top = nested
        while getattr(top, "parent", None) is not None:
            top = top.parent  # type: ignore[attr-defined]
        self.alternate = base.other(top)

    def other(self, ad: object) -> object | None:
        if ad is self.nested:
            return self.alternate
        return Env.other(self, ad)


def _deref(node: Expr, cur, env):  # type: ignore[no-untyped-def]
    """HTCondor's Deref of an attribute reference: ``(holder, expression)`` for the ad
    that defines it, or None. A plain name is looked up from ``cur`` outwards, then in
    the alternate scope; ``MY.x``/``TARGET.x``/``PARENT.x`` in the ad the scope
    names."""
    if not isinstance(node, AttrRef) or node.scope == "absolute":
        return None
    lname = node.name.lower()
    if node.scope is None:
        holder, found = _lookup_in_scope(cur, lname, env)
        if holder is None and found is Undefined:
            other = env.other(cur)
            if other is not None:
                holder, found = _lookup_in_scope(other, lname, env)
    else:
        scope_ad = resolve_unscoped(cur, node.scope.lower(), env)
        if not _is_ad(scope_ad):
            return None
        holder, found = _lookup_in_scope(scope_ad, lname, env)
    return None if holder is None else (holder, found)


def _list_argument(node: Expr, cur, scope, env):  # type: ignore[no-untyped-def]
    """The list argument's value as HTCondor computes it after its Deref of the first
    argument: attribute references are looked up from ``scope`` (the ad where the
    first argument was found; None after a failed lookup, when every reference is
    undefined), while records written out in a list literal still belong to ``cur``
    (their parent scope is fixed when they are parsed)."""
    if scope is None:
        blank = ClassAd()
        scope, env_here = blank, Env(blank, None, env.now)
    else:
        blank, env_here = None, env

    def value_of(item: Expr) -> object:
        if isinstance(item, RecordExpr):
            return compile_expr(item)(cur, env)
        value = compile_expr(item)(scope, env_here)
        if blank is not None and _is_ad(value) and getattr(value, "parent", None) is blank:
            value.parent = cur  # type: ignore[attr-defined]
        return value

    if isinstance(node, ListExpr):
        return [value_of(item) for item in node.items]
    value = value_of(node)
    if type(value) is ExprList:
        # A list literal's elements are read where the lookup left the evaluation
        # (``scope``), as HTCondor reads them.
        value = value.evaluated_in(scope, env_here)
    if blank is not None and type(value) is list:
        for item in value:
            if _is_ad(item) and getattr(item, "parent", None) is blank:
                item.parent = cur
    return value


def _in_each_context(cur, env, args, *, count):  # type: ignore[no-untyped-def]
    """countMatches/evalInEachContext (see their docstrings)."""
    found = _deref(args[0], cur, env)
    if found is not None:
        scope, expr = found
    else:
        expr = args[0]
        scope = None if isinstance(expr, (AttrRef, Select)) else cur
    values = _list_argument(args[1], cur, scope, env)
    if values is Undefined:
        return 0 if count else Undefined
    if type(values) is not list:
        return Error
    if env.depth >= MAX_DEPTH:
        return Error
    fn = compile_expr(expr)
    results = []
    for element in values:
        if _is_ad(element):
            # Each record's evaluation is a step of the evaluation's budget, as an
            # attribute's is: countMatches(Rank, L) inside Rank recurses through no
            # attribute evaluation, len(L) times a level. (A value is copied into the
            # result list, as HTCondor's: scope.unscoped.)
            nested = NestedEnv(env, element)
            nested.steps += 1
            results.append(unscoped(fn(element, nested)) if nested.steps <= MAX_STEPS
                           else Error)
            env.steps = nested.steps
        else:
            results.append(Undefined if element is Undefined else Error)
    if count:
        return sum(1 for r in results if ops.bool_equiv(r) is True)
    return results


@register("countMatches", 2, 2, lazy=True)
def count_matches(cur, env, args):  # type: ignore[no-untyped-def]
    """countMatches(expr, list): how many records of list expr is true (or a non-zero
    number) in. expr is evaluated in each record as its own root, falling back to the
    other ad of the match; if expr is a reference to an attribute, that attribute's
    definition is what is evaluated (so countMatches(RequireGpus, AvailableGpus) runs
    the job's RequireGpus against each GPU record). Elements that are not records, and
    results that are undefined or error, count as no match. An undefined list gives 0;
    any other non-list gives error.

    HTCondor's lookup of expr leaves its evaluation state pointing at the ad where the
    attribute was found (nowhere, if it was not found), and the list argument is
    evaluated after it; condorlite reproduces that for the list argument: names in it
    are looked up from that ad, or are all undefined after a failed lookup (records
    written out in a list literal are unaffected). HTCondor also keeps that state for
    the rest of the enclosing expression; condorlite does not (a documented
    difference)."""
    return _in_each_context(cur, env, args, count=True)


@register("evalInEachContext", 2, 2, lazy=True)
def eval_in_each_context(cur, env, args):  # type: ignore[no-untyped-def]
    """evalInEachContext(expr, list): the list of expr's values in each record of list
    (as countMatches evaluates them); a non-record element gives undefined if it is
    undefined, else error. An undefined list gives undefined; a non-list error."""
    return _in_each_context(cur, env, args, count=False)
