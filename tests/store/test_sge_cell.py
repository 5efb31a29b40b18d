"""Reading Grid Engine cell dumps: recorded dumps of a real SoGE 8.1.9 cell, and every
way a dump can be wrong."""

from __future__ import annotations

import shutil
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from condorlite.core.sge.jobs import JFINISHED, JRUNNING, SlotRange
from condorlite.errors import DataError, InputMissingError
from condorlite.store.sge_cell import _lines as L
from condorlite.store.sge_cell import read_cell

HERE = Path(__file__).parent
SAMPLES = HERE / "sge_samples"
RECORDED = HERE.parent / "data" / "sge"
MIX = SAMPLES / "reader_mix"
EVERY_DUMP = sorted(p.parent for p in (RECORDED.glob("*/*/jobs.xml"))) + sorted(
    p.parent for p in MIX.glob("*/jobs.xml"))


def recorded(name: str) -> Path:
    path = RECORDED / name
    if not path.is_dir():
        pytest.skip(f"{path} not recorded")
    return path


# --- recorded dumps ---------------------------------------------------------------------


def test_urgency_dump_jobs_requests_and_pe_ranges():
    cell = read_cell(recorded("a_urgency/t0"))
    assert cell.now == 1795635028
    assert len(cell.jobs) == 17
    jobs = {j.number: j for j in cell.jobs}
    assert jobs[157].owner == "alice" and jobs[157].name == "j_alice"
    assert jobs[157].submission_time == 1795635015
    assert [(t.number, t.status) for t in jobs[157].tasks] == [(1, 0)]
    assert jobs[170].ppri == -500
    assert jobs[162].pe == "smp" and jobs[162].pe_range == (SlotRange(2, 6, 1),)
    assert jobs[158].hard_requests[0].name == "lic"
    assert jobs[158].hard_requests[0].amount == 2.0
    assert jobs[169].soft_requests[0].name == "fast"
    assert jobs[166].deadline == 1795635616
    assert jobs[157].department == "defaultdepartment" and jobs[157].project is None
    assert cell.share_tree is None and cell.share_usage == {}


def test_urgency_dump_configuration():
    cell = read_cell(recorded("a_urgency/t0"))
    conf = cell.sched_conf
    assert conf.schedule_interval == 600  # 0:10:0
    assert conf.load_adjustment_decay_time == 450  # 0:7:30
    assert conf.weight_waiting_time == 1.0 and conf.weight_urgency == 0.1
    assert conf.default_duration is None  # INFINITY
    assert conf.params == {"MONITOR": "1"}
    assert conf.usage_weight_list == {"cpu": 1.0, "mem": 0.0, "io": 0.0}
    assert conf.share_override_tickets is True and conf.policy_hierarchy == "OFS"
    assert conf.raw["flush_submit_sec"] == "0"
    lic = cell.complexes["lic"]
    assert (lic.type, lic.consumable, lic.urgency) == ("INT", "YES", 200.0)
    assert cell.complexes["vmem"].urgency == 0.000001
    assert cell.complexes["mem_free"].shortcut == "mf"
    assert cell.pes["smp"].slots == 999 and cell.pes["smp"].urgency_slots == "min"
    assert set(cell.departments) == {"defaultdepartment"}
    assert cell.usersets["deadlineusers"].entries == ("alice", "bob", "carol", "dave", "erin")


def test_functional_dump_user_shares():
    cell = read_cell(recorded("b_functional_users/t0"))
    assert {n: u.fshare for n, u in cell.users.items()} == {
        "alice": 100, "bob": 50, "carol": 25, "dave": 0}
    assert cell.sched_conf.weight_tickets_functional == 100000
    assert cell.users["alice"].default_project is None


def test_license_dump_finished_task_reservation_and_ppri():
    cell = read_cell(recorded("dispatch_license/run3"))
    jobs = {j.number: j for j in cell.jobs}
    alice = jobs[385]
    assert alice.ppri == 100 and alice.reserve is True  # qalter -p 100; qsub -R y
    (task,) = alice.tasks
    assert task.status == JFINISHED and task.finished and not task.pending
    assert task.start_time == 1795639075 and task.usage["cpu"] == 0.009353
    assert [(r.name, r.amount) for r in jobs[386].hard_requests] == [
        ("h_rt", 30.0), ("license", 5.0)]
    assert cell.warnings == ()  # it has queue_instances.xml


