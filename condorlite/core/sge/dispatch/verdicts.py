"""The static verdicts of a run (``static.static_failure``), worked out per cluster
queue and per host instead of per queue instance.

``static_failure(job, inst)`` is, in order: the cluster queue's reason
(``static.queue_reason``), the instance's type (``static.batch_reason``), the host's
reason (``static.host_reason``), then for each hard request in the job's order the
first level among global, host and queue instance whose offer fails it
(``static.request_failure``), then a request no level offers (``static.unknown``).
What each part reads, and so what its answer is kept by:

    queue_reason     the job's kind; the cluster queue's name and the settings it
                     compares (h_rt, s_rt, projects, xprojects, user_lists,
                     xuser_lists, pe_list, qtype); the host only when a -q pattern
                     names one (``queue@host``)
    host_reason      the job's kind; the host
    a request at G   the request (name, value)
    ... at H         the request; the host (its complex_values and load values)
    ... at Q         the request; the cluster queue's name, seq_no, h_rt, s_rt and
                     complex_values (``_queue_offer_key``); the host for ``hostname``

The job's kind is what the checks read of it (``kind_of``): owner and group when an
access list exists, project when a project list does, PE, ``-q``, hard requests. A
cluster queue's instances differ only in settings overridden per host (``[host=...]``,
slots most often), so the queue parts are worked out once per kind and cluster queue
(three times at 1,000 hosts, not 2,250), the request parts once per request and host
for every kind that asks it, and the reasons' texts, which name the instance or host,
are put together from those parts. The answer is the function's, instance by
instance: each part is a pure function of what its key holds.
"""

from __future__ import annotations

from condorlite.core.sge.objects import Cell, Job

from .static import (
    batch_reason,
    host_reason,
    offer,
    queue_reason,
    request_failure,
    request_text,
)
from .world import Instance, World

_NOT_YET = object()


def _queue_key(inst: Instance, by_host: bool) -> tuple:
    c = inst.conf
    return (inst.queue, c.h_rt, c.s_rt, c.projects, c.xprojects, c.user_lists,
            c.xuser_lists, c.pe_list, c.qtype, inst.host if by_host else None)


def _queue_offer_key(inst: Instance, name: str) -> tuple:
    c = inst.conf
    return (inst.queue, c.seq_no, c.h_rt, c.s_rt, c.complex_values,
            inst.host if name == "hostname" else None)


class Requests:
    """The request parts of the run's verdicts, shared by every kind of job: a
    request's failure at a level (``static.request_failure``'s text) and whether a
    level offers a name at all (``static.offer``)."""

    def __init__(self, cell: Cell) -> None:
        self.cell = cell
        self.failures: dict[tuple, str | None] = {}
        self.offered: dict[tuple, bool] = {}

    def failure(self, job: Job, level: str, inst: Instance, name: str, value: str) -> str | None:
        if level == "G":
            key: tuple = ("G", name, value)
        elif level == "H":
            key = ("H", inst.host, name, value)
        else:
            key = ("Q", _queue_offer_key(inst, name), name, value)
        found = self.failures.get(key, _NOT_YET)
        if found is _NOT_YET:
            found = self.failures[key] = request_failure(self.cell, job, level, inst, name)
        return found  # type: ignore[return-value]

    def offers(self, level: str, inst: Instance, name: str) -> bool:
        if level == "G":
            key: tuple = ("G", name)
        elif level == "H":
            key = ("H", inst.host, name)
        else:
            key = ("Q", _queue_offer_key(inst, name), name)
        found = self.offered.get(key)
        if found is None:
            found = self.offered[key] = offer(self.cell, level, inst, name) is not None
        return found


def kind_of(world: World, job: Job) -> tuple:
    """What the static checks read of ``job`` (module doc)."""
    return (
        (job.owner, job.group) if world.reads_user else (),
        job.project if world.reads_project else None,
        job.pe,
        job.hard_queues,
        tuple((r.name, r.value) for r in job.hard_requests),
    )


class KindVerdicts:
    """The static verdicts of one kind of job, by instance (its position in the
    world's list), each worked out from the kept parts at the first question."""

    def __init__(self, world: World, cell: Cell, requests: Requests, job: Job) -> None:
        self.cell, self.requests, self.job = cell, requests, job
        self.by_host = any("@" in q for q in job.hard_queues)
        self.by_position: list[object] = [_NOT_YET] * len(world.instances)
        self.queues: dict[tuple, str | None] = {}
        self.hosts: dict[str, str | None] = {}
        self.text = request_text(job)
        # the value request_failure compares: the first request of that name
        first: dict[str, str] = {}
        for r in job.hard_requests:
            first.setdefault(r.name, r.value)
        self.asked = [(r.name, first[r.name]) for r in job.hard_requests]

    def of(self, inst: Instance) -> str | None:
        found = self.by_position[inst.position]
        if found is _NOT_YET:
            found = self.by_position[inst.position] = self._work_out(inst)
        return found  # type: ignore[return-value]

    def _work_out(self, inst: Instance) -> str | None:
        job, cell = self.job, self.cell
        key = _queue_key(inst, self.by_host)
        why = self.queues.get(key, _NOT_YET)
        if why is _NOT_YET:
            why = self.queues[key] = queue_reason(cell, job, inst)
        if why is not None:
            return why  # type: ignore[return-value]
        why = batch_reason(job, inst)
        if why is not None:
            return why
        host = inst.host
        why = self.hosts.get(host, _NOT_YET)
        if why is _NOT_YET:
            why = self.hosts[host] = host_reason(cell, job, cell.hosts.get(host))
        if why is not None:
            return why  # type: ignore[return-value]
        requests = self.requests
        for name, value in self.asked:
            for level in "GHQ":
                failure = requests.failure(job, level, inst, name, value)
                if failure is not None:
                    where = ("globally" if level == "G" else f'at host "{host}"'
                             if level == "H" else f'in queue "{inst.name}"')
                    return f"(-l {self.text}) cannot run {where} because {failure}"
        for name, _ in self.asked:
            if name != "slots" and not any(requests.offers(k, inst, name) for k in "GHQ"):
                return (
                    f'(-l {self.text}) cannot run in queue "{inst.name}" because job '
                    f"requests unknown resource ({name})"
                )
        return None


class Verdicts:
    """The run's static verdicts: the request parts, and each kind's verdicts."""

    def __init__(self, world: World, cell: Cell) -> None:
        self.world, self.cell = world, cell
        self.requests = Requests(cell)
        self.kinds: dict[tuple, KindVerdicts] = {}

    def of(self, job: Job) -> KindVerdicts:
        kind = kind_of(self.world, job)
        found = self.kinds.get(kind)
        if found is None:
            found = self.kinds[kind] = KindVerdicts(self.world, self.cell, self.requests, job)
        return found
