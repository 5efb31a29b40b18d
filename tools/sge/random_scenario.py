#!/usr/bin/env python3
"""Write a random Grid Engine scenario script (for tools/sge/live_record.sh).

    python3 tools/sge/random_scenario.py --seed 7 > /tmp/rnd_7.sh
    OUT=/tmp/out flock /tmp/sge-cell.lock bash /tmp/rnd_7.sh

The script (bash, sourcing tools/sge/lib.sh) resets the cell, sets up random users,
projects and departments (fshare, oticket, default_project), maybe a random share tree
(written depth-first, as `qconf -Astree` needs), random scheduler knobs (ticket pools,
functional weights, policy_hierarchy, share_override_tickets, share_functional_shares,
max_functional_jobs_to_schedule, compensation_factor, the final priority weights), extra
consumables with urgency values, extra parallel environments with every urgency_slots
setting, sometimes a couple of running jobs, then 5-30 pending jobs with random -P, -p
(negative by the user, positive by a manager's qalter -p), -l consumable requests,
-pe ranges, -dl deadlines, -js job shares, qalter -ot override tickets and -t arrays,
and records one snap, t0, into $OUT/rnd_<seed>/t0.

Only the standard library; the same seed always writes the same script.
"""
import argparse
import os
import random
import sys

USERS = ["alice", "bob", "carol", "dave", "erin"]
HIERARCHIES = ["OFS", "OSF", "FOS", "FSO", "SOF", "SFO", "OF", "OS", "FO", "SO",
               "FS", "SF", "O", "F", "S", "NONE"]


def pick_weight(rng):
    return rng.choice([0, 0.1, 0.25, 0.5, 1, 2, round(rng.uniform(0, 1), 3)])


class Tree:
    """A share tree; nodes are numbered depth-first when written."""

    def __init__(self, name, shares, kind=0, children=None):
        self.name, self.shares, self.kind = name, shares, kind
        self.children = children or []

    def lines(self):
        out = []
        order = []

        def walk(n):
            order.append(n)
            for c in n.children:
                walk(c)
        walk(self)
        ids = {id(n): i for i, n in enumerate(order)}
        for n in order:
            kids = ",".join(str(ids[id(c)]) for c in n.children) or "NONE"
            out += ["id=%d" % ids[id(n)], f"name={n.name}", "type=%d" % n.kind,
                    "shares=%d" % n.shares, f"childnodes={kids}"]
        return out


def random_tree(rng, users, projects):
    top = []
    free_users = list(users)
    rng.shuffle(free_users)
    # project nodes, with user leaves and/or a default leaf (or none: a project leaf)
    for p in projects:
        if rng.random() < 0.7:
            kids = []
            for u in rng.sample(users, rng.randint(0, len(users))):
                kids.append(Tree(u, rng.choice([1, 1, 2, 3, 5, 10])))
            if rng.random() < 0.5 or (not kids and rng.random() < 0.5):
                kids.append(Tree("default", rng.choice([1, 2, 5])))
            top.append(Tree(p, rng.choice([10, 20, 30, 50, 100]), 1, kids))
    # user nodes outside projects: each user at most once, directly or in a group
    groups = []
    nsub = [0]
    for i in range(rng.randint(0, 2)):
        groups.append(Tree("grp%d" % (i + 1), rng.choice([10, 20, 40, 60])))
    for u in free_users:
        r = rng.random()
        if r < 0.25:
            continue
        leaf = Tree(u, rng.choice([1, 5, 10, 20, 30, 50]))
        if groups and r < 0.6:
            g = rng.choice(groups)
            # sometimes one more level
            if g.children and rng.random() < 0.3 and not g.children[0].children \
                    and g.children[0].name.startswith("sub"):
                g.children[0].children.append(leaf)
            elif rng.random() < 0.2:
                nsub[0] += 1
                g.children.append(Tree("sub%d" % nsub[0], rng.choice([1, 2, 3]), 0, [leaf]))
            else:
                g.children.append(leaf)
        else:
            top.append(leaf)
    top += [g for g in groups if g.children]
    if rng.random() < 0.3:
        top.append(Tree("default", rng.choice([1, 5, 10])))
    if not top:
        top.append(Tree(users[0], 10))
    rng.shuffle(top)
    return Tree("Root", 1, 0, top)


