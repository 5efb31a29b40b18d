"""Every built-in function, registered: ``REGISTRY`` complete.

``builtins.py`` holds the table (``REGISTRY``, ``register``) and the control functions;
each family module adds its functions when it is imported. This module imports them
all, in one order, so whoever reads the table through it (the compiler, the code
generator, the reference and partial evaluators) finds every function, and no family
has to import its siblings.
"""

from __future__ import annotations

from . import (  # noqa: F401  (each registers its functions into REGISTRY)
    envbuiltins,
    listbuiltins,
    regexbuiltins,
    strbuiltins,
    stringlists,
    timebuiltins,
)
from .builtins import REGISTRY, Builtin, compile_call, rehome

__all__ = ["REGISTRY", "Builtin", "compile_call", "rehome"]
