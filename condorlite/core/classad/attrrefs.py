"""Closures for attribute references: ``x``, ``MY.x``, ``TARGET.x``, ``PARENT.x``, ``.x``.

``build_attr(lname, scope)`` returns ``fn(cur, env)`` giving exactly the value of the
general lookups in ``scope.py`` (``resolve_unscoped``, ``select``...), with a
direct read of the ad's storage (``ClassAd._attrs``: lower-case name -> (spelling,
expr)) for the common cases: a name found in ``cur`` itself (or, when ``cur`` lacks
it, in the other ad of the match, see ``scope.unscoped_miss``); ``TARGET.x`` from
a top-level ad with no attribute named ``target``; ``MY.x`` from an ad with no
attribute named ``my``. A found attribute whose expression is a constant is answered
from the value folded on its node (``cache.py``), without the cycle guard (a constant refers to
nothing, so it cannot be part of a cycle); the depth limit still applies.
"""

from __future__ import annotations

from . import cache
from . import scope as sc
from .values import Undefined

Compiled = cache.Compiled


def build_attr(lname: str, scope: str | None) -> Compiled:
    if scope is None:
        return _build_unscoped(lname)
    if scope == "absolute":

        def absolute(cur: object, env: sc.Env) -> object:
            root = env.root(cur)
            return Undefined if root is None else sc.resolve(root, lname, env)

        return absolute
    if scope == "target":
        return _build_target(lname)
    if scope == "my":
        return _build_my(lname)
    # PARENT.x: the scope word is itself an unscoped name.
    return lambda cur, env: sc.select(sc.resolve_unscoped(cur, scope, env), lname, env, cur)


def _build_unscoped(lname: str) -> Compiled:
    varies = cache.VARIES
    max_depth = sc.MAX_DEPTH
    eval_found = sc._eval_found
    general = sc.resolve_unscoped
    unscoped_miss = sc.unscoped_miss

    def unscoped(cur: object, env: sc.Env) -> object:
        try:
            entry = cur._attrs.get(lname)  # type: ignore[attr-defined]
        except AttributeError:
            return general(cur, lname, env)
        if entry is None:
            return unscoped_miss(cur, lname, env)
        expr = entry[1]
        value = getattr(expr, "_folded", varies)
        if value is not varies and env.depth < max_depth:
            return value
        return eval_found(cur, lname, expr, env)

    return unscoped


def _build_target(lname: str) -> Compiled:
    """``TARGET.x``. From a top-level ad with no attribute ``target``, the scope word
    names the other ad of the match (undefined outside one), and ``x`` is read there."""
    varies = cache.VARIES
    max_depth = sc.MAX_DEPTH
    eval_found = sc._eval_found
    found_in = sc.found_in

    def general(cur: object, env: sc.Env) -> object:
        return sc.select(sc.resolve_unscoped(cur, "target", env), lname, env, cur)

    def target(cur: object, env: sc.Env) -> object:
        try:
            attrs = cur._attrs  # type: ignore[attr-defined]
        except AttributeError:
            return general(cur, env)
        if "target" in attrs or cur.parent is not None:  # type: ignore[attr-defined]
            return general(cur, env)
        other = env.other(cur)
        if other is None:
            return Undefined
        try:
            entry = other._attrs.get(lname)  # type: ignore[attr-defined]
        except AttributeError:
            return sc.select(other, lname, env, cur)
        if entry is None:
            return found_in(other, lname, env)
        expr = entry[1]
        value = getattr(expr, "_folded", varies)
        if value is not varies and env.depth < max_depth:
            return value
        return eval_found(other, lname, expr, env)

    return target


def _build_my(lname: str) -> Compiled:
    """``MY.x``: from an ad with no attribute ``my`` the scope word is that ad."""

    def general(cur: object, env: sc.Env) -> object:
        return sc.select(sc.resolve_unscoped(cur, "my", env), lname, env, cur)

    def my(cur: object, env: sc.Env) -> object:
        try:
            attrs = cur._attrs  # type: ignore[attr-defined]
        except AttributeError:
            return general(cur, env)
        if "my" in attrs:
            return general(cur, env)
        return sc.found_in(cur, lname, env)

    return my
