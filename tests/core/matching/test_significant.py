"""significant.build_closed's sweep: chunk boundaries, names that join S after rows
binding them were read, names only some rows of a chunk bind, and entries that are
equal without being the same object all give the widening loop's grouping.

Every test runs with the column passes (``columns``) in C (``columns.COMPILED``,
through ``oldscan.changes``) and in Python, except those that spy on the Python
passes."""

from __future__ import annotations

import operator
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.ad_decoder import job_from_ad
from condorlite.core.classad import oldscan, parse_ad
from condorlite.core.classad.ast import Literal
from condorlite.core.matching import columns, significant
from condorlite.core.matching.significant import build_closed
from condorlite.core.model import IDLE
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts, job, slot
from tests.core.matching.test_autocluster import (
    BINDINGS,
    GENPOOL_POLICIES,
    POLICY,
    _every,
    _exprs,
    _genpool,
    _text,
    _widening,
)
from tests.core.matching.test_autocluster import genpool as gen


@pytest.fixture(autouse=True, params=[False, True], ids=["python", "compiled"])
def compiled(request, monkeypatch) -> bool:
    """``columns.COMPILED`` and ``columns.GATHER_COMPILED`` off and on (on only where
    ``_oldscan`` is built)."""
    if request.param and (oldscan.changes is None or oldscan.gather is None):
        pytest.skip("the compiled module is not built")
    monkeypatch.setattr(columns, "COMPILED", request.param)
    monkeypatch.setattr(columns, "GATHER_COMPILED", request.param)
    return request.param


def _closed(slots, idle, exprs, configured, chunk: int):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(significant, "CHUNK", chunk)
        return build_closed(slots, idle, exprs, configured)


@pytest.mark.parametrize("name", sorted(GENPOOL_POLICIES))
@pytest.mark.parametrize("chunk", [1, 7, 64])
def test_every_chunk_size_gives_the_loops_grouping(tmp_path, name, chunk) -> None:
    policy = replace(POLICY, **GENPOOL_POLICIES[name])
    spec = gen.PoolSpec(slots=40, jobs=300, submitters=5, autoclusters=20, seed=11,
                        claimed_fraction=0.3)
    slots, idle = _genpool(tmp_path, spec, policy, shared=chunk != 7)
    configured = policy.significant_attributes
    ac = _closed(slots, idle, _exprs(policy), configured, chunk)
    assert _every(ac) == _every(_widening(slots, idle, _exprs(policy), configured, None))
    assert len(ac.match_class_of) == len(idle) and len(ac.representative) > 5


def test_a_name_that_joins_late_is_read_over_the_rows_before() -> None:
    """Rows 0 and 1 bind Foo differently but nothing they bind reads it; row 2's
    Requirements does, so Foo joins S in row 2's chunk and rows 0-1 are read again:
    they are two classes. Factor is reached only through a slot's Scale."""
    slots = [slot("slot1@m", Scale="TARGET.Factor * 2")]
    idle = [job(1, 0, "alice", index=0, Foo=1, Factor=3),
            job(1, 1, "alice", index=1, Foo=2, Factor=3),
            job(2, 0, "alice", index=2, Foo=1, Factor=4, Requirements="Foo > Scale")]
    exprs = _exprs(POLICY)
    for chunk in (1, 2, 3):
        ac = _closed(slots, idle, exprs, None, chunk)
        assert {"foo", "scale", "factor"} <= ac.significant
        assert ac.match_class_of == {"1.0": 1, "1.1": 2, "2.0": 3}
        assert _every(ac) == _every(_widening(slots, idle, exprs, None, None))


