"""Bounded caches that let the readers parse each distinct text once per process.

Real pools repeat most attribute texts from ad to ad (``Requirements``, ``Start``,
``WithinResourceLimits``, ``OpSys = "LINUX"``, ``Cpus = 1``...). The readers look a
text up here before parsing it and store what they parsed, so every ad holding the
same text holds the SAME expression object. That is safe because expression nodes are
frozen and evaluation never mutates them, and it pays twice: the text is parsed once,
and the evaluator, which compiles and caches per node identity, compiles it once.

Only successful parses are stored: a bad text is parsed (and reported, at its own
line) every time it occurs.

``TextCache`` is a two-generation approximation of an LRU that costs one dict lookup
on a hit: new entries go into the young generation; when it holds ``limit`` entries it
becomes the old generation (the previous old one is dropped) and a new young one
starts; an entry found only in the old generation is copied back into the young one.
So a text seen again within about ``limit`` insertions keeps its object for ever,
while texts seen once (a slot's ``Name``, a job's ``GlobalJobId``) age out. Memory is
bounded by ``2 * limit`` entries per cache.
"""

from __future__ import annotations

from typing import Any


class TextCache:
    """A bounded mapping text -> parsed object (see the module docstring)."""

    __slots__ = ("limit", "old", "young")

    def __init__(self, limit: int) -> None:
        if limit < 1:
            raise ValueError("a TextCache needs a positive limit")
        self.limit = limit
        self.young: dict[str, Any] = {}
        self.old: dict[str, Any] = {}

    def get(self, text: str) -> Any:
        """The object stored for ``text``, or None (a hit in the old generation is
        moved back into the young one, so hot texts never age out)."""
        hit = self.young.get(text)
        if hit is None:
            hit = self.old.get(text)
            if hit is not None:
                self.put(text, hit)
        return hit

    def put(self, text: str, value: Any) -> None:
        """Store ``value`` (never None) for ``text``, rolling the generations when the
        young one is full."""
        young = self.young
        if len(young) >= self.limit:
            self.old = young
            young = self.young = {}
        young[text] = value

    def clear(self) -> None:
        self.young = {}
        self.old = {}

    def __len__(self) -> int:
        return len(self.young) + len(self.old)


#: Entries per generation of each cache. Every ad of a pool brings a line or two seen
#: nowhere else (a job's ``GlobalJobId``, a slot's ``Name``), each kept until two
#: rolls push it out, so the limit sets how many such dead texts are held. Measured
#: on the 100,000-job benchmark pool, going from 50,000 to this size lowered the peak
#: memory of reading it from 127 to 106 MiB (old form; JSON: 122 to 104) at the same
#: speed: the lines that come back (a cluster's, an autocluster's) come back well
#: within 16,384 new ones, and one that does not is parsed again, nothing worse.
LIMIT = 16_384

#: Whole old-form lines -> (lower-case name, (spelling, expr)): a hit skips the line
#: regex, the literal check and the parser, and shares the stored pair itself.
OLD_LINES = TextCache(LIMIT)
#: The text before an old-form line's first ``=`` (e.g. ``"Cpus "``) -> (lower-case
#: name, spelling), for heads that are a plain name (cleared past 10,000 entries).
OLD_NAMES: dict[str, tuple[str, str]] = {}
#: Old-form value texts (old string rule) -> expr, for lines the line cache missed.
OLD_VALUES = TextCache(LIMIT)
#: New-syntax expression texts -> expr (JSON ``\\/Expr(...)\\/`` bodies and new-form
#: attribute values).
NEW_VALUES = TextCache(LIMIT)
#: New-form ``Name = value;`` lines -> (lower-case name, (spelling, expr), ends with
#: ';'), stored only once the value parsed whole.
NEW_LINES = TextCache(LIMIT)
#: JSON scalars, keyed by (type, value) -> Literal.
JSON_SCALARS = TextCache(LIMIT)
#: JSON scalar members as decoded, (name, value) -> (lower-case name, (spelling, expr)),
#: one cache per value type (1, 1.0 and True are equal dict keys).
JSON_PAIRS = {kind: TextCache(LIMIT) for kind in (str, int, float, bool)}
#: Whole JSON member lines (``  "Name": value,``) -> (lower-case name, (spelling, expr)),
#: for ``jsonfast``: lines ending with a comma, and lines without one (an ad's last).
JSON_MEMBER_LINES = TextCache(LIMIT)
JSON_LAST_LINES = TextCache(LIMIT)


def clear_all() -> None:
    """Forget every cached text (tests use it to start from a known state)."""
    OLD_NAMES.clear()
    for cache in (OLD_LINES, OLD_VALUES, NEW_LINES, NEW_VALUES, JSON_SCALARS,
                  *JSON_PAIRS.values(), JSON_MEMBER_LINES, JSON_LAST_LINES):
        cache.clear()
