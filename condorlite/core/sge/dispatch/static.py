"""What rules a queue instance out for a job for the whole run, in the scheduler's
order and words (cqueue_match_static, sge_host_match_static, rc_time_by_slots).

Cluster queue (once per queue; ``"q"`` is the cluster queue's name):

    -q list      cannot run in queue "q" because it is not contained in its hard
                 queue list (-q)
    queue limits (-l h_rt, s_rt, qname against the queue's own values)
                 (-l h_rt=600) cannot run in queue "q" because of cluster queue
    projects     (no project) does not have the correct project to run in cluster
                 queue "q"          (the scheduler says "no project" in every case)
    user_lists   has no permission for cluster queue "q"
    pe_list      cannot run in queue "q" because PE "pe" is not in pe list

Host (once per host): its user_lists/xuser_lists ("has no permission for host
"h""), projects ("(no project) ..." without one, "(project p) does not have the
correct project to run in host "h""), xprojects ("(project p) is not allowed to run
in host "h" based on the excluded project list").

Non-consumable ``-l`` requests at a level (global, host, queue instance) are compared
where the level offers the attribute (global and host ``complex_values`` and load
values, the queue's complex_values and fixed attributes), as ``request RELOP offer``
for numbers and as a wildcard match for strings; the first failure reads
``(-l <all hard requests>) cannot run at host "h" because it offers only hl:arch=x``
(``g``/``h``/``q`` for the level, ``f`` for a configured value, ``l`` for a load).
A request no level offers: ``... because job requests unknown resource (name)``.
"""

from __future__ import annotations

import fnmatch

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell, Complex
from condorlite.core.sge.queues import ExecHost

from .diagram import amount
from .world import Instance

#: queue attributes a request is compared with at the cluster queue
QUEUE_LIMITS = ("h_rt", "s_rt")


def request_text(job: Job) -> str:
    """The job's hard requests as a reason prints them: ``a=1,b=2`` by name, ``NONE``
    without any (centry_list_append_to_string)."""
    items = sorted(job.hard_requests, key=lambda r: r.name)
    return ",".join(f"{r.name}={r.value}" for r in items) or "NONE"


def in_hard_queue_list(job: Job, inst: Instance) -> bool:
    if not job.hard_queues:
        return True
    for pattern in job.hard_queues:
        queue, at, host = pattern.partition("@")
        if not fnmatch.fnmatchcase(inst.queue, queue or "*"):
            continue
        if at and not fnmatch.fnmatchcase(inst.host, host or "*"):
            continue
        return True
    return False


def _member(cell: Cell, lists: tuple[str, ...], job: Job) -> bool:
    for name in lists:
        us = cell.usersets.get(name)
        if us and (job.owner in us.entries or f"@{job.group}" in us.entries):
            return True
    return False


def _no_access(cell: Cell, job: Job, allow: tuple[str, ...], deny: tuple[str, ...]) -> bool:
    return bool(allow and not _member(cell, allow, job)) or _member(cell, deny, job)


def compare(c: Complex, request: str, offer: str) -> bool:
    """``request RELOP offer`` (module doc)."""
    if c.type in ("STRING", "CSTRING", "RESTRING", "HOST"):
        fold = c.type != "STRING"
        r, o = (request.lower(), offer.lower()) if fold else (request, offer)
        match = any(fnmatch.fnmatchcase(o, part) for part in r.split("|"))
        return match if c.relop != "!=" else not match
    req, off = amount(request, c.type), amount(offer, c.type)
    if req is None or off is None:
        return False
    return {
        "==": req == off,
        "!=": req != off,
        "<=": req <= off,
        "<": req < off,
        ">=": req >= off,
        ">": req > off,
    }.get(c.relop, False)


def cqueue_reason(cell: Cell, job: Job, inst: Instance) -> str | None:
    """The cluster queue's reason to refuse ``job``, then the instance's type's."""
    return queue_reason(cell, job, inst) or batch_reason(job, inst)


def queue_reason(cell: Cell, job: Job, inst: Instance) -> str | None:
    """What the cluster queue's settings (as they apply on the instance's host) say:
    ``-q``, queue limits, projects, access lists, PE list (module doc)."""
    conf, cq = inst.conf, f'"{inst.queue}"'
    if not in_hard_queue_list(job, inst):
        return f"cannot run in queue {cq} because it is not contained in its hard queue list (-q)"
    failed = []
    for r in job.hard_requests:
        c = cell.complexes.get(r.name)
        if c is None:
            continue
        offer = _queue_fixed(inst, r.name) if r.name in (*QUEUE_LIMITS, "qname") else None
        if offer is not None and not compare(c, r.value, offer):
            failed.append(f"{r.name}={r.value}")
    if failed:
        return f"(-l {','.join(failed)}) cannot run in queue {cq} because of cluster queue"
    project = job.project
    if (conf.projects and project not in conf.projects) or (project in conf.xprojects):
        return f"(no project) does not have the correct project to run in cluster queue {cq}"
    if _no_access(cell, job, conf.user_lists, conf.xuser_lists):
        return f"has no permission for cluster queue {cq}"
    if job.pe is not None and not any(fnmatch.fnmatchcase(p, job.pe) for p in conf.pe_list):
        return f'cannot run in queue {cq} because PE "{job.pe}" is not in pe list'
    return None