def test_a_name_some_rows_of_a_chunk_lack_splits_them_and_merges_equal_rows() -> None:
    """RequestGpus is bound by rows 1 and 3 only (the reader cannot take every name
    of the chunk at once); rows 0 and 2 are one class, rows 1 and 3 another."""
    slots = [slot("slot1@m", Start="TARGET.RequestGpus =?= undefined")]
    idle = [job(1, p, "alice", index=p, **({"RequestGpus": 1} if p % 2 else {}))
            for p in range(4)]
    exprs = _exprs(POLICY)
    for chunk in (1, 2, 4):
        ac = _closed(slots, idle, exprs, None, chunk)
        assert ac.match_class_of == {"1.0": 1, "1.1": 2, "1.2": 1, "1.3": 2}
        assert [j.id for j in ac.representative.values()] == ["1.0", "1.1"]
        assert _every(ac) == _every(_widening(slots, idle, exprs, None, None))


def test_equal_entries_that_are_not_the_same_object_are_one_class() -> None:
    """Lines spelled apart (spaces) parse to equal trees held in different objects:
    equal bindings still make one class, and the first job in queue order (not in
    input order) represents it."""
    text = ('ClusterId = {c}\nProcId = 0\nOwner = "alice"\nJobStatus = 1\nJobPrio = {p}\n'
            'QDate = 5\nRequestCpus ={s}1\nRequirements = TARGET.Cpus >={s}RequestCpus\n')
    idle = [job_from_ad(parse_ad(text.format(c=c, p=p, s=" " * (1 + c))), POLICY, i)
            for i, (c, p) in enumerate([(3, 0), (1, 0), (2, 7)])]
    assert idle[0].ad["Requirements"] is not idle[1].ad["Requirements"]
    slots = [slot("slot1@m")]
    ac = _closed(slots, idle, _exprs(POLICY), None, 2)
    assert set(ac.match_class_of.values()) == {1}
    assert ac.representative[1].id == "2.0"  # JobPrio 7 goes first
    assert _every(ac) == _every(_widening(slots, idle, _exprs(POLICY), None, None))


def test_ties_in_queue_order_keep_input_order() -> None:
    """Two jobs with the same queue key (same ids and indexes given twice): the one
    read first is the class's first, as ``build``'s stable sort has it."""
    a = job(1, 0, "alice", index=0, Foo=1, Requirements="Foo > 0")
    b = replace(job(1, 0, "alice", index=0, Foo=2, Requirements="Foo > 0"), id="1.0b")
    c = replace(a, id="1.0c")
    slots = [slot("slot1@m")]
    for order in ([a, b, c], [b, a, c], [c, b, a]):
        for chunk in (1, 3):
            ac = _closed(slots, order, _exprs(POLICY), None, chunk)
            assert _every(ac) == _every(_widening(slots, order, _exprs(POLICY), None, None))
            assert ac.representative[1] is order[0]


@settings(max_examples=40, deadline=None)
@given(slot_kinds=st.lists(BINDINGS, min_size=1, max_size=3),
       job_kinds=st.lists(BINDINGS, min_size=1, max_size=4),
       picks=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 3)), min_size=1, max_size=12),
       shared=st.booleans(), chunk=st.integers(1, 4), configured=st.booleans())
