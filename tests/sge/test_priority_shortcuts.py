"""The ticket calculation's shortcuts against the straightforward way, on seeded random
inputs: a dependent category sorted once (``categories.build_categories``) against the
real scheduler's insertions; the override auction's lazy heap with in-place runs
(``override._auction``) against a pass over every category each round; the share-tree
finder's index of names (``treesearch.Finder``) against a plain ``search`` per
(user, project)."""

from __future__ import annotations

import random
from operator import attrgetter

import pytest

from condorlite.core.sge import override, sharetree, treesearch
from condorlite.core.sge.categories import _goes_after, build_categories
from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell, Project, SchedConf, ShareTreeNode, User
from condorlite.core.sge.refs import Entity, JobRef, OverridePart


def _entities(rng: random.Random, kind: str, n: int) -> list[Entity]:
    # negative and zero override tickets too: they count as none
    return [Entity(kind, f"{kind[0]}{i}", rng.choice([0, 0, 5, 100]),
                   rng.choice([0, 0, -3, 10, 100, 1000]), job_cnt=rng.choice([0, 0, 1, 4]))
            for i in range(n)]


def _refs(seed: int) -> list[JobRef]:
    """Pending and running refs of jobs with few distinct tickets and submission times
    (ties everywhere), several tasks a job, shared entities."""
    rng = random.Random(seed)
    users, projects, depts = (_entities(rng, "user", 4), _entities(rng, "project", 3),
                              _entities(rng, "department", 2))
    refs = []
    for number in rng.sample(range(1, 200), rng.randint(1, 60)):
        job = Job(number, "j", "u", "g", rng.choice([10, 20, 30]),
                  override_tickets=rng.choice([0, 0, 0, 7]), jobshare=rng.choice([0, 0, 3]))
        entities = (rng.choice([None, *users]), rng.choice([None, *projects]),
                    rng.choice([None, *depts]))
        for task in rng.sample(range(1, 6), rng.randint(1, 3)):
            ref = JobRef(job, task, rng.random() < 0.9, *entities)
            ref.tickets = rng.choice([0.0, 0.0, 1.5, 2.0])
            refs.append(ref)
    return refs


def _inserted(refs, job_share, entity_share):
    """The categories' members as the real scheduler orders a dependent category:
    each ref inserted after the last member it goes after."""
    out: dict[tuple, list[JobRef]] = {}
    for ref in refs:
        if not ref.queued:
            continue
        shares = [entity_share(e) if e is not None else 0 for e in ref.entities]
        own = job_share(ref)
        if not (own or any(shares)):
            continue
        key = (own, *(id(e) if s else 0 for e, s in zip(ref.entities, shares, strict=True)))
        members = out.setdefault(key, [])
        at = len(members)
        while at > 0 and not _goes_after(members[at - 1], ref):
            at -= 1
        members.insert(at, ref)
    return list(out.values())


@pytest.mark.parametrize("seed", range(200))
def test_a_dependent_category_sorted_once_is_the_insertions(seed):
    refs = _refs(seed)
    for job_share, entity_share in ((attrgetter("job.override_tickets"), attrgetter("oticket")),
                                    (attrgetter("job.jobshare"), attrgetter("fshare"))):
        categories, count = build_categories(refs, dependent=True, job_share=job_share,
                                             entity_share=entity_share)
        expected = _inserted(refs, job_share, entity_share)
        assert [c.refs for c in categories] == expected
        assert count == sum(len(m) for m in expected)


def test_the_insertion_order_is_not_arrival_order():
    """The random refs do exercise the sort: some category arrives out of order."""
    moved = 0
    for seed in range(200):
        refs = _refs(seed)
        for members in _inserted(refs, attrgetter("job.override_tickets"),
                                 attrgetter("oticket")):
            arrival = [r for r in refs if r in members]
            moved += arrival != members
    assert moved > 20


