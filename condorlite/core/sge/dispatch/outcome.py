"""What one scheduling run decided: started jobs, reservations, waiting jobs, and the
schedule file's lines (``params MONITOR=1``; sched_conf(5))."""

from __future__ import annotations

from dataclasses import dataclass

#: The line Grid Engine writes at the start of every run's section.
SEPARATOR = "::::::::"


@dataclass(frozen=True)
class Grant:
    """Slots of a job on one queue instance."""

    queue_instance: str
    host: str
    slots: int


@dataclass(frozen=True)
class Resource:
    """One granted (or reserved) amount: level G/H/Q/P, object, resource, amount."""

    level: str
    object: str
    resource: str
    amount: float


@dataclass(frozen=True)
class Started:
    job: int
    task: int
    owner: str
    pe: str | None
    slots: int
    grants: tuple[Grant, ...]
    start: int
    duration: int
    resources: tuple[Resource, ...]


@dataclass(frozen=True)
class Reservation:
    job: int
    task: int
    owner: str
    pe: str | None
    slots: int
    grants: tuple[Grant, ...]
    start: int
    duration: int
    resources: tuple[Resource, ...]


@dataclass(frozen=True)
class Waiting:
    """A pending task not started in this run and why: its own reasons (qstat -j's
    scheduling info shows the run's ``messages`` before them)."""

    job: int
    tasks: tuple[int, ...]
    owner: str
    reasons: tuple[str, ...]
    reserved: bool = False


@dataclass(frozen=True)
class ScheduleLine:
    """``job:task:STATE:start:duration:level:object:resource:usage``."""

    job: int
    task: int
    state: str
    start: int
    duration: int
    level: str
    object: str
    resource: str
    usage: float

    def text(self) -> str:
        return (
            f"{self.job}:{self.task}:{self.state}:{self.start}:{self.duration}:"
            f"{self.level}:{self.object}:{self.resource}:{self.usage:.6f}"
        )


@dataclass(frozen=True)
class Run:
    """One run at ``now``: ``schedule`` is the schedule file's section, separator
    first (no other line without ``max_reservation`` > 0, as in Grid Engine);
    ``messages`` the run-wide ones (queue instances dropped), which apply to every
    waiting job, in order (an instance dropped again for each reservation attempt is
    there each time)."""

    now: int
    started: tuple[Started, ...]
    reservations: tuple[Reservation, ...]
    waiting: tuple[Waiting, ...]
    schedule: tuple[str, ...]
    messages: tuple[str, ...]
