"""The run's queue lists (sge_split_queue_slots_free, sge_split_queue_load): which
queue instances may take a job now (``queue_list``), which only a reservation may use
(``dis_list``), the order jobs try them in, and the run-wide messages their moves say.

Before the first job (``split_initial``): instances suspended, in error or unknown
("temporarily not available"), then those over a load threshold ("overloaded"), then
disabled ones leave the run; full ones go to ``dis_list``; the rest is ``queue_list``.
After a start or a reservation attempt (``resplit``): full instances (said once) and,
on the granted hosts, those the load adjustment of the jobs started so far puts over
a threshold (said each time) move from ``queue_list`` to ``dis_list``. A reservation
attempt first brings ``dis_list`` back (``open_all``).

Every change to ``queue_list`` goes through ``_enter`` and ``_leave``, which keep the
ranking of its members (``order.Ranking``) in step, so that ``order()`` is a copy of
a sorted list rather than a filter and a sort over every instance per attempt.
"""

from __future__ import annotations

from collections import Counter

from condorlite.core.sge.objects import Cell

from . import order as ordering
from .world import Instance, World

#: states the scheduler's data preparation leaves out ("temporarily not available"):
#: suspended, suspended on subordinate, error, ambiguous, unknown, orphaned, suspend
#: alarm; then calendar suspended
_NOT_AVAILABLE = frozenset("sSEcuoA")
_CALENDAR_SUSPENDED = "C"
#: states dispatch_jobs drops as disabled (calendar disabled, disabled)
_DISABLED = frozenset("Dd")


