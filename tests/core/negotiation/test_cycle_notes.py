"""The cycle's raw notes logged as written and replayed when first read
(``cycle_notes.NoteLog``): each job's note is the last written, the jobs in the order
first written, a run of rows passed over logged as one entry."""

from __future__ import annotations

from condorlite.core.model import Submitter
from condorlite.core.negotiation.cycle_notes import CycleNotes, NoteLog
from condorlite.core.negotiation.negotiator import Cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot, user
from tests.core.reference.cycle import run_reference_cycle

NOW = 1_700_000_000
POLICY = Policy(uid_domain=UID)


def test_the_table_is_the_log_replayed_in_order():
    """A run noted over a job already noted keeps the job's first place and takes the
    last note; a note after a run overwrites its row's; a span outside the run's rows
    is not noted."""
    ids = ["1.0", "1.1", "1.2", "1.3"]
    log = NoteLog()
    log.note("1.1", "rejected: no match found")
    log.note("9.0", "rejected: submitter limit exceeded")
    log.skipped(ids, 0, 3, 7)  # (1.0, 1.1, 1.2)
    log.note("1.2", "rejected: no match found")
    assert list(log.table().items()) == [
        ("1.1", 7), ("9.0", "rejected: submitter limit exceeded"), ("1.0", 7),
        ("1.2", "rejected: no match found")]
    notes = CycleNotes(log, [])
    assert notes["1.0"] == "skipped: autocluster 7 was rejected earlier"
    assert "1.3" not in notes
    assert len(notes) == 4


def test_skipped_runs_over_several_spins_read_as_the_reference_notes():
    """Two submitters whose big jobs are rejected and small ones limited, over several
    spins: every note, and the notes' order but for matched jobs, are what writing each
    row's note at once gives (the reference cycle's notes, read through the view)."""
    big = {"RequestMemory": 3072}
    jobs = []
    for owner in ("a", "b"):
        base = 1 if owner == "a" else 20
        for c in range(base, base + 6):
            extra = big if c % 2 else {}
            jobs += [job(c, p, owner, **extra) for p in range(4)]
    slots = [slot(f"s{i}@m", Memory=4096) for i in range(2)] + [
        slot(f"t{i}@m", Memory=1024) for i in range(9)]
    people = {user("a"): Submitter(user("a"), 1, 0), user("b"): Submitter(user("b"), 2, 0)}
    cycle = Cycle(slots, jobs, people, [], POLICY, NOW)
    cycle.run()
    result = cycle.result()
    expected = run_reference_cycle(slots, jobs, people, POLICY, NOW)
    assert any(note.startswith("skipped") for note in expected.notes.values())
    assert dict(result.notes.items()) == expected.notes
    assert len(result.notes) == len(expected.notes)
    assert len(cycle.notes.log) < sum(
        1 for note in expected.notes.values() if not note.startswith("matched"))