def generate(seed, kit):
    rng = random.Random(seed)
    name = "rnd_%d" % seed
    L = []
    w = L.append
    w("#!/bin/bash")
    w("# Random scenario, seed %d (tools/sge/random_scenario.py --seed %d)." % (seed, seed))
    w(f'. "${{SGE_KIT:-{kit}}}/lib.sh"')
    w(f"begin {name}")

    users = sorted(rng.sample(USERS, rng.randint(2, 5)))
    projects = ["p%d" % (i + 1) for i in range(rng.randint(0, 3))]
    ndept = rng.randint(0, min(2, len(users)))
    pool = list(users)
    rng.shuffle(pool)
    depts = []
    for i in range(ndept):
        k = rng.randint(1, max(1, len(pool) - (ndept - i - 1)))
        members, pool = pool[:k], pool[k:]
        if members:
            depts.append(("dept_{}".format("ab"[i]), members))

    # extra consumables (global) and PEs
    cons = []
    for cname, urg in (("lic", rng.choice([0, 100, 200, 1000])),
                       ("gpu", rng.choice([0, 500, 5000]))):
        if rng.random() < 0.7:
            cons.append((cname, rng.choice([4, 10, 40])))
            w('add_complex "%s %s INT <= YES YES 0 %d"' % (cname, cname, urg))
    if cons:
        values = ",".join("%s=%d" % c for c in cons)
        w(f"mgr qconf -mattr exechost complex_values {values} global")
    pes = ["smp"]
    for us in ("max", "avg", str(rng.randint(1, 8))):
        if rng.random() < 0.5:
            pe = f"pe_{us}"
            pes.append(pe)
            w('sed -e "s/^pe_name .*/pe_name %s/" -e "s/^urgency_slots .*/urgency_slots %s/" '
              '-e "s/^slots .*/slots %d/" $HERE_SGE/default_pe_smp.txt > $TMPD/%s'
              % (pe, us, rng.choice([8, 16, 999]), pe))
            w(f"mgr qconf -Ap $TMPD/{pe}")
    if rng.random() < 0.5:
        w("mgr qconf -mattr pe urgency_slots {} smp".format(rng.choice(["min", "max", "avg", "2"])))
    if len(pes) > 1:
        w('mgr qconf -mattr queue pe_list "{}" all.q'.format(" ".join(pes)))

    # users, projects, departments
    def fshare():
        return rng.choice([0, 0, 5, 10, 25, 50, 100, 200])

    def otick():
        return rng.choice([0, 0, 0, 10000, 50000, 100000, 250000])

    for p in projects:
        w("mkprj %s %d %d" % (p, fshare(), otick()))
    for u in users:
        dp = rng.choice(projects) if projects and rng.random() < 0.25 else "NONE"
        w("mkuser %s %d %d %s" % (u, fshare(), otick(), dp))
    for d, members in depts:
        w("mkdept %s %d %d %s" % (d, fshare(), otick(), ",".join(members)))

    # share tree
    if rng.random() < 0.75:
        tree = random_tree(rng, users, projects)
        w("cat > $TMPD/tree <<'EOT'")
        L.extend(tree.lines())
        w("EOT")
        w("stree $TMPD/tree || exit 1")

    # scheduler configuration
    knobs = [
        ("weight_tickets_functional", rng.choice([0, 100000, 500000, 1000000])),
        ("weight_tickets_share", rng.choice([0, 100000, 500000, 1000000])),
        ("weight_user", pick_weight(rng)), ("weight_project", pick_weight(rng)),
        ("weight_department", pick_weight(rng)), ("weight_job", pick_weight(rng)),
        ("policy_hierarchy", rng.choice(HIERARCHIES)),
        ("share_override_tickets", rng.choice(["true", "false"])),
        ("share_functional_shares", rng.choice(["true", "false"])),
        ("max_functional_jobs_to_schedule", rng.choice([200, 200, 200, 10, 3, 1])),
        ("max_pending_tasks_per_job", rng.choice([50, 50, 2])),
        ("compensation_factor", rng.choice([5, 5, 2, 0, 10])),
        ("weight_ticket", rng.choice([0.01, 0.5, 1, 0, round(rng.uniform(0, 1), 3)])),
        ("weight_urgency", rng.choice([0.1, 0.5, 0, 1, round(rng.uniform(0, 1), 3)])),
        ("weight_priority", rng.choice([1, 0, 0.5, round(rng.uniform(0, 1), 3)])),
        ("weight_waiting_time", rng.choice([0, 0, 0.278, 1])),
        ("weight_deadline", rng.choice([3600000, 3600000, 0, 100000])),
    ]
    w("sconf " + " ".join("{} {}".format(*kv) for kv in knobs))

    # sometimes a few running jobs first (running jobs get tickets too)
    if rng.random() < 0.3:
        w("mgr qmod -e all.q")
        for _ in range(rng.randint(1, 2)):
            u = rng.choice(users)
            args = ["-P " + rng.choice(projects)] if projects and rng.random() < 0.5 else []
            w("sub {} {} >/dev/null".format(u, " ".join(args)))
        w("tsm")
        w("mgr qmod -d all.q")

    # pending jobs
    njobs = rng.randint(5, 30)
    w("JOBS=()")
    for _ in range(njobs):
        u = rng.choice(users)
        a = []
        if projects and rng.random() < 0.5:
            a.append("-P " + rng.choice(projects))
        if rng.random() < 0.25:
            a.append("-p -%d" % rng.choice([1, 10, 100, 500, 1023]))
        reqs = ["%s=%d" % (c, rng.randint(1, max(1, n // 2))) for c, n in cons
                if rng.random() < 0.3]
        if reqs:
            a.append("-l " + ",".join(reqs))
        if rng.random() < 0.25:
            lo = rng.randint(1, 4)
            form = rng.choice(["%d", "%d-%d", "%d-%d", "%d-"])
            rng_s = form % ((lo,) if form in ("%d", "%d-") else (lo, lo + rng.randint(1, 6)))
            a.append(f"-pe {rng.choice(pes)} {rng_s}")
        if rng.random() < 0.15:
            minutes = rng.choice([3, 10, 30, 120])
            a.append("-dl $(date -u -d '+%d min' +%%Y%%m%%d%%H%%M.%%S)" % minutes)
        if rng.random() < 0.2:
            a.append("-js %d" % rng.choice([1, 10, 50, 100]))
        if rng.random() < 0.1:
            a.append("-t 1-%d" % rng.randint(2, 5))
        w('JOBS+=($(sub {} {}))'.format(u, " ".join(a)))
    for i in range(njobs):
        r = rng.random()
        if r < 0.15:
            tickets = rng.choice([10000, 50000, 100000, 300000])
            w("mgr qalter -ot %d ${JOBS[%d]%%%%.*}" % (tickets, i))
        elif r < 0.22:
            w("mgr qalter -p %d ${JOBS[%d]%%%%.*}" % (rng.choice([1, 100, 500, 1024]), i))
    w("snap t0")
    return "\n".join(L) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--kit", default=os.path.dirname(os.path.abspath(__file__)),
                    help="directory holding lib.sh (default: this script's directory)")
    ap.add_argument("-o", "--output", help="write here instead of stdout")
    a = ap.parse_args()
    text = generate(a.seed, a.kit)
    if a.output:
        with open(a.output, "w") as f:
            f.write(text)
        os.chmod(a.output, 0o755)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