def test_mix_share_tree_shape_and_usage():
    cell = read_cell(MIX / "t1")
    root = cell.share_tree
    assert root is not None and (root.id, root.name, root.shares) == (0, "Root", 1)
    assert [c.name for c in root.children] == ["P1", "bob", "grp"]
    p1 = root.children[0]
    assert p1.type == 1 and p1.shares == 60
    assert [(c.id, c.name, c.shares) for c in p1.children] == [(2, "alice", 30),
                                                               (3, "default", 10)]
    assert root.children[2].children[0].name == "carol"
    alice = cell.share_usage["/P1/alice"]
    assert (alice.user, alice.project) == ("alice", "P1")
    assert alice.cpu == 136.6 and alice.ltio == 6455.20863 and alice.usage == 136.6
    assert alice.level_percent == 0.75 and alice.total_percent == 0.45
    assert alice.usage_time == 1795641620 and alice.curr_time == 1795641670
    # the qmaster expands P1's default node into one node per user
    assert "/P1/default/bob" in cell.share_usage
    assert cell.share_usage["/"].actual_share == 1.0


def test_mix_jobs_holds_arrays_and_running_usage():
    cell = read_cell(MIX / "t1")
    jobs = {j.number: j for j in cell.jobs}
    burn = jobs[60]  # -t 1-10:3, tasks 1 and 4 running, 10 held (qhold -h u 60.10)
    assert [(t.number, t.status, t.held) for t in burn.tasks] == [
        (1, JRUNNING, False), (4, JRUNNING, False), (7, 0, False), (10, 0, True)]
    assert burn.tasks[0].running and burn.tasks[0].usage["cpu"] > 0
    assert not burn.hold
    assert [t.number for t in jobs[67].tasks if t.held] == [2, 3]  # qhold 67 -t 2-3
    assert jobs[62].hold and jobs[62].pe_range == (SlotRange(2, 4, 1),) and jobs[62].reserve
    assert jobs[63].hold and jobs[63].ppri == -100 and jobs[63].jobshare == 10  # -h o
    assert jobs[63].hard_queues == ("all.q",) and jobs[63].deadline == 1795648680
    assert jobs[66].hold and len(jobs[66].tasks) == 4  # -h s on an array
    assert jobs[64].predecessors == (61,) and jobs[64].execution_time == 1795652280
    assert jobs[65].override_tickets == 500 and jobs[65].project == "P2"
    # shortcuts given to qsub (-l a=...,mf=1G) arrive as full names
    assert [(r.name, r.value, r.amount) for r in jobs[61].hard_requests] == [
        ("h_rt", "600", 600.0), ("arch", "lx-amd64", 0.0), ("mem_free", "1G", 1073741824.0)]
    assert jobs[61].soft_requests[0].name == "hostname"
    assert jobs[61].department == "dept_a" and jobs[65].department == "defaultdepartment"
    assert cell.users["erin"].delete_time == 1795728032  # made on the fly by qsub
    assert cell.users["alice"].default_project == "P1" and cell.users["dave"].oticket == 5
    assert cell.projects["P2"].oticket == 100 and cell.usersets["dept_a"].fshare == 40


def test_array_with_finished_tasks_takes_pending_from_queue_instances(tmp_path):
    # 1-6: 1 and 2 finished and gone, 3 and 4 finished and kept, 5 and 6 pending;
    # JB_ja_structure still says 1-6
    dump = _copy(RECORDED / "a_urgency/t0" if (RECORDED / "a_urgency/t0").is_dir()
                 else MIX / "t0", tmp_path)
    for name in ("jobs.xml", "queue_instances.xml"):
        shutil.copy(SAMPLES / "array_partly_done" / name, dump / name)
    (job,) = read_cell(dump).jobs
    assert [(t.number, t.status) for t in job.tasks] == [
        (3, JFINISHED), (4, JFINISHED), (5, 0), (6, 0)]
    assert [t.number for t in job.tasks if t.pending] == [5, 6]
    (dump / "queue_instances.xml").unlink()
    cell = read_cell(dump)
    assert [t.number for t in cell.jobs[0].tasks] == [1, 2, 3, 4, 5, 6]
    assert "queue_instances.xml: missing" in cell.warnings[0]


