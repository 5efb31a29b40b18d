"""Issue 19's "smaller value differences", each against classad2 (with htcondor2's
functions loaded, as a daemon has them)."""

from __future__ import annotations

import random

import pytest

from condorlite.core.classad import Error, Undefined, evaluate, parse_ads

classad2 = pytest.importorskip("classad2")
pytest.importorskip("htcondor2")  # registers stringList* and the other daemon functions


def _theirs(expr: str, ad_text: str | None = None):
    if ad_text is None:
        return classad2.ExprTree(expr).eval()
    return classad2.ExprTree(expr).eval(classad2.parseOne(ad_text))


def _same(mine, theirs) -> bool:
    if isinstance(theirs, classad2.Value):
        theirs = Error if theirs == classad2.Value.Error else Undefined
        return mine is theirs
    return type(mine) is type(theirs) and repr(mine) == repr(theirs)


def test_eval_of_a_real_goes_through_its_printed_form():
    rng = random.Random(19)
    for _ in range(2000):
        x = rng.choice([rng.uniform(-1e6, 1e6), rng.random() * 10 ** rng.randint(-300, 300),
                        rng.getrandbits(60) / 7.0])
        expr = f"eval({x!r})"
        assert _same(evaluate(expr), _theirs(expr)), expr
    assert evaluate("eval(197257.59898832173)") == 197257.5989883217


@pytest.mark.parametrize("items", ["0x,1", "-0X", "0xg,2", "0x.", "0x.8", "0x1", "1,0x10",
                                   " 0x", "1e,2", "a"])
@pytest.mark.parametrize("fn", ["stringListSum", "stringListAvg", "stringListMin",
                                "stringListMax"])
def test_string_list_numbers_read_as_sscanf(fn, items):
    expr = f'{fn}("{items}")'
    assert _same(evaluate(expr), _theirs(expr)), expr


def test_a_cycle_through_a_nested_record_is_undefined():
    text = "[Sub = [x = Sub.x]]"
    ad = next(iter(parse_ads(text, "new")))
    for expr in ("MY.Sub.x", "Sub.x"):
        assert _same(evaluate(expr, ad), _theirs(expr, text)), expr


@pytest.mark.parametrize("expr", ["self", "MY", "isClassAd(self)", "isUndefined(MY)",
                                  "self.x", "[a = 1].a"])
def test_self_without_a_my_ad_is_undefined(expr):
    assert _same(evaluate(expr), _theirs(expr)), expr


@pytest.mark.parametrize("text", [
    "[ d = ifThenElse(true, [z = 1; a = 2; Bb = 3; c = 4], 0); f = [y = [q = 1; b = 2]] ]",
    "[ e = { [ z = 1; a = 2 ], x + [ k = 1; c = 2 ] } ]",
])
def test_json_sorted_sorts_records_inside_expressions(text):
    ours = next(iter(parse_ads(text, "new"))).to_json(sort=True)
    assert ours == classad2.parseOne(text).printJson()


@pytest.mark.parametrize("text", ["[ 'é' = 1; 'a b' = 2; 'x\\'y' = 3 ]",
                                  "[ 'a\\\\b' = 1; 'tab\\tx' = 2 ]"])
def test_old_writer_quotes_names_as_htcondor(text):
    assert next(iter(parse_ads(text, "new"))).to_old() == classad2.parseOne(text).printOld()
