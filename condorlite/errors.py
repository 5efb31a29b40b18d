"""The exceptions condorlite raises on purpose, each naming the kind of failure.

Every layer raises these (or subclasses); only ``condorlite.cli.errors`` turns them
into a message and an exit code. The exit code belongs to the class, so a new error
only has to pick the right base:

====================  ====  ===========================================
class                 exit  meaning
====================  ====  ===========================================
DomainError           1     the request is well formed but cannot be done
UsageError            2     a bad argument (names the argument)
DataError             65    unparsable input data (ad, expression, file)
InputMissingError     66    an input file does not exist / cannot be read
StateWriteError       73    the state directory cannot be written
OutputError           74    the output cannot be written (full disk, I/O error)
StateLockedError      75    another writer holds the state; try again
ConfigError           78    condorlite.toml is invalid
====================  ====  ===========================================
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """Where in an input a failure is: ``file`` as messages name it, 1-based ``line``
    and ``column`` when known."""

    file: str
    line: int | None = None
    column: int | None = None


class CondorliteError(Exception):
    """Base of every deliberate condorlite failure."""

    exit_code: int = 1
    kind: str = "error"

    def __init__(self, message: str, *, hint: str | None = None,
                 location: Location | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.location = location

    @classmethod
    def at(cls, file: str, line: int | None, message: str, *, column: int | None = None,
           hint: str | None = None):  # type: ignore[no-untyped-def]
        """The error with its place: the message reads ``FILE:LINE[:COLUMN]: message``
        and ``location`` holds the same fields for ``--json``."""
        where = file + ("" if line is None else f":{line}") + (
            "" if line is None or column is None else f":{column}")
        return cls(f"{where}: {message}", hint=hint,
                   location=Location(file, line, None if line is None else column))

    def to_json(self) -> dict[str, object]:
        """The entry this error contributes to the JSON envelope's ``errors`` list:
        ``kind``, ``message``, ``hint`` when there is one, and ``file``, ``line``,
        ``column`` when the failure has a place (those known)."""
        out: dict[str, object] = {"kind": self.kind, "message": self.message}
        if self.hint:
            out["hint"] = self.hint
        if self.location is not None:
            for key in ("file", "line", "column"):
                value = getattr(self.location, key)
                if value is not None:
                    out[key] = value
        return out


class DomainError(CondorliteError):
    exit_code = 1
    kind = "domain"


class UsageError(CondorliteError):
    exit_code = 2
    kind = "usage"


class DataError(CondorliteError):
    exit_code = 65
    kind = "data"


class InputMissingError(CondorliteError):
    exit_code = 66
    kind = "input_missing"


class NoStateError(InputMissingError):
    """A reading command found no state where it looked (it never creates one)."""


class StateWriteError(CondorliteError):
    exit_code = 73
    kind = "state_write"


class OutputError(CondorliteError):
    exit_code = 74
    kind = "output"


class StateLockedError(CondorliteError):
    exit_code = 75
    kind = "state_locked"


class ConfigError(CondorliteError):
    exit_code = 78
    kind = "config"