@pytest.mark.parametrize("dump", EVERY_DUMP, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_recorded_dump_reads_and_agrees_with_qstat(dump):
    """Project, department (derived: jobs.xml lacks it) and ppri agree with what qstat
    -ext printed after the run; tasks are in order; share_mon paths are absolute."""
    cell = read_cell(dump)
    jobs = {j.number: j for j in cell.jobs}
    assert len(jobs) == len(cell.jobs)
    for job in cell.jobs:
        assert [t.number for t in job.tasks] == sorted({t.number for t in job.tasks})
    assert all(path.startswith("/") for path in cell.share_usage)
    expected = dump / "expected" / "qstat.xml"
    if expected.exists():
        for row in ET.parse(expected).getroot().iter("job_list"):
            job = jobs[int(row.findtext("JB_job_number"))]
            assert job.department == row.findtext("JB_department")
            assert job.project == (row.findtext("JB_project") or None)
            assert job.ppri == int(row.findtext("JB_priority"))


def test_sample_files_long_entries_and_empty_queue(tmp_path):
    dump = _copy(MIX / "t0", tmp_path)
    shutil.copy(SAMPLES / "dept_big", dump / "usersets")
    shutil.copy(SAMPLES / "jobs_none.xml", dump / "jobs.xml")
    cell = read_cell(dump)
    assert cell.jobs == ()
    big = cell.usersets["dept_big"]  # six lines joined at their backslashes
    assert len(big.entries) == 41 and big.entries[6] == "someuser07"
    assert big.entries[-1] == "@staff" and big.oticket == 1
    shutil.copy(SAMPLES / "share_mon_notree", dump / "share_mon")
    cell = read_cell(dump)
    assert cell.share_usage == {}
    assert any("share_mon:1: no share tree usage: 'No share tree'" in w for w in cell.warnings)


# --- helpers for bad dumps --------------------------------------------------------------


def _copy(source: Path, tmp_path: Path) -> Path:
    dump = tmp_path / "cell"
    shutil.copytree(source, dump, ignore=shutil.ignore_patterns("expected"))
    return dump


@pytest.fixture
def dump(tmp_path) -> Path:
    return _copy(MIX / "t1", tmp_path)


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _fails(dump: Path, kind: type, *parts: str) -> str:
    with pytest.raises(kind) as info:
        read_cell(dump)
    message = info.value.message
    assert info.value.exit_code == (65 if kind is DataError else 66)
    for part in parts:
        assert part in message, message
    return message


# --- bad configuration files ------------------------------------------------------------


def test_bad_number_names_file_line_key_and_value(dump):
    _edit(dump / "sched_conf", "weight_user                       0.500000",
          "weight_user                       abc")
    _fails(dump, DataError, "sched_conf:16: weight_user: expected a number, found 'abc'")


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("schedule_interval                 0:10:0", "schedule_interval                 ten",
     "sched_conf:2: schedule_interval: expected a time (h:m:s, seconds or INFINITY)"),
    ("share_override_tickets            TRUE", "share_override_tickets            yes",
     "sched_conf:22: share_override_tickets: expected TRUE or FALSE, found 'yes'"),
    ("usage_weight_list                 cpu=1.000000", "usage_weight_list                 cpu",
     "sched_conf:14: usage_weight_list: expected name=number items"),
    ("policy_hierarchy                  OFS", "policy_hierarchy                  OFX",
     "sched_conf:28: policy_hierarchy: expected letters from OFS"),
    ("maxujobs                          0", "maxujobs                          -1",
     "sched_conf:3: maxujobs: expected a non-negative integer, found '-1'"),
])
def test_bad_sched_conf_values(dump, old, new, expected):
    _edit(dump / "sched_conf", old, new)
    _fails(dump, DataError, expected)


def test_duplicated_key_in_sched_conf_and_in_one_user(dump):
    path = dump / "sched_conf"
    path.write_text(path.read_text() + "maxujobs 3\n")
    _fails(dump, DataError, "sched_conf:36: maxujobs: given twice")


def test_duplicated_key_in_one_user_and_duplicated_user(dump):
    _edit(dump / "users", "fshare 50\n", "fshare 50\nfshare 60\n")
    _fails(dump, DataError, "users:9: fshare: given twice in one object")
    _edit(dump / "users", "fshare 50\nfshare 60\n", "fshare 50\n")
    _edit(dump / "users", "name bob\n", "name alice\n")
    _fails(dump, DataError, "users:6: user 'alice' given twice")


def test_unknown_keys_are_warnings(dump):
    path = dump / "sched_conf"
    path.write_text(path.read_text() + "foo                     1\n")
    _edit(dump / "users", "name bob\n", "name bob\nnew_thing 12\n")
    cell = read_cell(dump)
    assert f"{dump / 'sched_conf'}:36: unknown key 'foo' ignored" in cell.warnings
    assert f"{dump / 'users'}:7: unknown key 'new_thing' ignored" in cell.warnings
    assert cell.sched_conf.raw["foo"] == "1"


