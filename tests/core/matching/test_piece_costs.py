"""``piece_costs.PieceCosts``: a piece's weight key and weight reads, worked out once
per (weight walk, vector names, entries the key reads) and shared by the slots of one
machine type, must be what ``Matchmaker.weight_key`` and ``pieces.weight_reads`` make
of each slot on its own; slots whose weight binds a name otherwise get keys of their
own and pieces of other weights."""

from __future__ import annotations

from condorlite.core.ad_decoder import job_from_ad, slot_from_ad
from condorlite.core.matching import pieces
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
from tests.core.matching._against_reference import NOW, ad_text, pslot_text
from tests.core.negotiation.test_equivalence import _fingerprint
from tests.core.reference import run_reference_cycle

POLICY = Policy(uid_domain="example.org")


def _pslot(i: int, factor: int, cpus: int) -> str:
    return pslot_text(f"node{i}", cpus, 16384, 100000, SlotType='"Partitionable"',
                      KFlops=1_000_000 + 7919 * i, Factor=factor, SlotWeight="Cpus * Factor")


def _job(cluster: int, proc: int, owner: str) -> str:
    return ad_text(dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', User=f'"{owner}@example.org"',
        JobStatus=1, JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 2,
        RequestMemory=1024, RequestDisk=1000,
        Requirements='(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)'))


def _read(tmp_path, name: str, texts: list[str]) -> list:
    """The ads of ``texts`` as the command reads them (``read_ads``: ads holding the
    same line share its table entry)."""
    path = tmp_path / name
    path.write_text("\n".join(texts))
    return [loaded.ad for loaded in read_ads([str(path)])]


def test_weight_keys_are_shared_by_slots_binding_the_weight_alike(tmp_path) -> None:
    """Eight slots of three kinds in runs (16 cores, ``Factor = 1``; 8 and 1; 8 and
    2: the reader shares a line's entry with the ad before), ``SlotWeight = Cpus *
    Factor``: a weight key worked out per kind (a walk is per entry of the names it
    visits, ``Cpus`` among them), two values; a piece of a ``Factor = 2`` slot weighs
    twice its cores. Each key and weight reads is what the slot's own would be, and
    the cycle is the reference's."""
    kinds = [(16, 1)] * 2 + [(8, 1)] * 2 + [(8, 2)] * 4
    slot_ads = _read(tmp_path, "slots.ads", [_pslot(i, factor=factor, cpus=cpus)
                                             for i, (cpus, factor) in enumerate(kinds)])
    job_ads = _read(tmp_path, "jobs.ads", [
        _job(c, p, owner) for c, owner in enumerate(("alice", "bob", "carol"))
        for p in range(20)])
    slots = [slot_from_ad(ad, POLICY, i) for i, ad in enumerate(slot_ads)]
    jobs = [job_from_ad(ad, POLICY, i) for i, ad in enumerate(job_ads)]
    subs = {j.submitter: Submitter(j.submitter, eup=500.0, usage=0.0) for j in jobs}
    fast = negotiator.Cycle(slots, jobs, subs, [], POLICY, NOW)
    fast.run()
    result = fast.result()
    assert _fingerprint(result) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, POLICY, NOW))
    costs = fast.scan.costs
    keyed = [o for o in fast.offers if o.vector is not None and o.vector.weight_key]
    assert len(keyed) == 8
    for offer in keyed:
        vector = offer.vector
        kept, kept_reads = vector.weight_key, vector.weight_reads
        vector.weight_key = vector.weight_reads = None
        assert fast.mm.weight_key(offer, POLICY) == kept
        assert pieces.weight_reads(offer, POLICY) == kept_reads == ("Cpus",)
    assert len(costs._keys) == 3 and len({o.vector.weight_key for o in keyed}) == 2
    factor = {f"slot1@node{i}": factor for i, (_, factor) in enumerate(kinds)}
    pieces_taken = [m for m in result.matches if m.partitionable]
    assert pieces_taken
    for match in pieces_taken:
        assert match.weight == dict(match.resources)["Cpus"] * factor[match.partitionable]