def batch_reason(job: Job, inst: Instance) -> str | None:
    """A sequential job in an instance that is not of type BATCH."""
    if job.pe is None and "BATCH" not in inst.conf.qtype:
        return f'cannot run in queue instance "{inst.name}" because it is not of type batch'
    return None


def host_reason(cell: Cell, job: Job, host: ExecHost | None) -> str | None:
    if host is None:
        return None
    h, project = f'"{host.name}"', job.project
    if _no_access(cell, job, host.user_lists, host.xuser_lists):
        return f"has no permission for host {h}"
    if host.projects and not project:
        return f"(no project) does not have the correct project to run in host {h}"
    if host.projects and project not in host.projects:
        return f"(project {project}) does not have the correct project to run in host {h}"
    if project and project in host.xprojects:
        return (
            f"(project {project}) is not allowed to run in host {h} based on the excluded "
            f"project list"
        )
    return None


def refused(cell: Cell, job: Job, inst: Instance) -> str | None:
    """The cluster queue's, then the host's, reason to refuse ``job``; None if none."""
    return cqueue_reason(cell, job, inst) or host_reason(cell, job, cell.hosts.get(inst.host))


# --- non-consumable requests at a level ------------------------------------------------


def _queue_fixed(inst: Instance, name: str) -> str | None:
    conf = inst.conf
    fixed = {"qname": inst.queue, "hostname": inst.host, "seq_no": str(conf.seq_no)}
    if name in fixed:
        return fixed[name]
    if name in QUEUE_LIMITS:
        limit = getattr(conf, name)
        return "infinity" if limit is None else str(limit)
    return None


def offer(cell: Cell, kind: str, inst: Instance | None, name: str) -> tuple[str, str] | None:
    """(dominance, value) of an attribute at a level: ``G`` global, ``H`` the
    instance's host, ``Q`` the instance."""
    if inst is None and kind != "G":
        return None
    if kind == "Q" and inst is not None:
        fixed = _queue_fixed(inst, name)
        if fixed is not None:
            return "qf", fixed
        return next((("qf", v) for n, v in inst.conf.complex_values if n == name), None)
    host = cell.hosts.get("global" if kind == "G" or inst is None else inst.host)
    if host is None:
        return None
    prefix = "g" if kind == "G" else "h"
    for n, v in host.complex_values:
        if n == name:
            return f"{prefix}f", v
    if name in host.load_values:
        return f"{prefix}l", host.load_values[name]
    return None


def request_failure(
    cell: Cell, job: Job, kind: str, inst: Instance | None, name: str
) -> str | None:
    """Why the non-consumable request ``name`` fails at this level ("it offers only
    ..."), or None when the level does not offer it or it matches."""
    c = cell.complexes.get(name)
    r = next(r for r in job.hard_requests if r.name == name)
    found = offer(cell, kind, inst, name)
    if c is None or found is None or compare(c, r.value, found[1]):
        return None
    return f"it offers only {found[0]}:{name}={found[1]}"


def unknown(cell: Cell, job: Job, inst: Instance) -> str | None:
    """The first request no level offers (``slots`` is every instance's)."""
    for r in job.hard_requests:
        if r.name != "slots" and all(offer(cell, k, inst, r.name) is None for k in "GHQ"):
            return r.name
    return None


def level_words(kind: str, inst: Instance) -> str:
    """How ``qstat -j`` names the place of a level (``G``, ``H`` or ``Q``) in a
    request's reason: ``globally``, ``at host "h"``, ``in queue "q"``."""
    if kind == "G":
        return "globally"
    return f'at host "{inst.host}"' if kind == "H" else f'in queue "{inst.name}"'


def static_failure(cell: Cell, job: Job, inst: Instance) -> str | None:
    """Every reason the instance is never usable by ``job`` (``refused``, a request
    no level matches or offers), as ``qstat -j`` words it; None when usable."""
    why = refused(cell, job, inst)
    if why is not None:
        return why
    for r in job.hard_requests:
        for kind in "GHQ":
            failure = request_failure(cell, job, kind, inst, r.name)
            if failure is not None:
                return (f"(-l {request_text(job)}) cannot run {level_words(kind, inst)} "
                        f"because {failure}")
    name = unknown(cell, job, inst)
    if name is not None:
        return (
            f'(-l {request_text(job)}) cannot run in queue "{inst.name}" because job '
            f"requests unknown resource ({name})"
        )
    return None