def test_small_chunks_agree_with_the_loop_on_random_webs(slot_kinds, job_kinds, picks, shared,
                                                         chunk, configured) -> None:
    """Bindings of a small web of names that lead from jobs into slots and back, read
    a few rows at a time, so names join S in every chunk and are read late."""
    policy = Policy(uid_domain=POLICY.uid_domain,
                    significant_attributes=("A", "Owner") if configured else None,
                    preemption_requirements="SubmitterUserPrio > Extra")
    slot_texts, job_texts = [], []
    for i, (s_kind, j_kind) in enumerate(picks):
        s_attrs = {"Name": f'"slot{i}@m"', "Machine": '"m"', "State": '"Unclaimed"',
                   "Activity": '"Idle"', "Cpus": "1", "Memory": "2048",
                   "Requirements": "Start", "Start": "true"}
        s_attrs.update(slot_kinds[s_kind % len(slot_kinds)])
        slot_texts.append(_text(s_attrs))
        j_attrs = {"ClusterId": str(i // 2), "ProcId": str(i % 2), "Owner": f'"u{i % 3}"',
                   "JobStatus": "1", "QDate": str(i % 3), "Requirements": "true"}
        j_attrs.update(job_kinds[j_kind % len(job_kinds)])
        job_texts.append(_text(j_attrs))
    slots, idle = decoded_texts(slot_texts, job_texts, policy, shared)
    exprs = _exprs(policy)
    conf = policy.significant_attributes
    assert _every(_closed(slots, idle, exprs, conf, chunk)) == _every(
        _widening(slots, idle, exprs, conf, rounds=None))


def _columns_read(monkeypatch) -> list[list[str]]:
    """The names of each ``columns.columns`` call from now on, in order (the
    Python passes: ``COMPILED`` is turned off)."""
    monkeypatch.setattr(columns, "COMPILED", False)
    read: list[list[str]] = []
    plain = columns.columns

    def spy(tables, names):
        read.append(list(names))
        return plain(tables, names)

    monkeypatch.setattr(columns, "columns", spy)
    return read


def test_the_slots_side_reads_only_names_some_slot_binds(monkeypatch):
    """``_Distinct.reached``: what the slots' bindings of the asked names refer to,
    a name bound by one slot of many included; a name no slot binds gives nothing
    and is never read as a column; a name asked again is not read again."""
    ads = [parse_ad(f"SlotID = {i}\nScale = {i % 3}\nStart = true") for i in range(40)]
    ads[17] = parse_ad("SlotID = 17\nScale = Base * 2\nStart = KeyboardIdle > 5")
    tables = [ad._attrs for ad in ads]
    distinct = significant._Distinct(tables)
    read = _columns_read(monkeypatch)
    assert distinct.reached({"scale", "start", "nobody"}) == {"base", "keyboardidle"}
    assert distinct.reached({"scale", "slotid"}) == set()
    assert read == [["scale", "start"], ["slotid"]]


def test_the_slots_side_reads_names_as_the_tables_own_objects(monkeypatch):
    """``_Distinct`` looks names up by the first slot table's own key objects (an
    identity hit) and by the name itself when the first slot does not bind it: a name
    asked as an equal string of another object, or bound by later slots only, reads
    the same entries."""
    ads = [parse_ad("SlotID = 1\nScale = Base * 2\nStart = true"),
           parse_ad("SlotID = 2\nScale = 3\nStart = true\nExtra = Deep + 1")]
    tables = [ad._attrs for ad in ads]
    first_key = next(key for key in tables[0] if key == "scale")
    asked = "".join(["sca", "le"])  # equal to "scale", another object
    assert asked == first_key and asked is not first_key
    distinct = significant._Distinct(tables)
    read = _columns_read(monkeypatch)
    assert distinct.reached({asked, "extra"}) == {"base", "deep"}
    assert read == [["extra", "scale"]]
    assert read[0][1] is first_key
    assert distinct.reached({"".join(["ex", "tra"])}) == set()  # asked before: not read


def test_the_sweep_cuts_by_the_tables_own_key_objects() -> None:
    """The names a chunk is cut by, and the names the classes are keyed on, are the
    job tables' own key objects (taken from the chunk's union), whatever objects the
    expressions that made them significant hold; the grouping is the loop's."""
    padding = {f"Pad{i}": i for i in range(40)}  # (more names than S: see ``_chunk``)
    idle = [job(1, p, "alice", index=p, Foo=p % 2, Requirements="Foo > 0", **padding)
            for p in range(5)]
    slots = [slot("slot1@m")]
    exprs = _exprs(POLICY)
    cut_by: list[list[str]] = []
    cuts = columns.cuts

    def spy(tables, names, marks=None):
        cut_by.append(list(names))
        return cuts(tables, names, marks)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "cuts", spy)
        ac = _closed(slots, idle, exprs, None, 2)
        sweep = significant._Sweep(idle, significant._Distinct([]), significant._roots(exprs))
    own = {key: key for job_ in idle for key in job_.ad._attrs}
    assert cut_by and all(own[name] is name for names in cut_by for name in names)
    assert "foo" in sweep.names and all(own[name] is name for name in sweep.names)
    assert ac.match_class_of == {"1.0": 1, "1.1": 2, "1.2": 1, "1.3": 2, "1.4": 1}
    assert _every(ac) == _every(_widening(slots, idle, exprs, None, None))


