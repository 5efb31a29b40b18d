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

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell

from .static import (
    batch_reason,
    host_reason,
    level_words,
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

    def failure(
        self, job: Job, level: str, inst: Instance | None, name: str, value: str
    ) -> str | None:
        """``static.request_failure`` of ``job``'s request ``name`` (its first value,
        ``value``) at a level of the instance (global: ``inst`` may be None)."""
        if level == "G":
            key: tuple = ("G", name, value)
        elif inst is None:
            return request_failure(self.cell, job, level, inst, name)
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
    """The static verdicts of one kind of job for every instance, by the instance's
    position in the world's list, worked out at the first question: part by part
    over all instances at once (``_all``), in ``static_failure``'s order, each part
    over the instances no earlier part refused, so that an instance keeps the first
    part that refuses it. The queue parts are asked once per cluster-queue class, the
    request parts read from the run's columns (``Verdicts.column``, ``offered``);
    only texts naming an instance or host are made per instance."""

    def __init__(self, verdicts: Verdicts, job: Job) -> None:
        self.verdicts, self.cell, self.requests, self.job = (
            verdicts, verdicts.cell, verdicts.requests, job)
        self.text = request_text(job)
        # the value request_failure compares: the first request of that name
        first: dict[str, str] = {}
        for r in job.hard_requests:
            first.setdefault(r.name, r.value)
        self.asked = [(r.name, first[r.name]) for r in job.hard_requests]
        self.by_position: list[str | None] | None = None
        self.by_host = any("@" in q for q in job.hard_queues)
        self.queues: dict[int, str | None] = {}
        self.hosts: dict[str, str | None] = {}
        self.unoffered: list[tuple[str, list[bool]]] | None = None

    def queue_said(self, inst: Instance) -> str | None:
        """``static.cqueue_reason``: the cluster queue's part once per class."""
        if self.by_host:
            return queue_reason(self.cell, self.job, inst) or batch_reason(self.job, inst)
        c = self.verdicts.class_of[inst.position]
        said = self.queues.get(c, _NOT_YET)
        if said is _NOT_YET:
            said = self.queues[c] = queue_reason(self.cell, self.job, inst)
        return said or batch_reason(self.job, inst)  # type: ignore[return-value]

    def host_said(self, host: str) -> str | None:
        """``static.host_reason``, once per host (none without host lists)."""
        if not self.verdicts.host_lists:
            return None
        said = self.hosts.get(host, _NOT_YET)
        if said is _NOT_YET:
            said = self.hosts[host] = host_reason(self.cell, self.job, self.cell.hosts.get(host))
        return said  # type: ignore[return-value]

    def unknown(self, inst: Instance) -> str | None:
        """``static.unknown``: the first request no level offers."""
        if self.unoffered is None:
            names = [n for n, _ in self.asked if n != "slots"]
            if names:
                g = self.verdicts.world.instances[0]
                names = [n for n in names if not self.requests.offers("G", g, n)]
            self.unoffered = [(n, self.verdicts.offered(n)) for n in names]
        for name, offered in self.unoffered:
            if not offered[inst.position]:
                return name
        return None

    def of(self, inst: Instance) -> str | None:
        if self.by_position is None:
            self.by_position = self._all()
        return self.by_position[inst.position]

    def all(self) -> list[str | None]:
        """Every instance's verdict, by position."""
        if self.by_position is None:
            self.by_position = self._all()
        return self.by_position

    def _all(self) -> list[str | None]:
        v, job, cell = self.verdicts, self.job, self.cell
        instances = v.world.instances
        out: list[str | None] = [None] * len(instances)
        pending: list[Instance] = []
        if self.by_host:  # -q names hosts: per instance
            for inst in instances:
                out[inst.position] = queue_reason(cell, job, inst) or batch_reason(job, inst)
            pending = [i for i in instances if out[i.position] is None]
        else:
            for rep, members in zip(v.representatives, v.members, strict=True):
                said = queue_reason(cell, job, rep)
                if said is None and (job.pe is not None or "BATCH" in rep.conf.qtype):
                    pending += members
                    continue
                for inst in members:
                    out[inst.position] = said or batch_reason(job, inst)
        if v.host_lists:
            hosts: dict[str, str | None] = {}
            for inst in pending:
                if inst.host not in hosts:
                    hosts[inst.host] = host_reason(cell, job, cell.hosts.get(inst.host))
                out[inst.position] = hosts[inst.host]
            pending = [i for i in pending if out[i.position] is None]
        pending = self._requests(pending, out)
        self._unknown(pending, out)
        return out

    def _requests(self, pending: list[Instance], out: list[str | None]) -> list[Instance]:
        """Each request in the job's order at global, host, then queue instance level,
        over the instances no earlier part refused; those it refuses get the text."""
        v, prefix = self.verdicts, f"(-l {self.text}) cannot run"
        for name, value in self.asked:
            if not pending:
                break
            g = self.requests.failure(self.job, "G", pending[0], name, value)
            if g is not None:
                for inst in pending:
                    out[inst.position] = f"{prefix} globally because {g}"
                return []
            for kind in "HQ":
                column = v.column(self.job, kind, name, value)
                if column is None:
                    continue
                for inst in pending:
                    why = column[inst.position]
                    if why is not None:
                        out[inst.position] = f"{prefix} {level_words(kind, inst)} because {why}"
                pending = [i for i in pending if out[i.position] is None]
        return pending

    def _unknown(self, pending: list[Instance], out: list[str | None]) -> None:
        """The first request no level offers, per instance (``static.unknown``)."""
        names = [n for n, _ in self.asked if n != "slots"]
        if not pending or not names:
            return
        names = [n for n in names if not self.requests.offers("G", pending[0], n)]
        columns = [(n, self.verdicts.offered(n)) for n in names]
        for inst in pending:
            for name, offered in columns:
                if not offered[inst.position]:
                    out[inst.position] = (
                        f'(-l {self.text}) cannot run in queue "{inst.name}" because job '
                        f"requests unknown resource ({name})"
                    )
                    break


class Verdicts:
    """The run's static verdicts: the request parts, and each kind's verdicts.
    ``members`` are the instances by cluster-queue class (alike in what
    ``queue_reason`` and ``batch_reason``'s test read), ``representatives`` the first
    of each; ``column`` and ``offered`` the request parts of every instance."""

    def __init__(self, world: World, cell: Cell) -> None:
        self.world, self.cell = world, cell
        self.requests = Requests(cell)
        self.kinds: dict[tuple, KindVerdicts] = {}
        found: dict[tuple, int] = {}
        self.representatives: list[Instance] = []
        self.members: list[list[Instance]] = []
        self.class_of: list[int] = []
        for inst in world.instances:
            key = _queue_key(inst, False)
            if key not in found:
                found[key] = len(self.representatives)
                self.representatives.append(inst)
                self.members.append([])
            self.members[found[key]].append(inst)
            self.class_of.append(found[key])
        self.host_lists = any(
            h.user_lists or h.xuser_lists or h.projects or h.xprojects
            for h in cell.hosts.values()
        )
        self._columns: dict[tuple, list[str | None] | None] = {}
        self._offered: dict[str, list[bool]] = {}

    def column(self, job: Job, level: str, name: str, value: str) -> list[str | None] | None:
        """A request's failure at the host (``H``) or queue instance (``Q``) level of
        every instance, by position; None when no instance's level refuses it. Kept
        for every kind that asks the same request."""
        key = (level, name, value)
        if key not in self._columns:
            failure = self.requests.failure
            found = [failure(job, level, i, name, value) for i in self.world.instances]
            self._columns[key] = found if any(f is not None for f in found) else None
        return self._columns[key]

    def offered(self, name: str) -> list[bool]:
        """Whether each instance's host or the instance offers ``name``, by position."""
        found = self._offered.get(name)
        if found is None:
            offers = self.requests.offers
            found = self._offered[name] = [
                offers("H", i, name) or offers("Q", i, name) for i in self.world.instances
            ]
        return found

    def of(self, job: Job) -> KindVerdicts:
        kind = kind_of(self.world, job)
        found = self.kinds.get(kind)
        if found is None:
            found = self.kinds[kind] = KindVerdicts(self, job)
        return found
