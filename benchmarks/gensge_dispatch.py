#!/usr/bin/env python3
"""Seeded generator of a large Grid Engine cell for dispatch: many hosts and queues.

``gensge.py`` makes the jobs, users, projects and share tree (the qstat benchmark's
cell); this adds what ``condorlite sge schedule`` reads for placing them, in the files
and formats the real cell's dump writes (``tools/sge/dump-cell.sh``, the layout of
``tools/sge/README.md``):

``hosts`` (``qconf -se global``, then each host)
    ``global`` with the global consumable ``lic`` (``--licenses``, 400); ``--hosts``
    execution hosts ``n0001``... with 8-32 processors, memory and load values (a
    seeded ``np_load_avg`` per host, so ``queue_sort_method load`` orders them), and
    host consumables ``scratch`` (2-8 TB) and, on a quarter of them, ``gpu`` (2-4).
``queues`` (``qconf -sq``, each)
    ``short.q`` (seq_no 10, 2 slots, h_rt 4 hours), ``all.q`` (seq_no 20, the
    processors' slots as ``[host=n]`` overrides, the three PEs) on every host,
    ``gpu.q`` (seq_no 30, 2 slots) on the GPU hosts; long lists wrapped with `` \\``
    as qconf wraps them.
``queue_instances.xml``, ``queue_resources.xml`` (``qstat -f [-F] -xml -u '*'``)
    Every instance with its slots used and total and the running tasks on it; ``-F``
    adds each instance's resources (host loads ``hl``, what the global, host and queue
    consumables have left ``gc``/``hc``/``qc``, fixed queue values ``qf``). Then the
    pending list, the same in both.
``running.xml`` (``qstat -xml -s r -g t -u '*'``)
    gensge's running tasks placed round robin over the ``all.q`` instances (one slot
    each, as gensge counts them).
``sched_conf``
    gensge's with ``max_reservation`` (``--max-reservation``, 50) and
    ``default_duration`` (``--default-duration``, 8:00:00).

The jobs: ``--reserve`` (5 %) of them ask ``-R y``; otherwise gensge's mix (h_rt on
30 %, ``lic``/``gpu``/``scratch`` consumables, PE ranges, arrays, 2 % running).

Usage::

    python benchmarks/gensge_dispatch.py --hosts 1000 --jobs 100000 --users 1000 \\
        --projects 50 --seed 1 --out /tmp/sgebench/dispatch-h1000-j100000
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gensge  # noqa: E402

XSD = ('<?xml version=\'1.0\'?>\n<job_info  xmlns:xsd="http://arc.liv.ac.uk/repos/darcs/sge/'
       'source/dist/util/resources/schemas/qstat/qstat.xsd">\n')
GIB = 1024 ** 3


@dataclass(frozen=True)
class DispatchSpec:
    hosts: int = 1000
    licenses: int = 400
    max_reservation: int = 50
    default_duration: str = "8:00:00"
    reserve: float = 0.05


@dataclass
class Host:
    name: str
    cpus: int
    mem_gib: int
    load: float  # np_load_avg
    scratch_tb: int
    gpus: int


@dataclass
class Queue:
    name: str
    seq_no: int
    h_rt: str
    pe_list: str
    hosts: list[Host]

    def slots(self, host: Host) -> int:
        return host.cpus if self.name == "all.q" else 2


def make_hosts(spec: DispatchSpec, seed: int) -> list[Host]:
    rng = random.Random(seed + 11)
    out = []
    for i in range(spec.hosts):
        cpus = rng.choice((8, 16, 16, 32))
        out.append(Host(f"n{i + 1:04d}", cpus, cpus * rng.choice((4, 8)),
                        round(rng.uniform(0.0, 1.2), 6), rng.choice((2, 4, 8)),
                        rng.choice((2, 4)) if i % 4 == 0 else 0))
    return out


def make_queues(hosts: list[Host]) -> list[Queue]:
    return [Queue("short.q", 10, "04:00:00", "NONE", hosts),
            Queue("all.q", 20, "INFINITY", "smp mpi mpi_rr", hosts),
            Queue("gpu.q", 30, "INFINITY", "NONE", [h for h in hosts if h.gpus])]


def _wrapped(key: str, items: list[str], sep: str) -> str:
    """``key value`` with the values wrapped at 80 columns, `` \\`` continued."""
    lines, line = [], f"{key:<22}"
    for k, item in enumerate(items):
        piece = item + (sep if k < len(items) - 1 else "")
        if len(line) + len(piece) > 76 and not line.endswith(" " * 2):
            lines.append(line.rstrip() + " \\")
            line = " " * 22
        line += piece
    lines.append(line.rstrip())
    return "\n".join(lines) + "\n"


def _host_block(name: str, complex_values: str, loads: list[str], cpus: int) -> str:
    return (f"hostname              {name}\nload_scaling          NONE\n"
            f"complex_values        {complex_values}\n"
            + (_wrapped("load_values", loads, ",") if loads else "load_values           NONE\n")
            + f"processors            {cpus}\nuser_lists            NONE\n"
            "xuser_lists           NONE\nprojects              NONE\nxprojects             NONE\n"
            "usage_scaling         NONE\nreport_variables      NONE\n")


def _loads(h: Host) -> list[str]:
    mem = h.mem_gib * 1024.0
    used = mem * min(0.9, h.load / 2)
    return [f"load_avg={h.load * h.cpus:.6f}", "arch=lx-amd64", f"num_proc={h.cpus}",
            f"mem_free={mem - used:.6f}M", f"mem_total={mem:.6f}M", f"mem_used={used:.6f}M",
            f"np_load_avg={h.load:.6f}", f"np_load_short={h.load:.6f}"]


def _consumables(h: Host) -> str:
    items = [f"scratch={h.scratch_tb}T"] + ([f"gpu={h.gpus}"] if h.gpus else [])
    return ",".join(items)


def write_hosts(spec: DispatchSpec, hosts: list[Host], out: Path) -> None:
    with open(out / "hosts", "w") as f:
        f.write(_host_block("global", f"lic={spec.licenses}", [], 0))
        for h in hosts:
            f.write(_host_block(h.name, _consumables(h), _loads(h), h.cpus))


def write_queues(queues: list[Queue], out: Path) -> None:
    template = (gensge.RECORDING / "queues").read_text()
    with open(out / "queues", "w") as f:
        for q in queues:
            text = re.sub(r"(?m)^qname .*$", f"qname                 {q.name}", template)
            slots = {q.slots(h) for h in q.hosts}
            default = 2 if q.name != "all.q" else 16
            overrides = "" if slots == {default} else "".join(
                f",[{h.name}={q.slots(h)}]" for h in q.hosts if q.slots(h) != default)
            text = re.sub(r"(?m)^hostlist .*$", _wrapped("hostlist", [h.name for h in q.hosts],
                                                         " ").rstrip("\n"), text)
            text = re.sub(r"(?m)^seq_no .*$", f"seq_no                {q.seq_no}", text)
            text = re.sub(r"(?m)^pe_list .*$", f"pe_list               {q.pe_list}", text)
            slots_line = _wrapped("slots", [str(default), *overrides.split(",")[1:]], ",")
            text = re.sub(r"(?m)^slots .*$", slots_line.rstrip("\n"), text)
            text = re.sub(r"(?m)^h_rt .*$", f"h_rt                  {q.h_rt}", text)
            f.write(text)


def place_running(counts: gensge.JobCounts, queues: list[Queue]) -> dict[str, list]:
    """Each running task on an ``all.q`` instance, round robin over the hosts."""
    allq = next(q for q in queues if q.name == "all.q")
    placed: dict[str, list] = {f"all.q@{h.name}": [] for h in allq.hosts}
    free = [allq.slots(h) for h in allq.hosts]
    k = 0
    for task in counts.running:
        for _ in range(len(free)):
            k = (k + 1) % len(free)
            if free[k]:
                break
        free[k] -= 1
        placed[f"all.q@{allq.hosts[k].name}"].append(task)
    return placed


def _job_line(task: tuple, indent: str, queue: str | None) -> str:
    number, tnum, owner, name, start, array = task
    text = (f'{indent}<job_list state="running">\n'
            f"{indent}  <JB_job_number>{number}</JB_job_number>\n"
            f"{indent}  <JAT_prio>0.50000</JAT_prio>\n"
            f"{indent}  <JB_name>{name}</JB_name>\n{indent}  <JB_owner>{owner}</JB_owner>\n"
            f"{indent}  <state>r</state>\n"
            f"{indent}  <JAT_start_time>{gensge._stamp(start)}</JAT_start_time>\n")
    if queue is not None:
        text += f"{indent}  <queue_name>{queue}</queue_name>\n{indent}  <master>MASTER</master>\n"
    text += f"{indent}  <slots>1</slots>\n"
    if array:
        text += f"{indent}  <tasks>{tnum}</tasks>\n"
    return text + f"{indent}</job_list>\n"


def write_running(placed: dict[str, list], out: Path) -> None:
    with open(out / "running.xml", "w") as f:
        f.write(XSD + "  <queue_info>\n")
        for name, tasks in placed.items():
            for task in tasks:
                f.write(_job_line(task, "    ", name))
        f.write("  </queue_info>\n  <job_info>\n  </job_info>\n</job_info>\n")


def _resources(spec: DispatchSpec, q: Queue, h: Host, used: int, lic_left: int) -> str:
    rows = [(n, "hl", v) for n, _, v in (x.partition("=") for x in _loads(h))]
    rows += [("lic", "gc", str(lic_left)), ("scratch", "hc", f"{h.scratch_tb * 1024:.3f}G")]
    if h.gpus:
        rows.append(("gpu", "hc", str(h.gpus)))
    rows += [("qname", "qf", q.name), ("hostname", "qf", h.name),
             ("slots", "qc", str(q.slots(h) - used)), ("seq_no", "qf", str(q.seq_no)),
             ("h_rt", "qf", "infinity" if q.h_rt == "INFINITY" else q.h_rt)]
    return "".join(f'      <resource name="{n}" type="{t}">{v}</resource>\n' for n, t, v in rows)


def write_instances(spec: DispatchSpec, queues: list[Queue], placed: dict[str, list],
                    counts: gensge.JobCounts, out: Path, with_resources: bool) -> None:
    name = "queue_resources.xml" if with_resources else "queue_instances.xml"
    with open(out / name, "w", buffering=1 << 20) as f:
        f.write(XSD + "  <queue_info>\n")
        for q in queues:
            for h in q.hosts:
                inst = f"{q.name}@{h.name}"
                tasks = placed.get(inst, [])
                f.write(f"    <Queue-List>\n      <name>{inst}</name>\n      <qtype>BIP</qtype>\n"
                        f"      <slots_used>{len(tasks)}</slots_used>\n"
                        "      <slots_resv>0</slots_resv>\n"
                        f"      <slots_total>{q.slots(h)}</slots_total>\n"
                        f"      <load_avg>{h.load * h.cpus:.5f}</load_avg>\n"
                        "      <arch>lx-amd64</arch>\n")
                if with_resources:
                    f.write(_resources(spec, q, h, len(tasks), spec.licenses))
                for task in tasks:
                    f.write(_job_line(task, "      ", None))
                f.write("    </Queue-List>\n")
        f.write("  </queue_info>\n")
        gensge.write_pending(counts, f)


def set_conf(path: Path, values: dict[str, str]) -> None:
    text = path.read_text()
    for key, value in values.items():
        text = re.sub(rf"(?m)^{key} .*$", f"{key:<34}{value}", text)
    path.write_text(text)


def write_dispatch_cell(cell: gensge.CellSpec, spec: DispatchSpec, out: Path,
                        log: TextIO | None = None) -> gensge.JobCounts:
    counts = gensge.write_cell(cell, out)
    hosts = make_hosts(spec, cell.seed)
    queues = make_queues(hosts)
    write_hosts(spec, hosts, out)
    write_queues(queues, out)
    placed = place_running(counts, queues)
    write_running(placed, out)
    for resources in (False, True):
        write_instances(spec, queues, placed, counts, out, resources)
    set_conf(out / "sched_conf", {"max_reservation": str(spec.max_reservation),
                                  "default_duration": spec.default_duration})
    if log is not None:
        slots = sum(q.slots(h) for q in queues for h in q.hosts)
        print(f"{out}: {len(hosts)} hosts, {sum(len(q.hosts) for q in queues)} queue "
              f"instances, {slots} slots; {counts.jobs} jobs ({counts.running_tasks} "
              f"running tasks)", file=log)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--projects", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reserve", type=float, default=0.05, help="fraction of jobs with -R y")
    ap.add_argument("--max-reservation", type=int, default=50)
    ap.add_argument("--default-duration", default="8:00:00")
    ap.add_argument("--licenses", type=int, default=400, help="global lic capacity")
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    cell = gensge.CellSpec(jobs=a.jobs, users=a.users, projects=a.projects, seed=a.seed,
                           reserve=a.reserve)
    spec = DispatchSpec(hosts=a.hosts, licenses=a.licenses, max_reservation=a.max_reservation,
                        default_duration=a.default_duration, reserve=a.reserve)
    write_dispatch_cell(cell, spec, a.out, sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