@pytest.mark.skipif(not oldscan.enabled(), reason="the marks are the compiled reader's")
@pytest.mark.parametrize("chunk", [7, 1024])
def test_the_readers_marks_stand_for_their_runs(tmp_path, chunk) -> None:
    """A chunk's names come from one table per reader mark (``ClassAd.layout``: a run
    of a cluster's jobs with the very same names), and its cuts read a run's later rows
    only where its mark holds a name read (``columns.job_runs``, ``columns.run_cuts``):
    the grouping is the one made from every table, and the loop's."""
    spec = gen.PoolSpec(slots=40, jobs=400, submitters=5, autoclusters=20, seed=12,
                        claimed_fraction=0.3, realistic=True)
    slots, idle = _genpool(tmp_path, spec, POLICY, shared=True)
    marks = [j.ad.layout for j in idle]
    assert sum(mark is not None for mark in marks) > len(idle) // 2
    assert len({id(mark) for mark in marks}) < len(idle) // 4  # (runs, not one per job)
    exprs, walked = _exprs(POLICY), []
    one = columns.job_runs

    def spy(jobs):
        out = one(jobs)
        walked.append(len(out.tables))
        assert len(out.ids) == len(jobs)
        return out

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "job_runs", spy)
        marked = _closed(slots, idle, exprs, None, chunk)
    assert sum(walked) < len(idle) // 2
    for j in idle:
        j.ad.layout = None
    plain = _closed(slots, idle, exprs, None, chunk)
    assert _every(marked) == _every(plain) == _every(
        _widening(slots, idle, exprs, None, None))


def test_unmarked_ads_each_stand_for_themselves() -> None:
    """``columns.job_runs``: a row starts a run where its mark is not the row before's;
    ads without a reader mark are their own marks (``adeval.tables_and_marks``), so
    two unmarked ads in a row both count, whatever names they bind."""
    jobs = [job(1, p, "alice", index=p, **{name: p}) for p, name in enumerate("ABCD")]
    mark = {"d"}
    jobs[0].ad.layout = jobs[1].ad.layout = None  # (an ad changed since it was read)
    jobs[2].ad.layout = jobs[3].ad.layout = mark  # (as the reader marks a run)
    runs = columns.job_runs(jobs)
    assert runs.starts == [0, 1, 2]
    assert runs.marks[:2] == [jobs[0].ad, jobs[1].ad] and runs.marks[2] is mark
    assert [sorted(table)[0] for table in runs.tables] == ["a", "b", "c"]
    assert runs.ids == [j.id for j in jobs]


