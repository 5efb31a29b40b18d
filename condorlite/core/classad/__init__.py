"""ClassAd-lite: HTCondor's ClassAd language, with HTCondor's daemon-mode semantics.

The public API::

    from condorlite.core.classad import (
        ClassAd, parse_expr, parse_ads, parse_ad, write_ads, evaluate, symmetric_match,
        unparse, unparse_value, Undefined, Error, ClassAdSyntaxError,
    )
"""

# The compiler installs itself as the compile cache's builder when imported (see
# ``cache.py``); importing it here makes that happen before any evaluation, whichever
# module of the package a caller imports first. It also loads ``functions``, which
# registers every built-in function.
from condorlite.core.classad import compiler  # noqa: F401
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.evaluator import evaluate, symmetric_match
from condorlite.core.classad.formats import parse_ad, parse_ads, write_ads
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.printer import unparse, unparse_value
from condorlite.core.classad.values import Error, Undefined

__all__ = [
    "ClassAd",
    "ClassAdSyntaxError",
    "Error",
    "Undefined",
    "evaluate",
    "parse_ad",
    "parse_ads",
    "parse_expr",
    "symmetric_match",
    "unparse",
    "unparse_value",
    "write_ads",
]