def test_object_file_must_start_with_its_name_key(dump):
    (dump / "pes").write_text("slots 4\npe_name smp\n")
    _fails(dump, DataError, "pes:1: expected 'pe_name' to start an object, found 'slots'")


def test_bad_userset_type_and_user_share(dump):
    _edit(dump / "usersets", "type    DEPT\nfshare  40", "type    TEAM\nfshare  40")
    _fails(dump, DataError, "usersets:17: type: expected ACL, DEPT or ACL,DEPT, found 'TEAM'")


def test_complexes_bad_lines(dump):
    path = dump / "complexes"
    good = path.read_text()
    path.write_text(good.replace("gpu ", "gpu extra ", 1) if "gpu " in good else
                    good + "broken b INT <= YES\n")
    _fails(dump, DataError, "complexes:", "expected 8 columns")
    path.write_text(good.replace("arch                a          STRING",
                                 "arch                a          STRONG"))
    _fails(dump, DataError, "complexes:3: arch: type: expected one of", "'STRONG'")
    path.write_text(good + "other a INT <= YES NO 0 0\n")
    _fails(dump, DataError, "shortcut 'a' of 'other' is already 'arch''s")
    path.write_text(good.replace("h_vmem     MEMORY    <=    YES         NO         0        0",
                                 "h_vmem     MEMORY    <=    YES         NO         0        tiny"))
    _fails(dump, DataError, "complexes:14: h_vmem: urgency: expected a number, found 'tiny'")


def test_now_must_be_epoch_seconds(dump):
    (dump / "now").write_text("yesterday\n")
    _fails(dump, DataError, "now:1: expected the scheduler run's time")


# --- missing files ----------------------------------------------------------------------


@pytest.mark.parametrize(("name", "command"), [
    ("sched_conf", "qconf -ssconf"), ("complexes", "qconf -sc"),
    ("jobs.xml", "qstat -xml -j '*'")])
def test_missing_required_file_names_file_and_command(dump, name, command):
    (dump / name).unlink()
    _fails(dump, InputMissingError, f"{dump / name}: missing", command)


def test_missing_optional_files_are_empty(dump):
    for name in ("users", "projects", "usersets", "pes", "share_tree", "share_mon", "now"):
        (dump / name).unlink()
    cell = read_cell(dump)
    assert cell.users == {} and cell.pes == {} and cell.share_tree is None
    assert cell.now is None
    assert all(job.department is None for job in cell.jobs)  # no usersets at all


def test_missing_directory(tmp_path):
    with pytest.raises(InputMissingError, match="no such directory"):
        read_cell(tmp_path / "nowhere")
    (tmp_path / "file").write_text("")
    with pytest.raises(InputMissingError, match="is not a directory"):
        read_cell(tmp_path / "file")


def test_share_mon_without_share_tree_is_ignored(dump):
    (dump / "share_tree").unlink()
    cell = read_cell(dump)
    assert cell.share_usage == {} and "share_mon: ignored" in cell.warnings[-1]


# --- share tree and share_mon -----------------------------------------------------------


def test_broken_tree_references(dump):
    path = dump / "share_tree"
    good = path.read_text()
    path.write_text(good.replace("childnodes=6", "childnodes=9"))
    _fails(dump, DataError, "share_tree:30: node 5 (grp): child 9 does not exist")
    path.write_text(good.replace("childnodes=6", "childnodes=6,1"))
    _fails(dump, DataError, "node 5 (grp): child 1 is reached twice")
    path.write_text(good.replace("childnodes=NONE", "childnodes=0", 1))
    _fails(dump, DataError, "node 2 (alice): child 0 is reached twice")
    path.write_text(good.replace("id=6", "id=4"))
    _fails(dump, DataError, "share_tree:31: node id 4 given twice")
    path.write_text(good.replace("childnodes=1,4,5", "childnodes=1,4"))
    _fails(dump, DataError, "share_tree:26: node 5 (grp) is not below the root")
    path.write_text(good.replace("shares=60", "shares=many"))
    _fails(dump, DataError, "share_tree:9: shares: expected an integer, found 'many'")
    path.write_text(good.replace("type=1", "type=2"))
    _fails(dump, DataError, "share_tree:8: type: expected 0 (user) or 1 (project)")