def test_run_cuts_read_a_runs_later_rows_where_its_mark_holds_a_name() -> None:
    """``columns.run_cuts``: a run whose mark holds no name read is read as its first
    row; one whose mark holds one is read row by row, so its rows that differ in it
    are cuts (the rows of ``jobs``, not of the runs): the cuts of every row's table."""
    jobs = [job(1, p, "alice", index=p, Foo=p // 2, Bar=1) for p in range(6)]
    bar = jobs[1].ad._attrs["bar"]
    mark = {"foo", "procid", "globaljobid"}
    for j in jobs[1:]:
        j.ad.layout = mark  # (rows 1-5: one run whose lines differ in Foo alone)
        j.ad._attrs["bar"] = bar
    jobs[0].ad.layout = None
    runs = columns.job_runs(jobs)
    assert runs.starts == [0, 1]
    for end in (6, 3):
        for names in (["foo"], ["bar"], ["bar", "foo"]):
            every = columns.cuts([j.ad._attrs for j in jobs[:end]], names)
            found = columns.run_cuts(jobs, runs, end, names)
            assert found[0] == every[0]
            assert list(map(id, found[1])) == list(map(id, every[1]))
        assert {2, 4} & set(range(end)) <= columns.run_cuts(jobs, runs, end, ["foo"])[0]
    read: list[int] = []
    cuts = columns.cuts

    def spy(tables, names, marks=None):
        read.append(len(tables))
        return cuts(tables, names, marks)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "cuts", spy)
        assert columns.run_cuts(jobs[1:], columns.job_runs(jobs[1:]), 5, ["bar"])[0] == set()
        columns.run_cuts(jobs, runs, 6, ["foo"])
    assert read == [1, 6]  # (the run read as its first row, then row by row)


@pytest.mark.parametrize("names", [[], ["a"], ["a", "b", "gone"]])
def test_the_compiled_cuts_are_the_identity_changes(names) -> None:
    """``oldscan.changes``: the rows whose entries for the names are not the very
    objects of the row before (an absent name is a value of its own), and the entries
    at row 0 and at each change; ``columns.cuts`` in C keeps one of each distinct
    object."""
    if oldscan.changes is None:
        pytest.skip("the compiled module is not built")
    one, two = ("A", Literal(1)), ("A", Literal(1))  # equal, not the same object
    other = ("B", Literal(2))
    tables = [{"a": one, "b": other}, {"a": one, "b": other}, {"a": two, "b": other},
              {"b": other}, {"b": other}, {"a": one}]
    cuts, values = oldscan.changes(tables, names)
    expected_cuts = [row for row in range(1, len(tables))
                     if any(tables[row].get(n) is not tables[row - 1].get(n) for n in names)]
    expected_values = [tables[0].get(n) for n in names] + [
        tables[row].get(n) for row in expected_cuts for n in names
        if tables[row].get(n) is not tables[row - 1].get(n)]
    assert cuts == expected_cuts
    assert len(values) == len(expected_values)
    assert all(map(operator.is_, values, expected_values))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "COMPILED", True)
        compiled_cuts, entries = columns.cuts(tables, names)
    assert compiled_cuts == set(expected_cuts)
    assert {id(e) for e in entries} == {id(e) for e in expected_values}
    assert len(entries) == len({id(e) for e in entries})
    with pytest.raises(TypeError):
        oldscan.changes([{"a": one}, ["not", "a", "dict"]], ["a"])
    with pytest.raises(TypeError):
        oldscan.changes([{"a": one}], [1])


def test_the_slots_distinct_expressions_are_the_distinct_entries_less_literals(compiled) -> None:
    """``columns.distinct_expressions`` (the slots' side): of each name's column, the
    entries that bind no literal, each object once, none absent; ``names_in`` of them
    is ``names_in`` of every entry (a literal refers to no name), in C and in Python."""
    shared = ("Start", parse_ad("Start = KeyboardIdle > 900 && Owner == \"x\"")._attrs["start"][1])
    alike = ("Start", parse_ad("Start = KeyboardIdle > 900 && Owner == \"x\"")._attrs["start"][1])
    rank = ("Rank", parse_ad("Rank = Mips")._attrs["rank"][1])
    tables = [{"start": shared, "kflops": ("KFlops", Literal(n)), "rank": rank}
              for n in range(6)]
    tables[2]["start"] = alike  # (equal, not the same object: told apart by identity)
    tables[3]["start"] = ("Start", Literal(True))
    del tables[4]["rank"]
    names = ["gone", "kflops", "rank", "start"]
    found = columns.distinct_expressions(tables, names, None)
    assert sorted(map(id, found)) == sorted(map(id, [shared, alike, rank]))
    every = [table.get(name) for table in tables for name in names]
    assert columns.names_in(found) == columns.names_in(every) == {"keyboardidle", "owner", "mips"}
    assert columns.distinct_expressions(tables, ["kflops", "gone"], None) == []


