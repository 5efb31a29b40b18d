"""Build of condorlite's one compiled module (the rest is in pyproject.toml).

``condorlite.core.classad._oldscan`` reads old-form ad lines, and JSON ads laid out as
``condor_status -json`` prints them, in C (see ``condorlite/core/classad/oldscan.py``).
It is optional: where no C compiler is at hand the build goes on without it and
condorlite reads the same ads, slower, in Python (``oldform.py``, ``jsonfast.py``).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "condorlite.core.classad._oldscan",
            sources=[f"condorlite/core/classad/_oldscan/{name}.c"
                     for name in ("scanner", "ads", "plain", "jsonlines", "adlines",
                                  "tables", "values", "keys", "slotted", "columns",
                                  "table", "jobruns", "carve", "ordered", "sync")],
            depends=[f"condorlite/core/classad/_oldscan/{name}.h"
                     for name in ("scanner", "adlines", "tables", "values", "keys", "slotted",
                                  "columns", "table", "jobruns", "carve", "ordered", "sync")],
            optional=True,
        )
    ]
)
