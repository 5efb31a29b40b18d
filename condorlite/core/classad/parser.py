"""A Pratt parser for ClassAd expressions, with one binding-power table.

Precedence, lowest to highest (HTCondor's grammar in src/classad/source.cpp):

====  ========================================  =====
 bp   operators                                  assoc
====  ========================================  =====
  1   ``c ? a : b``                              right
  2   ``||``                                     left
  3   ``&&``                                     left
  4   ``|``                                      left
  5   ``^``                                      left
  6   ``&``                                      left
  7   ``== != =?= =!= is isnt``                  left
  8   ``< <= > >=``                              left
  9   ``<< >> >>>``                              left
 10   ``+ -``                                    left
 11   ``* / %``                                  left
 12   prefix ``- + ! ~``                         right
 13   postfix ``.name``, ``[index]``; elvis      left
      ``a ?: b`` (right operand: a postfix       (elvis
      expression, no prefix operator)            right)
====  ========================================  =====

Other rules, all as HTCondor parses them:

* ``name(args)`` is a call only when a bare name is followed by ``(``.
* ``MY.x``, ``TARGET.x``, ``PARENT.x`` (any case, also quoted) become a scoped
  ``AttrRef``; ``.x`` is the absolute form; ``a.b`` on anything else is ``Select``.
* Elvis binds tighter than arithmetic, as in HTCondor 25: ``10 ?: 2 + 3`` is
  ``(10 ?: 2) + 3``, and ``-a ?: b`` is ``-(a ?: b)``. Its right operand cannot start
  with a prefix operator (``a ?: -b`` is an error; ``a ?: -1`` is a negative literal).
  ``? :`` with whitespace between is the same token; with a comment between it is an
  error.
* ``[ a = 1; ; b = 2; ]`` tolerates extra semicolons; a repeated name keeps its first
  spelling and position and takes the last value.
* Nesting is limited as HTCondor's parser limits it (src/classad/source.cpp): a
  counter goes up on entering a whole expression (an argument, a list item, an
  attribute value, a parenthesised or subscript expression, a branch of ``? :``), an
  operand (once per prefix operator, once more for the operand itself) and the
  operand's postfix part (``.x``, ``[i]``, and the right side of ``?:``); past
  ``MAX_DEPTH`` (500) the text is a ``too_deep`` error. That allows 165 nested
  parentheses, lists, calls or records, 497 prefix operators in a row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    RecordExpr,
    Select,
    Subscript,
    Unary,
)
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.lexer import Token, tokenize
from condorlite.core.classad.timetext import parse_abs_time, parse_rel_time
from condorlite.core.classad.values import Error, Undefined, int_literal

BINDING_POWER: dict[str, int] = {
    "?": 1,
    "||": 2,
    "&&": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "==": 7,
    "!=": 7,
    "is": 7,
    "isnt": 7,
    "<": 8,
    "<=": 8,
    ">": 8,
    ">=": 8,
    "<<": 9,
    ">>": 9,
    ">>>": 9,
    "+": 10,
    "-": 10,
    "*": 11,
    "/": 11,
    "%": 11,
    ".": 13,
    "[": 13,
    "?:": 13,
}
PREFIX_BINDING = 12
MAX_DEPTH = 500  # HTCondor's MAX_PARSER_DEPTH
_PREFIX_OPS = frozenset({"-", "+", "!", "~"})
SCOPES = frozenset({"my", "target", "parent"})

_DESCRIBE = {
    "int": "integer",
    "real": "real number",
    "string": "string",
    "ident": "name",
    "bool": "boolean",
    "undefined": "'undefined'",
    "error": "'error'",
    "eof": "end of input",
}


def parse_expr(text: str, *, old: bool = False) -> Expr:
    """Parse one whole expression. ``old=True`` reads strings with the old-ClassAd rule.

    Raises ``ClassAdSyntaxError`` (and nothing else) for any bad text.
    """
    parser = _Parser(text, old)
    return parser.guarded(parser.whole_expression)


# Whole texts that are one simple literal: most attribute values in real ads. Reading
# them directly skips the lexer and the Pratt loop; the result is what they would give.
_QUICK_LITERAL = re.compile(
    r"(?P<int>-?(?:0|[1-9][0-9]*))|(?P<real>-?[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
    r'|"(?P<str>[^"\\\x00]*)"|(?P<word>[A-Za-z]+)'
)
_QUICK_WORDS = {"true": Literal(True), "false": Literal(False), "undefined": Literal(Undefined)}


def quick_literal(text: str) -> Expr | None:
    """The literal ``text`` denotes when it is one plain integer, real, escape-free
    string, boolean or ``undefined`` (no surrounding blanks); None otherwise. Agrees
    with ``parse_expr`` (new or old string rule) on every text it answers for."""
    m = _QUICK_LITERAL.fullmatch(text)
    if m is None:
        return None
    kind = m.lastgroup
    if kind == "int":
        return Literal(int_literal(text))
    if kind == "real":
        return Literal(float(text))
    if kind == "str":
        return Literal(m.group("str"))
    return _QUICK_WORDS.get(text.lower())


def parse_records(text: str) -> Iterator[RecordExpr]:
    """Parse a sequence of ``[ ... ]`` ads (new syntax), comments allowed between them."""
    parser = _Parser(text, False)
    while parser.peek().kind != "eof":
        yield parser.guarded(parser.top_record)


_TIME_LITERALS = frozenset({"abstime", "reltime"})


class _Parser:
    __slots__ = ("depth", "i", "text", "tokens")

    def __init__(self, text: str, old: bool) -> None:
        if not isinstance(text, str):
            raise TypeError(f"ClassAd text must be str, not {type(text).__name__}")
        self.text = text
        self.tokens: list[Token] = tokenize(text, old=old)
        self.i = 0
        self.depth = 0

    # -- plumbing ---------------------------------------------------------------------

    def guarded(self, action: Callable[[], Expr]) -> Expr:
        try:
            return action()
        except RecursionError:
            # MAX_DEPTH normally stops first; this covers callers already deep in the stack.
            self.depth = 0
            raise self.error("too_deep", "expression is nested too deeply", self.peek()) from None

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        if tok.kind != "eof":
            self.i += 1
        return tok

    def error(self, kind: str, message: str, tok: Token) -> ClassAdSyntaxError:
        return ClassAdSyntaxError(kind, message, line=tok.line, column=tok.column, source=self.text)

    def unexpected(self, tok: Token, wanted: str | None = None) -> ClassAdSyntaxError:
        found = _DESCRIBE.get(tok.kind, f"'{tok.kind}'")
        if tok.kind == "ident":
            found = f"name {tok.value!r}"
        message = f"expected {wanted} but found {found}" if wanted else f"unexpected {found}"
        kind = "unexpected_end" if tok.kind == "eof" else "unexpected_token"
        return self.error(kind, message, tok)

    def expect(self, kind: str, wanted: str) -> Token:
        tok = self.take()
        if tok.kind != kind:
            raise self.unexpected(tok, wanted)
        return tok

    # -- entry points -----------------------------------------------------------------

    def whole_expression(self) -> Expr:
        expr = self.expression(0)
        tok = self.peek()
        if tok.kind != "eof":
            raise self.unexpected(tok, "an operator or the end of the expression")
        return expr

    def top_record(self) -> RecordExpr:
        tok = self.take()
        if tok.kind != "[":
            raise self.unexpected(tok, "'[' starting a ClassAd")
        return self.record(tok)

    # -- the Pratt loop ---------------------------------------------------------------

    def enter(self) -> None:
        """One level of HTCondor's parser depth counter (see the module docstring)."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.error("too_deep", "expression is nested too deeply", self.peek())

    def expression(self, rbp: int) -> Expr:
        """An expression whose operators bind tighter than ``rbp``: a whole one
        (``rbp`` 0), the right operand of a binary operator, or a prefix operand."""
        whole = rbp == 0
        if whole:
            self.enter()
        self.enter()  # the operand (HTCondor's parseUnaryExpression)
        if self.peek().kind in _PREFIX_OPS:
            tok = self.take()
            left: Expr = Unary(tok.kind, self.expression(PREFIX_BINDING))
        else:
            left = self.postfix_operand()
        self.depth -= 1
        tokens = self.tokens
        while True:
            kind = tokens[self.i].kind
            if BINDING_POWER.get(kind, 0) <= rbp:
                break
            self.i += 1
            left = _LED[kind](self, kind, left)
        self.depth -= whole
        return left

    def postfix_operand(self) -> Expr:
        """A primary and its ``.x``, ``[i]`` and ``?:`` postfixes (HTCondor's
        parsePostfixExpression)."""
        self.enter()
        tok = self.take()
        nud = _NUD.get(tok.kind)
        if nud is None:
            raise self.unexpected(tok, "an expression")
        left = nud(self, tok)
        tokens = self.tokens
        while BINDING_POWER.get(tokens[self.i].kind, 0) > PREFIX_BINDING:
            kind = tokens[self.i].kind
            self.i += 1
            left = _LED[kind](self, kind, left)
        self.depth -= 1
        return left

    # -- prefix handlers (nud) --------------------------------------------------------

    def literal(self, tok: Token) -> Expr:
        return Literal(tok.value)

    def undefined(self, tok: Token) -> Expr:
        return Literal(Undefined)

    def error_literal(self, tok: Token) -> Expr:
        return Literal(Error)

    def name(self, tok: Token) -> Expr:
        if self.peek().kind != "(":
            return AttrRef(tok.value)
        self.i += 1
        args: list[Expr] = []
        if self.peek().kind == ")":
            self.i += 1
            return Call(tok.value, ())
        while True:
            args.append(self.expression(0))
            sep = self.take()
            if sep.kind == ")":
                if len(args) == 1 and tok.value.lower() in _TIME_LITERALS:
                    self.check_time_text(tok, args[0])
                return Call(tok.value, tuple(args))
            if sep.kind != ",":
                raise self.unexpected(sep, "',' or ')' in the argument list")

    def check_time_text(self, tok: Token, arg: Expr) -> None:
        """``absTime("...")``/``relTime("...")`` with a written string: HTCondor reads
        the time when it parses the call and refuses text that names none."""
        if not isinstance(arg, Literal) or type(arg.value) is not str:
            return
        lname = tok.value.lower()
        read = parse_abs_time if lname == "abstime" else parse_rel_time
        if read(arg.value) is None:
            raise self.error("bad_time", f"{tok.value}: {arg.value!r} names no time", tok)

    def absolute(self, tok: Token) -> Expr:
        name = self.expect("ident", "a name after '.'")
        return AttrRef(name.value, "absolute")

    def paren(self, tok: Token) -> Expr:
        inner = self.expression(0)
        self.expect(")", "')'")
        return Paren(inner)

    def list_(self, tok: Token) -> Expr:
        if self.peek().kind == "}":
            self.i += 1
            return ListExpr(())
        items: list[Expr] = []
        while True:
            items.append(self.expression(0))
            sep = self.take()
            if sep.kind == "}":
                return ListExpr(tuple(items))
            if sep.kind != ",":
                raise self.unexpected(sep, "',' or '}' in the list")

    def record(self, tok: Token) -> RecordExpr:
        names: list[str] = []
        values: list[Expr] = []
        index: dict[str, int] = {}
        while True:
            head = self.take()
            if head.kind == "]":
                break
            if head.kind == ";":
                continue
            if head.kind != "ident":
                raise self.unexpected(head, "an attribute name or ']'")
            self.expect("=", "'=' after the attribute name")
            value = self.expression(0)
            key = head.value.lower()
            if key in index:
                values[index[key]] = value
            else:
                index[key] = len(names)
                names.append(head.value)
                values.append(value)
            follow = self.peek()
            if follow.kind not in (";", "]"):
                raise self.unexpected(follow, "';' or ']' after the attribute")
        return RecordExpr(tuple(zip(names, values, strict=True)))

    # -- infix and postfix handlers (led) ---------------------------------------------

    def binary(self, op: str, left: Expr) -> Expr:
        return Binary(op, left, self.expression(BINDING_POWER[op]))

    def select(self, op: str, left: Expr) -> Expr:
        name = self.expect("ident", "a name after '.'")
        if type(left) is AttrRef and left.scope is None and left.name.lower() in SCOPES:
            return AttrRef(name.value, left.name.lower(), left.name)
        return Select(left, name.value)

    def subscript(self, op: str, left: Expr) -> Expr:
        index = self.expression(0)
        self.expect("]", "']' closing the subscript")
        return Subscript(left, index)

    def ternary(self, op: str, left: Expr) -> Expr:
        then = self.expression(0)
        self.expect(":", "':' in the conditional expression")
        return Conditional(left, then, self.expression(0))

    def elvis(self, op: str, left: Expr) -> Expr:
        nxt = self.peek()
        if nxt.kind in _PREFIX_OPS:
            raise self.unexpected(nxt, "an operand without a prefix operator after '?:'")
        return Elvis(left, self.postfix_operand())


_NUD: dict[str, Callable[[_Parser, Token], Expr]] = {
    "int": _Parser.literal,
    "real": _Parser.literal,
    "string": _Parser.literal,
    "bool": _Parser.literal,
    "undefined": _Parser.undefined,
    "error": _Parser.error_literal,
    "ident": _Parser.name,
    ".": _Parser.absolute,
    "(": _Parser.paren,
    "{": _Parser.list_,
    "[": _Parser.record,
}

_LED: dict[str, Callable[[_Parser, str, Expr], Expr]] = {
    op: _Parser.binary for op, bp in BINDING_POWER.items() if 2 <= bp <= 11
}
_LED.update({".": _Parser.select, "[": _Parser.subscript, "?": _Parser.ternary})
_LED["?:"] = _Parser.elvis