def test_deep_tree_does_not_recurse(dump):
    depth = 5000
    lines = []
    for i in range(depth):
        child = str(i + 1) if i + 1 < depth else "NONE"
        lines += [f"id={i}", f"name=n{i}", "type=0", "shares=1", f"childnodes={child}"]
    (dump / "share_tree").write_text("\n".join(lines) + "\n")
    (dump / "share_mon").unlink()
    node = read_cell(dump).share_tree
    for _ in range(depth - 1):
        node = node.children[0]
    assert node.name == f"n{depth - 1}" and node.children == ()


def test_bad_share_mon_rows(dump):
    path = dump / "share_mon"
    good = path.read_text()
    path.write_text(good.replace("cpu=136.600000", "cpu=lots", 1))
    _fails(dump, DataError, "share_mon:4: cpu: expected a number, found 'lots'")
    path.write_text(good.replace("\tusage=136.600000", "", 1))
    _fails(dump, DataError, "share_mon:3: expected the fields usage")
    path.write_text(good + good.splitlines()[3] + "\n")
    _fails(dump, DataError, "node '/P1' given twice")


def test_share_mon_header_only_values(dump):
    """``sge_share_mon -h`` without ``-n``: the header names the columns."""
    lines = (dump / "share_mon").read_text().splitlines()
    plain = ["\t".join(c.partition("=")[2] for c in line.split("\t")) for line in lines[2:]]
    (dump / "share_mon").write_text("\n".join(lines[:2] + plain) + "\n")
    assert read_cell(dump).share_usage["/P1/alice"].cpu == 136.6


# --- jobs.xml ---------------------------------------------------------------------------