def test_the_compiled_cuts_skip_a_runs_rows_when_no_name_is_in_its_mark() -> None:
    """``oldscan.changes`` with run marks: the rows after a run's first whose mark (a
    set, the names its lines differ in) holds none of the names are not read (their
    entries are the first row's, the reader's invariant); a name in the mark, or a
    mark that is no set (an unmarked ad's own), reads every row. Where the invariant
    holds the answer is the one without marks."""
    if oldscan.changes is None:
        pytest.skip("the compiled module is not built")
    same, one, two = ("B", Literal(0)), ("A", Literal(1)), ("A", Literal(2))
    run, other = {"a"}, object()
    tables = [{"a": one, "b": same}, {"a": two, "b": same}, {"a": one, "b": same},
              {"a": one, "b": ("B", Literal(9))}, {"a": two, "b": same}]
    marks = [run, run, run, other, other]
    for names in (["a"], ["b"], ["a", "b"]):
        assert oldscan.changes(tables, names, marks) == oldscan.changes(tables, names)
    # (a run that broke the invariant shows which rows were read: none after row 0)
    broken = [dict(table) for table in tables[:3]]
    broken[1]["b"] = ("B", Literal(5))
    assert oldscan.changes(broken, ["b"], [run] * 3) == ([], [same])
    assert oldscan.changes(broken, ["a", "b"], [run] * 3)[0] == [1, 2]
    assert oldscan.changes(broken, ["b"], [other] * 3)[0] == [1, 2]
    with pytest.raises(TypeError):
        oldscan.changes(tables, ["a"], marks[:2])  # (one mark a row)


def test_the_compiled_expressions_read_a_runs_rows_for_the_names_in_its_mark() -> None:
    """``_oldscan.expressions`` (the slots' side in C): the distinct non-literal
    entries of the names' columns, in first-seen order, as ``changes``' values less
    the absent and the literals; with run marks, a run's rows after its first are read
    only for the names in its mark (the others hold the row before's entries, the
    reader's invariant), and a mark that is no set reads every name."""
    expressions = getattr(columns, "_compiled_expressions", None)
    if expressions is None or oldscan.changes is None:
        pytest.skip("the compiled module is not built")
    start = ("Start", parse_ad("Start = KeyboardIdle > 9")._attrs["start"][1])
    rank = ("Rank", parse_ad("Rank = Mips")._attrs["rank"][1])
    other = ("Rank", parse_ad("Rank = KFlops")._attrs["rank"][1])
    own = [("KFlops", Literal(n)) for n in range(5)]
    tables = [{"kflops": own[0], "start": start, "rank": rank},
              {"kflops": own[1], "start": start, "rank": other},
              {"kflops": own[2], "start": start},
              {"kflops": own[3], "start": ("Start", Literal(True)), "rank": rank},
              {"kflops": own[4], "start": start, "rank": other}]
    names = ["gone", "kflops", "rank", "start"]

    def expected(rows, keys=names):
        values = oldscan.changes(rows, keys)[1]
        kept = [v for v in values if v is not None and type(v[1]) is not Literal]
        return list({id(v): v for v in kept}.values())

    found = expressions(tables, names, None, Literal)
    assert found == expected(tables) == [rank, start, other]
    assert all(a is b for a, b in zip(found, [rank, start, other], strict=True))
    run, unmarked = {"kflops", "rank"}, object()
    assert expressions(tables, names, [run] * 5, Literal) == found
    assert expressions(tables, names, [unmarked] * 5, Literal) == found
    # (a run that broke the invariant shows what was read: ``start`` at row 0 alone)
    broken = [dict(table) for table in tables]
    broken[1]["start"] = ("Start", parse_ad("Start = Owner == 1")._attrs["start"][1])
    assert expressions(broken, ["start"], [run] * 5, Literal) == [start]
    assert expressions(broken, ["start"], [unmarked] * 5, Literal) == expected(broken, ["start"])
    assert len(expected(broken, ["start"])) == 2
    assert expressions(tables, ["kflops"], None, Literal) == []
    with pytest.raises(TypeError):
        expressions(tables, names, [run] * 2, Literal)  # (one mark a row)
    with pytest.raises(TypeError):
        expressions([{"a": start}, ["not", "a", "dict"]], ["a"], None, Literal)
    with pytest.raises(TypeError):
        expressions(tables, [1], None, Literal)


def _rows_in_python(jobs):
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(columns, "GATHER_COMPILED", False)
        return columns.gather(jobs)


