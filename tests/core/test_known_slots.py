"""``known_slots.KnownSlots`` and ``negotiate_inputs.KNOWN_SLOTS``: slots of a known
key decode as the ad-by-ad way decodes them (``_decode_kind``, ``slot_from_ad``), on
hostile slots: computed States, absurd and odd weights, missing or odd Names, busy
slots with their own (or computed) holders, partitionable slots and their dynamic
children, slots whose screening verdicts change with their own numbers, foreign
ads, and duplicates."""

from __future__ import annotations

import dataclasses

import pytest

from condorlite.cli import negotiate_inputs
from condorlite.cli.negotiate_inputs import _decode_kind, decode
from condorlite.core import ad_screen, known_slots
from condorlite.core.ad_decoder import slot_from_ad
from condorlite.core.ad_screen import AdScreen
from condorlite.core.known_slots import KnownSlots
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
from tests.core.test_ad_screen import _slot_texts

#: Per slot, one line among these makes it hostile (or not); the rest is shared.
WEIGHTS = ["Cpus = 4", "Cpus = 2.5", "Cpus = -2", "Cpus = 1e300", "Cpus = 2e9",
           'Cpus = "x"', "Cpus = true", "Cpus = 9007199254740993", "Cpus = 1 + 1", "",
           "Cpus = 3\nSlotWeight = 7", "Cpus = 3\nSlotWeight = 2e9",
           "Cpus = 3\nSlotWeight = Memory", "Cpus = 3\nSlotWeight = MY.Cpus"]
NAMES = ['Name = "s{i}@m{h}"', 'Name = "s{i}@m{h}"', 'Name = "s{i}@m{h}"', "",
         'Name = ""', "Name = 7", 'Name = strcat("c", "{i}")']
STATES = ['State = "Claimed"', 'State = "Unclaimed"', 'State = strcat("Clai", "med")',
          'State = "Matched"', 'State = "Preempting"', ""]
KINDS = ["", "PartitionableSlot = true", 'SlotType = "Dynamic"\nParentSlot = "p"',
         'SlotType = "Partitionable"', "DynamicSlot = true"]
HOLDERS = ['RemoteUser = "u{i}@d"', 'RemoteUser = "u{j}@d"', "",
           'RemoteUser = strcat("u", "x")', 'RemoteUser = ""',
           'AccountingGroup = "g.u{j}"\nRemoteUser = "u{i}@d"',
           'PreemptingUser = "p@d"\nRemoteUser = "u{j}@d"',
           'PreemptingUser = strcat("p", "@d")', "RemoteUser = 5"]
JOB_IDS = ['JobId = "{i}.0"', "", "JobId = 12", 'JobId = strcat("1.", "2")', 'JobId = ""']
MACHINES = ["", 'Machine = "host{h}"', 'Machine = ""', "Machine = 3",
            'Machine = strcat("h", "x")']