def test_broken_or_truncated_jobs_xml_is_refused(dump):
    # jobs.xml is scanned, not fully parsed (_jobscan: 33 s -> 7 s on 100k jobs): the
    # structure it reads must close, and the document must end where qstat ends it.
    text = (dump / "jobs.xml").read_text()
    _edit(dump / "jobs.xml", "</JB_ja_structure>", "</JB_ja_structur>")
    _fails(dump, DataError, "jobs.xml:", "is never closed")
    (dump / "jobs.xml").write_text(text[: len(text) // 2])
    _fails(dump, DataError, "jobs.xml:", "does not end with </detailed_job_info>")


def test_bad_job_value_names_its_line(dump):
    text = (dump / "jobs.xml").read_text()
    _edit(dump / "jobs.xml", "<JB_priority>924</JB_priority>", "<JB_priority>high</JB_priority>")
    line = text.splitlines().index("      <JB_priority>924</JB_priority>") + 1
    _fails(dump, DataError, f"jobs.xml:{line}: JB_priority: expected an integer, found 'high'")


def test_bad_task_range_and_missing_owner(dump):
    _edit(dump / "queue_instances.xml", "<tasks>2,3</tasks>", "<tasks>2-x</tasks>")
    _fails(dump, DataError, "queue_instances.xml:", "tasks: expected task ids like 1-4:1")
    _edit(dump / "queue_instances.xml", "<tasks>2-x</tasks>", "<tasks>2,3</tasks>")
    _edit(dump / "jobs.xml", "<JB_owner>dave</JB_owner>", "")
    _fails(dump, DataError, "jobs.xml:", "expected a <JB_owner> element, found none")


def test_billion_laughs_is_refused_quickly(dump):
    entities = "".join(
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">\n' for i in range(1, 10))
    (dump / "jobs.xml").write_text(
        f"<?xml version='1.0'?>\n<!DOCTYPE lolz [\n<!ENTITY lol0 \"lol\">\n{entities}]>\n"
        "<detailed_job_info><djob_info>&lol9;</djob_info></detailed_job_info>\n")
    started = time.monotonic()
    _fails(dump, DataError, "jobs.xml:2: a document type declaration")
    assert time.monotonic() - started < 2


def test_text_instead_of_xml(dump):
    (dump / "jobs.xml").write_text("error: commlib error: got select error\n")
    _fails(dump, DataError, "jobs.xml:1: expected the XML of qstat -xml -j '*', "
                            "found 'error: commlib error")


def test_pending_job_missing_from_jobs_xml_is_a_warning(dump):
    _edit(dump / "queue_instances.xml", "<JB_job_number>65</JB_job_number>",
          "<JB_job_number>99</JB_job_number>")
    cell = read_cell(dump)
    assert any("job 99 is pending there but not in jobs.xml" in w for w in cell.warnings)
    assert next(j for j in cell.jobs if j.number == 65).tasks == ()


# --- converters -------------------------------------------------------------------------


def test_time_values():
    assert L.to_seconds("0:10:0") == 600 and L.to_seconds("00:05:00") == 300
    assert L.to_seconds("90") == 90 and L.to_seconds("INFINITY") is None
    assert L.to_seconds("infinity") is None
    with pytest.raises(L.Expected):
        L.to_seconds("1:2")


def test_params_and_lists():
    assert L.to_params("MONITOR=1,DURATION_OFFSET=60") == {"MONITOR": "1",
                                                            "DURATION_OFFSET": "60"}
    assert L.to_params("profile monitor=true") == {"PROFILE": "true", "MONITOR": "true"}
    assert L.to_params("none") == {}
    assert L.to_names("NONE") == () and L.to_names("a, b,c") == ("a", "b", "c")
    assert L.to_bool("1") and not L.to_bool("false")


def test_continuation_keeps_first_line_number():
    text = "name x\nentries a,b, \\\n        c,d\nfshare 1\n"
    lines = L.key_lines(text, "usersets")
    assert [(line.number, line.key, line.value) for line in lines] == [
        (1, "name", "x"), (2, "entries", "a,b,          c,d"), (4, "fshare", "1")]
    assert L.to_names(lines[1].value) == ("a", "b", "c", "d")


@pytest.mark.parametrize("dump", EVERY_DUMP, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fast_job_reader_takes_every_recorded_dump_and_agrees(dump: Path) -> None:
    """``_jobfast`` reads every recorded jobs.xml itself (none falls back to
    ``_jobscan``) and gives the very jobs ``_jobscan`` gives."""
    from condorlite.store.sge_cell import _jobfast, _jobs, _jobscan, _objects

    data = (dump / "jobs.xml").read_bytes()
    complexes = _objects.read_complexes((dump / "complexes").read_text(), "complexes")
    cell = read_cell(dump)
    instances = dump / "queue_instances.xml"
    pending = _jobs.Pending(
        _jobs.scan_pending(instances.read_bytes(), "q") if instances.exists() else None)
    strict = _jobscan.read_jobs(data, "jobs.xml", complexes, cell.usersets, pending)
    if not strict:
        return
    reader = _jobfast._Reader(complexes, _jobs.Departments(cell.usersets), pending)
    fast = [reader.job(draft) for draft in _jobfast._drafts(data)]
    assert fast == strict
    assert tuple(fast) == cell.jobs


@pytest.mark.parametrize("edit", [
    ("<JB_owner>dave</JB_owner>", "<JB_owner>dave</JB_owner><JB_owner>x</JB_owner>"),
    ("<RN_min>1</RN_min>", "<RN_min>1</RN_min><RN_min>2</RN_min>"),
    ("<JB_priority>924</JB_priority>", "<JB_priority> 924 </JB_priority>"),
    ("<JB_reserve>false</JB_reserve>", "<JB_reserve>FALSE</JB_reserve>"),
])
def test_fast_and_careful_job_readers_agree_on_odd_documents(dump, edit) -> None:
    """Whatever the fast reader does not take, the careful one reads or refuses."""
    from condorlite.store.sge_cell import _jobfast, _jobs, _jobscan, _objects

    _edit(dump / "jobs.xml", *edit)
    data = (dump / "jobs.xml").read_bytes()
    complexes = _objects.read_complexes((dump / "complexes").read_text(), "complexes")
    pending = _jobs.Pending(_jobs.scan_pending((dump / "queue_instances.xml").read_bytes(), "q"))
    usersets = {}

    def outcome(read):
        try:
            return read(data, "jobs.xml", complexes, usersets, pending)
        except DataError as exc:
            return exc.message

    assert outcome(_jobfast.read_jobs) == outcome(_jobscan.read_jobs)


def test_fast_reader_tokens_by_stretches_are_the_whole_scan(monkeypatch) -> None:
    """``_jobfast`` takes tokens a stretch at a time; with stretches of 100 bytes (a
    cut at nearly every job) they are still those of one scan of the document."""
    from condorlite.store.sge_cell import _jobfast

    monkeypatch.setattr(_jobfast, "CHUNK", 100)
    for dump in EVERY_DUMP[:30]:
        data = (dump / "jobs.xml").read_bytes()
        if len(data) <= 2 * 100:
            continue  # no jobs (c1_cycle_usage/r6-r8): one stretch is the whole scan
        stretches = list(_jobfast._stretches(data))
        assert len(stretches) > 1
        tokens = [t for a, b in stretches for t in _jobfast.TOKEN.findall(data, a, b)]
        assert tokens == _jobfast.TOKEN.findall(data)
