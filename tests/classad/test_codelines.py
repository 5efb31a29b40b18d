"""``codelines.write``: the generated text's contract with ``codegen`` (which compiles it).

The text depends on the tree's shape only (literals are parameters), a constant or a
plain reference gives none, and every global name the text uses is ``NAMESPACE``'s.
"""

from __future__ import annotations

import builtins
import types

from condorlite.core.classad import codelines
from condorlite.core.classad.parser import parse_expr

SHAPES = [
    'TARGET.Memory >= 2048 && MY.Owner == "alice" && (Cpus > 1 || Disk =?= undefined)',
    "ifThenElse(Arch == \"X86_64\", KFlops / 1000 + Mips * 2, -1) ?: Memory % 7",
    'Memory - RequestMemory > 10 ? Cpus : (Owner is "bob") =!= false',
]


def _globals(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _globals(const)
    return names


def test_identical_shapes_share_one_text_and_literals_are_values():
    a = codelines.write(parse_expr('TARGET.Memory >= 2048 && Owner == "alice"'))
    b = codelines.write(parse_expr('TARGET.Memory >= 4096 && Owner == "bob"'))
    assert a is not None and b is not None
    assert a.text == b.text
    assert 2048 in a.values and 4096 in b.values


def test_constants_and_plain_references_give_no_text():
    assert codelines.write(parse_expr("1 + 2")) is None
    assert codelines.write(parse_expr("true")) is None


def test_every_global_of_the_text_is_in_the_namespace():
    for text in SHAPES:
        written = codelines.write(parse_expr(text))
        assert written is not None, text
        code = compile(written.text, "<test>", "exec")
        # attribute names (x.value, env.depth ...) appear in co_names too: only the
        # names that are neither attributes nor builtins must come from NAMESPACE
        used = _globals(code) - set(dir(builtins))
        attributes = {"value", "depth", "steps", "_fn", "_attrs", "get", "parent", "my",
                      "target", "active", "isascii", "lower", "factory", "generated"}
        missing = used - attributes - set(codelines.NAMESPACE)
        assert not missing, (text, missing)