def _hostile_texts(count: int) -> list[str]:
    """``count`` slot ads, each of a few lines above chosen by its number (primes
    apart, so the lines mix), sharing their START, Requirements and Rank."""
    texts = []
    for i in range(count):
        lines = [
            'MyType = "Machine"',
            NAMES[i % 7 if i % 5 == 4 else 0].format(i=i, h=i % 3),
            WEIGHTS[i % 14 if i % 3 == 1 else 0],
            STATES[i % 6 if i % 2 else 0],
            KINDS[i // 2 % 5],
            'Activity = "Busy"',
            HOLDERS[i % 9].format(i=i, j=i % 4),
            JOB_IDS[i // 3 % 5].format(i=i),
            MACHINES[i % 5 if i % 7 == 3 else 1].format(h=i % 3),
            "CurrentRank = 2.5" if i % 4 == 1 else "",
            "Memory = 1024",
            "Start = TARGET.RequestMemory <= MY.Memory",
            "Requirements = START",
            "Rank = 0" if i % 11 else "Rank = Memory",
        ]
        texts.append("\n".join(line for line in lines if line) + "\n")
    return texts


def _fields(slot) -> tuple:
    values = tuple(getattr(slot, f.name) for f in dataclasses.fields(slot))
    return (*values, id(slot.ad))


def _reference(ads, policy):
    problems: list = []
    slots = _decode_kind("slot", ads, lambda ad, index: slot_from_ad(ad, policy, index),
                         "slot Name", problems)
    return [_fields(s) for s in slots], problems


POLICIES = {
    "plain": Policy(uid_domain="d"),
    "no weights": Policy(uid_domain="d", negotiator_use_slot_weights=False),
    "memory": Policy(uid_domain="d", slot_weight="Memory"),
    "computed": Policy(uid_domain="d", slot_weight="Cpus * 2"),
}


@pytest.mark.parametrize("known", [True, False])
@pytest.mark.parametrize("policy", list(POLICIES))
@pytest.mark.parametrize("duplicates", [False, True])
def test_known_slots_decode_as_ad_by_ad(tmp_path, known, policy, duplicates, monkeypatch):
    texts = _hostile_texts(400) + [text + "Cpus = 1\n" for text in _slot_texts()]
    if duplicates:
        texts += texts[5:8]
    path = tmp_path / "slots.ads"
    path.write_text("\n".join(texts) + "\n")
    ads = read_ads([path])
    chosen = POLICIES[policy]
    want, reference = _reference(ads, chosen)
    taken = []
    slot = KnownSlots.slot

    def counted(self, ad, table, index):
        found = slot(self, ad, table, index)
        if found is not None:
            taken.append(index)
        return found

    monkeypatch.setattr(KnownSlots, "slot", counted)
    monkeypatch.setattr(negotiate_inputs, "KNOWN_SLOTS", known)
    got = decode(ads, [], chosen)
    assert [_fields(s) for s in got.slots] == want
    assert got.problems == reference
    kinds = {p["problem"].split(" ")[0] for p in reference}
    assert {"slot", "a", "Start", "regexp(...)"} <= kinds  # no Name, foreign, runaway
    assert any("weight" in p["problem"] for p in reference) == (policy != "no weights")
    if duplicates:
        assert any(p["problem"].startswith("duplicate") for p in reference)
    if known:
        # the memo's way is taken (a computed SLOT_WEIGHT: only for a literal SlotWeight;
        # with duplicates, the run pass takes it first and is then dropped)
        assert len(taken) > (0 if policy == "computed" else len(want) // 3)
    else:
        assert not taken


@pytest.mark.parametrize("shared", [True, False])
def test_known_slots_check_each_slots_leaf(tmp_path, shared, monkeypatch):
    # Slots whose own numbers change their screening verdict (``_slot_texts``) share
    # their key of ``KNOWN_NAMES``: ``slot`` answers only those whose layout's leaf is
    # plain, and learns nothing without shared leaves below the root.
    monkeypatch.setattr(ad_screen, "SHARED_LEAVES", shared)
    policy = Policy(uid_domain="d")
    texts = [text + f"Cpus = {i % 4}\n" for i, text in enumerate(_slot_texts() * 2)]
    path = tmp_path / "slots.ads"
    path.write_text("\n".join(texts) + "\n")
    ads = [loaded.ad for loaded in read_ads([path])]
    screen = AdScreen("slot")
    known = KnownSlots(policy)
    answered = 0
    for index, ad in enumerate(ads):
        plain = screen.screen(ad).plain
        found = known.slot(ad, ad._attrs, index)
        if found is not None:
            answered += 1
            assert plain
            assert _fields(found) == _fields(slot_from_ad(ad, policy, index))
        known.learn(ad, ad._attrs, screen)
    assert (answered > 0) == shared


def test_known_names_hold_what_is_keyed():
    # What a ``_Known`` settles is read from these names alone (module doc).
    assert set(known_slots.KNOWN_NAMES) >= {
        "mytype", "requirements", "rank", "start", "my", "target", "slottype",
        "partitionableslot", "dynamicslot", "state", "activity", "currentrank",
        "slotweight", "preemptingaccountinggroup", "preemptinguser", "accountinggroup"}
    assert "remoteuser" not in known_slots.KNOWN_NAMES
