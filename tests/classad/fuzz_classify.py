"""Sorting the campaign's disagreements into classes (``classify``).

A finding's class is named by the construct it comes from: for an evaluation, the
smallest subexpression of the case that still disagrees on its own (``reduce_eval``)
gives the construct (its function name, operator or node kind), so a disagreement deep
inside a random expression is counted once per cause, not once per expression.
Disagreements on the deliberate list of docs/classad.md are set apart as "deliberate (...)":
the old reader's refusal of a bad line, a time-valued Requirements, countMatches'
moved context, cycles, and classad2's crashes on lists that hold themselves.
"""

from __future__ import annotations

from condorlite.core.classad import ast
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.printer import unparse
from condorlite.core.classad.values import AbsTime, RelTime

from . import fuzz_ours
from .fuzz_compare import Finding, run_cases

LIST_CRASH = "deliberate (classad2 crash: a list that holds itself or a function built)"


def children(node: ast.Expr) -> list[ast.Expr]:
    match node:
        case ast.Select(base=b) | ast.Paren(inner=b) | ast.Unary(operand=b):
            return [b]
        case ast.Subscript(base=b, index=i):
            return [b, i]
        case ast.Binary(left=a, right=b) | ast.Elvis(left=a, right=b):
            return [a, b]
        case ast.Conditional(cond=a, then=b, otherwise=c):
            return [a, b, c]
        case ast.Call(args=args) | ast.ListExpr(items=args):
            return list(args)
        case ast.RecordExpr(attrs=attrs):
            return [e for _, e in attrs]
    return []


def label(node: ast.Expr) -> str:
    """The construct a node stands for: a function name, an operator, a node kind."""
    match node:
        case ast.Call(name=name):
            return name.lower()
        case ast.Binary(op=op) | ast.Unary(op=op):
            return op
        case ast.Conditional():
            return "cond"
        case ast.Elvis():
            return "?:"
    return {ast.ListExpr: "list", ast.RecordExpr: "record", ast.Select: "select",
            ast.Subscript: "subscript", ast.AttrRef: "attr", ast.Literal: "literal",
            ast.Paren: "paren"}.get(type(node), type(node).__name__)  # fmt: skip


def subexpressions(tree: ast.Expr) -> list[ast.Expr]:
    """Every node of ``tree`` (without recursion: trees may be 250 deep)."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(children(node))
    return out


def tree_depth(text: str) -> int:
    """The nesting depth of condorlite's tree for ``text`` (0 when it does not parse)."""
    try:
        tree = parse_expr(text)
    except Exception:
        return 0
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children(node))
    return deepest


def reduce_eval(finding: Finding) -> tuple[ast.Expr, Finding]:
    """The smallest subexpression of an eval finding that disagrees on its own (the
    whole expression when none does), with its own finding."""
    tree = parse_expr(finding.case["text"])
    nodes = sorted(subexpressions(tree), key=lambda n: len(unparse(n)))[:-1][:400]
    cases = [{**finding.case, "text": unparse(n)} for n in nodes]
    found, _ = run_cases(cases)
    by_text = {f.case["text"]: f for f in found if f.field == finding.field}
    for node in nodes:
        if unparse(node) in by_text:
            return node, by_text[unparse(node)]
    return tree, finding




def context_moved(case: dict) -> bool:
    """Whether a countMatches/evalInEachContext call's first argument reads a name MY
    does not define, or one outside MY: HTCondor then evaluates the rest of the
    enclosing expression in another ad (a deliberate difference, docs/classad.md)."""
    my = fuzz_ours.ad(case["my"])
    for node in subexpressions(parse_expr(case["text"])):
        if isinstance(node, ast.Call) and node.name.lower() in (
            "countmatches",
            "evalineachcontext",
        ):
            refs = (
                [n for n in subexpressions(node.args[0]) if isinstance(n, ast.AttrRef)]
                if node.args
                else []
            )
            if any(r.scope not in (None, "my") or r.name not in my for r in refs):
                return True
    return False


def time_valued_requirements(case: dict) -> bool:
    """Whether either ad's Requirements is a time value, no match in condorlite (as in
    HTCondor's negotiator) where classad2's Python symmetricMatch reads a non-zero
    reltime as true (a deliberate difference, docs/classad.md)."""
    my, target = fuzz_ours.ad(case["my"]), fuzz_ours.ad(case["target"])
    values = (evaluate("MY.Requirements", my, target), evaluate("MY.Requirements", target, my))
    return any(type(v) in (AbsTime, RelTime) for v in values)