def test_gather_reads_each_jobs_table_mark_and_id() -> None:
    """``columns.gather``: each job's ad's very table, its run mark (the reader mark
    when true, else the ad itself: an empty mark is no mark) and its id, the same in C
    and in Python; None when some ad is not ClassAd-lite; rows of another type are
    read in Python."""
    jobs = [job(1, proc, "alice") for proc in range(5)]
    mark, empty = {"procid"}, set()
    jobs[1].ad.layout = jobs[2].ad.layout = mark
    jobs[3].ad.layout = empty
    rows = columns.gather(jobs)
    assert rows == _rows_in_python(jobs)
    assert all(t is j.ad._attrs for t, j in zip(rows.tables, jobs, strict=True))
    assert rows.marks[1] is rows.marks[2] is mark
    assert [rows.marks[i] is jobs[i].ad for i in (0, 3, 4)] == [True] * 3
    assert rows.ids == [j.id for j in jobs] == ["1.0", "1.1", "1.2", "1.3", "1.4"]
    assert columns.gather([]) == _rows_in_python([]) == columns.Rows([], [], [])
    # (an ad of another mapping type: no tables; the sweep reads them its own way)
    odd = replace(jobs[4], ad=dict(jobs[4].ad.items()))
    assert columns.gather([*jobs, odd]) is None is _rows_in_python([*jobs, odd])

    class Row:  # (a row that is no Job: read in Python, not refused)
        def __init__(self, source):
            self.ad, self.id = source.ad, source.id

    other = [Row(j) for j in jobs]
    assert columns.gather(other) == rows


def test_the_compiled_gather_refuses_what_it_cannot_read() -> None:
    """``oldscan.gather`` checks its arguments: a list of rows, two member descriptors
    each; a row that is not of the rows' type gives None, not a wrong read."""
    if oldscan.gather is None:
        pytest.skip("the compiled module is not built")
    jobs = [job(1, 0, "alice")]
    members, ad_type, ad_members = columns._JOB_MEMBERS, type(jobs[0].ad), columns._AD_MEMBERS
    assert oldscan.gather(jobs, members, ad_type, ad_members)[2] == ["1.0"]
    assert oldscan.gather([*jobs, object()], members, ad_type, ad_members) is None
    with pytest.raises(TypeError):
        oldscan.gather(tuple(jobs), members, ad_type, ad_members)
    with pytest.raises(TypeError):
        oldscan.gather(jobs, ("ad", "id"), ad_type, ad_members)
    with pytest.raises(TypeError):
        oldscan.gather(jobs, members, ad_type, ad_members[:1])


def test_idle_jobs_are_the_jobs_whose_status_is_idle() -> None:
    """``columns.idle_jobs``: the jobs whose status == IDLE, in order, the very Job
    objects, the same in C (``_oldscan.select``) and in Python; a status equal to IDLE
    without being the same object is idle too, and rows of another type are read in
    Python (the C pass gives None for them)."""
    jobs = [replace(job(1, proc, "alice"), status=status)
            for proc, status in enumerate([IDLE, 2, IDLE, 5, IDLE, 1.0, True, 0])]
    expected = [j for j in jobs if j.status == IDLE]
    assert [j.proc for j in expected] == [0, 2, 4, 5, 6]
    found = columns.idle_jobs(jobs)
    assert found == expected and all(a is b for a, b in zip(found, expected, strict=True))
    assert columns.idle_jobs([]) == []
    select = getattr(columns, "_compiled_select", None)
    if select is None or not columns.GATHER_COMPILED:
        return
    big = 10 ** 20  # (equal ints that are not one object)
    later = [replace(j, status=int(str(big))) for j in jobs[:3]]
    assert select(later, columns._JOB_STATUS, big) == later

    class Other:  # (a row that is no Job: read in Python, not refused)
        status = IDLE

    other = Other()
    assert select([*jobs, other], columns._JOB_STATUS, IDLE) is None
    assert columns.idle_jobs([*jobs, other]) == [*expected, other]
    with pytest.raises(TypeError):
        select(tuple(jobs), columns._JOB_STATUS, IDLE)
    with pytest.raises(TypeError):
        select(jobs, "status", IDLE)