def _plain_override(refs: list[JobRef]) -> None:
    """The shared override policy done the long way: each round every category's first
    job is priced, the best (most tickets, then lower job number, then task) wins."""
    categories, count = build_categories(
        refs, dependent=True, job_share=attrgetter("job.override_tickets"),
        entity_share=attrgetter("oticket"))
    placed = []
    for _ in range(count):
        best = None
        for category in categories:
            if category.first is None:
                continue
            ref = category.first
            entities = [e for e in ref.entities if e is not None and e.oticket > 0]
            total = 0.0
            for e in entities:
                total += e.oticket / (e.job_cnt + 1)
            total += ref.job.override_tickets
            key = (-total, ref.job.number, ref.task)
            if best is None or key < best[0]:
                best = (key, category, entities, total)
        _, category, entities, total = best
        ref = category.first
        parts = [OverridePart(e.kind, e.name, e.oticket / (e.job_cnt + 1)) for e in entities]
        if ref.job.override_tickets:
            parts.append(OverridePart("job", str(ref.job.number),
                                      float(ref.job.override_tickets)))
        ref.override_parts, ref.oticket = tuple(parts), total
        ref.tickets += total
        ref.count(queued=False)
        placed.append(ref)
        category.pos += 1
    for ref in placed:
        ref.count(queued=False, step=-1)


def _figures(refs):
    entities = {id(e): e for r in refs for e in r.entities if e is not None}
    return ([(r.oticket, r.override_parts, r.tickets) for r in refs],
            sorted((e.kind, e.name, e.job_cnt, e.pending_cnt) for e in entities.values()))


@pytest.mark.parametrize("seed", range(300))
def test_the_override_auction_picks_as_a_full_pass_does(seed):
    ours, plain = _refs(seed), _refs(seed)
    override.pending_override(ours, shared=True, dependent=True)
    _plain_override(plain)
    assert _figures(ours) == _figures(plain)


def test_a_wrong_tie_break_would_be_seen():
    """The comparison above can fail: a full pass preferring the higher job number on
    equal tickets gives other figures on some seed."""

    def wrong(refs):
        _plain_override(refs)
        return _figures(refs)

    differs = 0
    for seed in range(300):
        ours = _refs(seed)
        override.pending_override(ours, shared=True, dependent=True)
        flipped = _refs(seed)
        for ref in flipped:
            ref.job = Job(-ref.job.number, "j", "u", "g", ref.job.submission_time,
                          override_tickets=ref.job.override_tickets)
        differs += [f[0] for f in _figures(ours)[0]] != [f[0] for f in wrong(flipped)[0]]
    assert differs > 0


def _tree(rng: random.Random, depth: int, names: list[str], projects: list[str]):
    children = []
    if depth < 3:
        for _ in range(rng.randint(0, 3)):
            children.append(_tree(rng, depth + 1, names, projects))
    pool = names + projects + ["default", "default"]
    return ShareTreeNode(0, rng.choice(pool), 0, rng.randint(1, 9), tuple(children))


def _path(node):
    return None if node is None else node.path


@pytest.mark.parametrize("seed", range(300))
def test_the_finders_index_gives_what_search_gives(seed):
    rng = random.Random(seed)
    # u3..u5 and p2 (a user named like a project) have no user node: copies of default
    users = [*(f"u{i}" for i in range(6)), "p2"]
    projects = [f"p{i}" for i in range(3)]
    tree = ShareTreeNode(0, "Root", 0, 1, tuple(
        _tree(rng, 1, users[:3], projects) for _ in range(rng.randint(1, 4))))
    cell = Cell(SchedConf(raw={}), {}, {u: User(u) for u in users},
                {p: Project(p) for p in projects}, {}, {}, ())
    ours, plain = sharetree.build(tree, cell), sharetree.build(tree, cell)
    finder, reference = treesearch.Finder(ours), _PlainFinder(plain)
    for _ in range(40):
        user = rng.choice([None, *users, "default"])
        project = rng.choice([None, None, *projects, "nowhere"])
        entity = Entity("user", user, 0, 0) if user is not None else None
        p_entity = Entity("project", project, 0, 0) if project is not None else None
        job = Job(1, "j", user or "x", "g", 0)
        a = JobRef(job, 1, True, entity, p_entity, None)
        b = JobRef(job, 1, True, entity, p_entity, None)
        treesearch.attach(finder, a)
        treesearch.attach(reference, b)
        assert _path(a.node) == _path(b.node)
        assert [n.path for n in ours.walk()] == [n.path for n in plain.walk()]


class _PlainFinder(treesearch.Finder):
    """The finder without its shortcut: ``search`` for every new (user, project)."""

    def find(self, user, project):
        key = (user, project)
        if key not in self.found:
            self.found[key] = treesearch.search(self.root, user, project)
        return self.found[key]
