"""Reading slot and job ads from files, directories and stdin.

A path given to ``read_ads`` is one of:

* a file, in any of the three ClassAd formats (``condor_status -long`` / ``condor_q
  -long`` old format, ``[ ... ]`` new format, or ``-json`` output); the parser detects
  which from the first non-blank character;
* a directory: every ``*.ad``, ``*.ads`` and ``*.json`` file directly inside it, in
  name order (code-point order of the file name, so the result never depends on the
  file system's listing order); other files and subdirectories are ignored;
* ``-``: standard input (at most once per call, since a stream cannot be read twice).

Ads come back in input order: paths in the order given, files of a directory by name,
ads of a file in file order. ``LoadedAd.index`` is the ad's 0-based position within
its source, so a message can say "the 3rd ad of slots/gpu.ads".

Files are opened as text (over an ``oldscan.FileBytes``: a file read from its start,
whose bytes the compiled old-form reader reads past format detection) and handed to the
parser as file objects (UTF-8, a byte
that is not part of UTF-8 kept as itself, ``surrogateescape``: ClassAd strings are
bytes, as in HTCondor, so ``"\xff"`` written raw is a one-byte string), and the parser
streams all three formats (see ``core/classad/formats.py``), so ``iter_ads`` never
holds a whole dump in memory; ``read_ads`` keeps the ads, not the text. Failures are
condorlite errors:

* a path that does not exist or cannot be read -> ``InputMissingError`` (exit 66)
  naming it;
* a syntax error (a stray byte outside a string literal is one) -> ``DataError``
  (exit 65) as ``FILE:LINE:COLUMN: problem``; a stream given by a caller that cannot
  decode its bytes -> ``DataError`` naming the byte.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from itertools import chain, repeat
from pathlib import Path
from typing import TextIO

from condorlite.core.classad import ClassAd, ClassAdSyntaxError
from condorlite.core.classad.formats import parse_ad_lists
from condorlite.core.classad.oldscan import FileBytes
from condorlite.core.classad.oldscan import slotted as _slotted  # None: not built
from condorlite.errors import DataError, InputMissingError, Location, UsageError

#: File name endings read from a directory (case-insensitive).
AD_SUFFIXES: tuple[str, ...] = (".ad", ".ads", ".json")
STDIN_NAME = "<stdin>"


@dataclass(frozen=True, slots=True)
class LoadedAd:
    """One ad and where it came from (``source`` is the file path, or ``<stdin>``).
    Slotted: a pool holds one per ad."""

    ad: ClassAd
    source: str
    index: int


_new = object.__new__
#: LoadedAd's slots (member descriptors), in field order.
_MEMBERS = tuple(getattr(LoadedAd, name) for name in LoadedAd.__dataclass_fields__)
# The slots' setters: ``_parse_stream`` builds the LoadedAds of a list of ads with these
# (three ``map`` calls) rather than the frozen dataclass ``__init__`` (three
# ``object.__setattr__`` calls through Python per ad), or, with the compiled
# ``slotted`` (``_oldscan``), with one C call per ad (``_LOADED``).
_SET_AD, _SET_SOURCE, _SET_INDEX = (member.__set__ for member in _MEMBERS)
_LOADED = (None if _slotted is None or os.environ.get("CONDORLITE_PURE_PYTHON")
           else partial(_slotted, _MEMBERS, LoadedAd))


def expand_paths(paths: Iterable[str | Path]) -> list[str | Path]:
    """The files to read, in order: directories replaced by their ad files by name,
    ``-`` kept as is. Missing or unreadable paths raise ``InputMissingError``."""
    out: list[str | Path] = []
    for raw in paths:
        if str(raw) == "-":
            out.append("-")
            continue
        path = Path(raw)
        try:
            if path.is_dir():
                entries = sorted(
                    (p for p in path.iterdir()
                     if p.suffix.lower() in AD_SUFFIXES and not p.is_dir()),
                    key=lambda p: p.name,
                )
                out.extend(entries)
                continue
            if not path.exists():
                raise InputMissingError(f"{path}: no such file or directory")
        except PermissionError as exc:
            raise InputMissingError(f"{path}: cannot read: {exc.strerror}") from None
        out.append(path)
    return out


def skipped_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files in the given directories that ``expand_paths`` leaves out (not
    ``*.ad``, ``*.ads``, ``*.json``), by name: a dump step that wrote another name
    should not go unnoticed."""
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if str(raw) == "-" or not path.is_dir():
            continue
        with contextlib.suppress(OSError):
            out.extend(sorted(
                (p for p in path.iterdir()
                 if p.suffix.lower() not in AD_SUFFIXES and not p.is_dir()
                 and not p.name.startswith(".")),
                key=lambda p: p.name,
            ))
    return out


def configured_paths(paths: Iterable[str], config_file: Path) -> list[Path | str]:
    """``SLOTS`` / ``JOBS`` entries from ``condorlite.toml``: a relative path is taken
    relative to the directory holding the config file (so a config and its ads can move
    together); ``-`` and absolute paths are kept; ``~`` is expanded."""
    base = config_file.parent
    out: list[Path | str] = []
    for entry in paths:
        if entry == "-":
            out.append(entry)
            continue
        path = Path(entry).expanduser()
        out.append(path if path.is_absolute() else base / path)
    return out