class QueueLists:
    """``queue_list`` and ``dis_list`` of one run, the load corrections of the jobs
    started in it, and the instance order (module doc). ``messages`` is the run's
    list of run-wide messages, appended to."""

    def __init__(self, cell: Cell, world: World, messages: list[str]) -> None:
        self.cell, self.world, self.messages = cell, world, messages
        self.corrections: Counter[str] = Counter()
        self.queue_list: set[str] = set()
        self.dis_list: set[str] = set()
        self.full_noted: set[str] = set()
        self.values: dict[str, tuple[float, float]] = {}
        #: instances whose free slots or load may have changed since ``resplit`` last
        #: looked at them, and each host's instances
        self.maybe_full: set[str] = set()
        self.unchecked: set[str] = set()
        self.on_host: dict[str, list[str]] = {}
        #: ``queue_list`` in the order jobs try it (``order.Ranking``), built at the
        #: first job; hosts whose load correction changed since it last looked
        self.ranking: ordering.Ranking | None = None
        self.moved: set[str] = set()
        self.by_name = {i.name: i for i in world.instances}
        self.position = {i.name: k for k, i in enumerate(world.instances)}
        self.by_load = cell.sched_conf.queue_sort_method.lower() != "seqno"
        self.adjusted = bool(ordering.parse_adjustments(cell.sched_conf.job_load_adjustments))
        for inst in world.instances:
            self.on_host.setdefault(inst.host, []).append(inst.name)

    # --- membership -----------------------------------------------------------------

    def _enter(self, name: str) -> None:
        if name not in self.queue_list:
            self.queue_list.add(name)
            if self.ranking is not None:
                self.ranking.enter(self.by_name[name])

    def _leave(self, name: str) -> None:
        if name in self.queue_list:
            self.queue_list.discard(name)
            if self.ranking is not None:
                self.ranking.leave(self.by_name[name])

    def open_all(self) -> None:
        """A reservation may use the full (and lately overloaded) instances: they come
        back to ``queue_list``, to be looked at again by the next ``resplit``."""
        for name in self.dis_list:
            self._enter(name)
        self.maybe_full |= self.dis_list
        self.unchecked |= self.dis_list
        self.dis_list.clear()

    def started(self, grants: list[tuple[Instance, int]]) -> None:
        """A job started on ``grants``: its hosts' load corrections grow by its slots
        there, its instances may be full, its hosts' instances overloaded."""
        for inst, n in grants:
            self.corrections[inst.host] += n
            self.moved.add(inst.host)
            self.maybe_full.add(inst.name)
            self.unchecked.update(self.on_host[inst.host])

    # --- order --------------------------------------------------------------------

    def host_value(self, host: str) -> float:
        """The host's load formula value, worked out again only when its load
        correction has changed."""
        correction = self.corrections[host]
        known = self.values.get(host)
        if known is None or known[0] != correction:
            known = (correction, ordering.host_value(self.cell, host, correction))
            self.values[host] = known
        return known[1]

    def ranked(self, names: set[str]) -> list[Instance]:
        """The named instances in the order they are tried: sorted by
        ``order.sort_key`` (a few at a time after a start), or by ``order.ranked``
        when a value is NaN."""
        instances = [self.by_name[n] for n in names]
        values = {h: self.host_value(h) for h in {i.host for i in instances}}
        if all(v == v for v in values.values()):
            by_load, position = self.by_load, self.position
            return sorted(instances, key=lambda i: ordering.sort_key(
                by_load, values[i.host], i.conf.seq_no, position[i.name]))
        instances.sort(key=lambda i: self.position[i.name])
        return ordering.ranked(self.cell, instances, values)

    def order(self) -> list[Instance]:
        """``ranked(queue_list)``, from the ranking kept up to date: its own list
        (``Ranking.members``, not a copy of 2,250 instances per attempt), read by one
        attempt before the next ``resplit`` or ``open_all`` changes the lists."""
        if self.ranking is None:
            self.ranking = ordering.Ranking(
                self.cell, self.world.instances, self.host_value, self.queue_list
            )
        for host in self.moved:
            self.ranking.update(host)
        self.moved.clear()
        if not self.ranking.exact:
            return self.ranked(self.queue_list)
        return self.ranking.members()

    # --- splits -------------------------------------------------------------------

    def _drop(self, inst: Instance, why: str) -> None:
        self.messages.append(f'queue instance "{inst.name}" dropped because it is {why}')

    def _alarm(self, inst: Instance) -> str | None:
        if not inst.conf.load_thresholds:
            return None
        return ordering.load_alarm(
            self.cell, inst.host, inst.conf.load_thresholds, self.corrections[inst.host]
        )

    def _full(self, inst: Instance) -> None:
        if inst.name not in self.full_noted:
            self.full_noted.add(inst.name)
            self._drop(inst, "full")

    def split_initial(self) -> None:
        """The lists before the first job, in the scheduler's order: instances in a
        state its data preparation leaves out (then calendar suspended ones) are
        "temporarily not available"; of the rest, those over a load threshold are
        "overloaded", then (calendar) disabled ones "disabled"; full ones wait in
        ``dis_list`` (reservations may use them); the rest is ``queue_list``."""
        instances = self.world.instances
        first = [i for i in instances if set(i.state) & _NOT_AVAILABLE]
        then = [i for i in instances if _CALENDAR_SUSPENDED in i.state and i not in first]
        for inst in first + then:
            self._drop(inst, "temporarily not available")
        gone = {i.name for i in first + then}
        left = []
        for inst in (i for i in instances if i.name not in gone):
            why = self._alarm(inst)
            if why is not None:
                self._drop(inst, f"overloaded: {why}")
            elif set(inst.state) & _DISABLED:
                self._drop(inst, "disabled")
            else:
                left.append(inst)
        for inst in left:
            if inst.free_slots() <= 0:
                self._full(inst)
                self.dis_list.add(inst.name)
            else:
                self._enter(inst.name)

    def _load_unchecked(self, hosts: set[str] | None) -> set[str]:
        """The members of ``queue_list`` whose load ``resplit`` looks at again: the
        unchecked ones, on ``hosts`` when given. For one host, only its instances
        (``unchecked`` grows to most of the instances in a large run): they rank
        among themselves by (seq_no, position) whichever way the whole set ranks
        (``order``: one host has one value), so the moves and messages are those
        of the whole set filtered by host. Several hosts take the whole set, since
        values that do not order (NaN) rank hosts by the set they are in."""
        if hosts is None or len(hosts) > 1:
            return self.unchecked & self.queue_list
        (host,) = hosts
        unchecked, queue_list = self.unchecked, self.queue_list
        return {n for n in self.on_host[host] if n in unchecked and n in queue_list}

    def resplit(self, granted: list[tuple[Instance, int]] | None) -> None:
        """After a job started or a reservation was looked for (``granted``: where,
        None when nothing was found): instances now full move from ``queue_list`` to
        ``dis_list`` ("full" said once per instance in a run); then, when
        job_load_adjustments are set or nothing was granted, those now over a load
        threshold on a granted host (on any host when nothing was granted) move too,
        each time with the message (sge_split_queue_slots_free, sge_split_queue_load).

        Only instances that can have changed are looked at, in the order of the whole
        list (an instance's place in it does not depend on the others): a start fills
        its grants (``maybe_full``) and loads its hosts (``unchecked``); a reservation
        brings back the full and overloaded ones (``open_all``). Every other instance
        of ``queue_list`` was found neither full nor overloaded before and nothing of
        it has changed since, so the messages and moves are those of a pass over all."""
        for inst in self.ranked(self.maybe_full & self.queue_list):
            if inst.free_slots() <= 0:
                self._full(inst)
                self._leave(inst.name)
                self.dis_list.add(inst.name)
        self.maybe_full.clear()
        if granted is not None and not self.adjusted:
            return
        hosts = None if granted is None else {i.host for i, _ in granted}
        for inst in self.ranked(self._load_unchecked(hosts)):
            if hosts is not None and inst.host not in hosts:
                continue
            self.unchecked.discard(inst.name)
            why = self._alarm(inst)
            if why is not None:
                self._drop(inst, f"overloaded: {why}")
                self._leave(inst.name)
                self.dis_list.add(inst.name)