def crash_class(node: ast.Expr, case: dict) -> str:
    """The class of a crash of classad2 by its smallest crashing subexpression: a
    selection from a list (one that holds itself or that a function built) is on the
    deliberate list, and so is one that reaches a cycle (through a list that holds
    itself); anything else is a new finding."""
    my, target = fuzz_ours.ad(case["my"]), fuzz_ours.ad(case["target"])
    from_list = isinstance(node, ast.Select) and isinstance(evaluate(node.base, my, target), list)
    if from_list or in_cycle(case, node):
        return LIST_CRASH
    return f"classad2 crash ({label(node)})"


def selects_from_a_list(case: dict) -> bool:
    """Whether an attribute of either ad of a match selects a name from a list (seen
    from that ad, the other as TARGET): where classad2 crashes on a list that holds
    itself or that a function built, reached through the match."""
    my, target = fuzz_ours.ad(case["my"]), fuzz_ours.ad(case["target"])
    for here, other in ((my, target), (target, my)):
        for name in here:
            for node in subexpressions(here.lookup(name)):
                if isinstance(node, ast.Select) and isinstance(
                        evaluate(node.base, here, other), list):
                    return True
    return False


def references(node: ast.Expr) -> list[ast.AttrRef]:
    """The attribute references in ``node``, a selection of a name a written record
    lacks (``[ b = 1 ].x``: looked up in the record's parent) counted as one."""
    refs = []
    for n in subexpressions(node):
        if isinstance(n, ast.AttrRef):
            refs.append(n)
        elif isinstance(n, ast.Select) and _lacks(n.base, n.name):
            refs.append(ast.AttrRef(n.name))
    return refs


def _lacks(base: ast.Expr, name: str) -> bool:
    """Whether ``base`` is a written record without attribute ``name``."""
    if not isinstance(base, ast.RecordExpr):
        return False
    return all(own.lower() != name.lower() for own, _ in base.attrs)


def reaches_cycle(expr: ast.Expr, here: int, ads: tuple) -> bool:
    """Whether evaluating ``expr`` in ad ``ads[here]`` (MY 0, TARGET 1) may come back
    to an attribute already being evaluated: a cycle, whose value HTCondor takes from
    its evaluation state (a deliberate difference, docs/classad.md). References are
    followed as written (unscoped: this ad, else the other; MY.; TARGET.; a name a
    written record lacks, as its parent's); a superset of the real cycles is good
    enough here."""
    stack, on_path, done = [(expr, here, None)], set(), set()
    while stack:
        node, side, key = stack.pop()
        if node is None:  # all of key's references explored
            on_path.discard(key)
            done.add(key)
            continue
        for ref in references(node):
            target_side = {None: side, "my": side, "target": 1 - side}.get(ref.scope)
            if target_side is None:
                continue
            lname = ref.name.lower()
            if ref.scope is None and ads[side].lookup(lname) is None:
                target_side = 1 - side
            found = ads[target_side].lookup(lname)
            step = (target_side, lname)
            if found is None or step in done:
                continue
            if step in on_path:
                return True
            on_path.add(step)
            stack += [(None, target_side, step), (found, target_side, step)]
    return False


def in_cycle(case: dict, node: ast.Expr) -> bool:
    """Whether ``node`` reaches a cycle from MY, or (a match) from either ad."""
    ads = (fuzz_ours.ad(case["my"]), fuzz_ours.ad(case["target"]))
    sides = (0, 1) if case["kind"] == "match" else (0,)
    return any(reaches_cycle(node, side, ads) for side in sides)


def classify(finding: Finding) -> tuple[str, Finding]:
    """A finding's class name and the smallest case that shows it."""
    case = finding.case
    if finding.field == "old_back" and finding.ours == "refused":
        return "deliberate (old reader refuses a bad line)", finding
    if finding.field == "match" and time_valued_requirements(case):
        return "deliberate (time-valued Requirements)", finding
    if finding.field == "match" and in_cycle(case, ast.AttrRef("Requirements", "my")):
        return "deliberate (cycle)", finding
    if finding.field == "unparsable" and tree_depth(case["text"]) > 150:
        return "parse depth", finding
    crashed = finding.field == "classad2 crash"
    if crashed and case["kind"] == "match" and (
            in_cycle(case, ast.AttrRef("Requirements", "my")) or selects_from_a_list(case)):
        return LIST_CRASH, finding
    if finding.field == "classad2 crash" and case["kind"] == "eval":
        node, small = reduce_eval(finding)
        return crash_class(node, case), small
    if finding.field in ("crash", "timeout", "unparsable", "match", "classad2 crash"):
        return f"{case['kind']}:{finding.field}", finding
    if case["kind"] != "eval":
        return f"{case['kind']}:{finding.field}", finding
    if context_moved(case):
        return "deliberate (countMatches/evalInEachContext context)", finding
    node, small = reduce_eval(finding)
    name = label(node)
    if in_cycle(case, node):
        return "deliberate (cycle)", small
    return f"{finding.field}:{name}", small