def _parse_stream(stream: TextIO, source: str, newline_only: bool
                  ) -> Iterator[list[LoadedAd]]:
    """The ads of one stream as LoadedAds, in the parser's lists; parser errors as
    condorlite errors (module docstring). ``newline_only``: the stream ends lines at
    ``\n`` alone (``formats.parse_ad_lists``)."""
    index = 0
    try:
        for ads in parse_ad_lists(stream, "auto", filename=source,
                                  newline_only=newline_only):
            count = len(ads)
            # LoadedAd(ad, source, index) for each, through its slots, in C: a pool
            # holds one per ad.
            if _LOADED is not None:
                loaded = list(map(_LOADED, ads, repeat(source, count),
                                  range(index, index + count)))
            else:
                loaded = list(map(_new, repeat(LoadedAd, count)))
                deque(map(_SET_AD, loaded, ads), maxlen=0)
                deque(map(_SET_SOURCE, loaded, repeat(source, count)), maxlen=0)
                deque(map(_SET_INDEX, loaded, range(index, index + count)), maxlen=0)
            index += count
            yield loaded
    except ClassAdSyntaxError as exc:
        raise DataError(_syntax_message(exc, source), location=Location(
            getattr(exc, "filename", None) or source, getattr(exc, "line", None),
            getattr(exc, "column", None))) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not UTF-8 text (byte {exc.start}): {exc.reason}") from None


def _syntax_message(exc: ClassAdSyntaxError, source: str) -> str:
    """``FILE:LINE:COLUMN: problem`` from the parser's error (fields it lacks are left out)."""
    where = getattr(exc, "filename", None) or source
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    if line is not None:
        where += f":{line}"
        if column is not None:
            where += f":{column}"
    problem = getattr(exc, "message", None) or str(exc)
    # The parser's str() may already carry the position; do not print it twice.
    if problem.startswith(where):
        return problem
    return f"{where}: {problem}"


def iter_ads(paths: Iterable[str | Path], *, stdin: TextIO | None = None) -> Iterator[LoadedAd]:
    """Like ``read_ads`` but lazy: a few ads at a time (the parser's lists), one file
    open at a time. Every path is checked before the first ad is yielded, so a
    missing file fails early."""
    for loaded in _loaded_lists(paths, stdin):
        yield from loaded


def _loaded_lists(paths: Iterable[str | Path], stdin: TextIO | None
                  ) -> Iterator[list[LoadedAd]]:
    files = expand_paths(paths)
    if sum(1 for f in files if f == "-") > 1:
        raise UsageError("'-' (standard input) can be given only once")
    for entry in files:
        if entry == "-":
            stream = stdin if stdin is not None else sys.stdin
            yield from _parse_stream(stream, STDIN_NAME, _as_files_are(stream))
            continue
        path = Path(entry)
        try:
            # over FileBytes: the old-form reader may read its bytes (oldscan.py)
            handle = io.TextIOWrapper(FileBytes(io.FileIO(path)), encoding="utf-8",
                                      errors="surrogateescape", newline="\n")
        except FileNotFoundError:
            raise InputMissingError(f"{path}: no such file or directory") from None
        except IsADirectoryError:
            raise InputMissingError(f"{path}: is a directory") from None
        except OSError as exc:
            raise InputMissingError(f"{path}: cannot read: {exc.strerror or exc}") from None
        with handle:
            try:
                yield from _parse_stream(handle, str(path), True)
            except OSError as exc:  # an I/O error while reading, after a good open
                raise InputMissingError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _as_files_are(stream: TextIO) -> bool:
    """Set a text stream (standard input) to read as the files are: stray bytes kept
    and lines ended by ``\n`` alone (HTCondor's readers split on nothing else); True
    when it could be. A stream that cannot be set so (not a text wrapper, or read
    from already) is read as it is."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return False
    try:
        reconfigure(errors="surrogateescape", newline="\n")
    except (ValueError, io.UnsupportedOperation):
        return False
    return True


def read_ads(paths: Iterable[str | Path], *, stdin: TextIO | None = None) -> list[LoadedAd]:
    """Every ad of every path, in order (see the module docstring for the rules).

    ``stdin`` is the stream ``-`` reads (default ``sys.stdin``; the CLI passes it).
    The cyclic garbage collector is paused while reading (see ``collector_paused``).
    """
    with collector_paused():
        return list(chain.from_iterable(_loaded_lists(paths, stdin)))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the block, then restore it as it
    was.

    Reading ads allocates a few container objects per ad (its table, the ad, its
    ``LoadedAd``) and keeps them all, so the collector, triggered by allocation
    counts, would traverse the whole growing heap again and again while finding
    nothing: ads are trees (no reference cycles), and objects without cycles are freed
    by reference counting whether or not the collector runs. Measured on the
    100,000-job benchmark pool, the collections were about a third of the reading
    time.

    On the way out the collector is not just switched back on: every object it tracks
    is first moved to its oldest generation (``gc.freeze()`` then ``gc.unfreeze()``,
    which splices the lists, whatever their length). Otherwise the objects made while
    it was paused would all sit in the youngest generation, and the first collection
    after it, a few hundred allocations later, would traverse every one of them
    (measured: a tenth of a second after reading 100,000 jobs) only to promote them.
    Nothing is lost: a reference cycle that became garbage meanwhile is freed by the
    next full collection instead of the next young one."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
