"""``core.ad_screen``: the per-ad checks of a reading pass, answered once per distinct
bindings they read, give every ad the answer a fresh check of that ad alone gives, in
any order of the ads (a memo keyed on too little would hand one ad another's verdict)."""

from __future__ import annotations

import itertools

import pytest

from condorlite.core import ad_screen, adeval
from condorlite.core.ad_screen import AdScreen, foreign_type, runaway_verdict
from condorlite.core.classad import parse_ads

#: A chain whose every attribute doubles the cost of the one below: far past the budget.
CHAIN = "".join(f"A{k} = A{k + 1} + A{k + 1}\n" for k in range(40)) + "A40 = 1\n"

JOB = 'ClusterId = {c}\nProcId = 0\nOwner = "u"\nRequestCpus = 1\n'

#: Job ads sharing their lines where they can (the reader interns them, so the screen
#: meets the same entry objects in different ads).
JOBS = [
    # Requirements reads X, X reads A0: benign here, runaway below (the same X line)
    JOB + "Requirements = X > 0\nX = A0 + 1\nA0 = 5\n",
    JOB + "Requirements = X > 0\nX = A0 + 1\n" + CHAIN,
    # TARGET.A0 reads nothing without a match, unless the ad binds Target
    JOB + "Requirements = TARGET.A0 > 0\n" + CHAIN,
    JOB + "Requirements = TARGET.A0 > 0\nTarget = [q = 1]\n" + CHAIN,
    # MY.A0 reads the ad's own A0
    JOB + "Requirements = MY.A0 > 0\n" + CHAIN,
    JOB + "Requirements = MY.A0 > 0\nA0 = 2\n",
    # a name computed at run time: probed per ad
    JOB + 'Requirements = eval(N) > 0\nN = "A0"\n' + CHAIN,
    JOB + 'Requirements = eval(N) > 0\nN = "A0"\nA0 = 3\n',
    JOB + 'Requirements = eval(N) > 0\nN = "B"\nB = 1\n' + CHAIN,
    # a pattern that stops at the match limit, in a directly referenced attribute
    JOB + 'Requirements = P\nP = regexp("(a+)+$", "' + "a" * 40 + '!")\n',
    JOB + 'Requirements = P\nP = regexp("a", "a")\n',
    # ... read through TARGET.P too, from the ad's own P (as the check always has)
    JOB + 'Requirements = TARGET.P > 0\nP = regexp("(a+)+$", "' + "a" * 40 + '!")\n',
    JOB + 'Requirements = TARGET.P > 0\nP = regexp("a", "a")\n',
    # absurd and foreign
    JOB + "Requirements = true\nRequestMemory = 1e300\n",
    JOB + 'Requirements = true\nRequestMemory = real("inf")\n',
    JOB + 'Requirements = true\nMyType = "Machine"\n',
    JOB + 'Requirements = true\nMyType = "Job"\n',
    # Rank reaching the chain through two names
    JOB + "Requirements = true\nRank = Y\nY = X * 2\nX = A0 + 1\n" + CHAIN,
    JOB + "Requirements = true\nRank = Y\nY = X * 2\nX = A0 + 1\nA0 = 1\n",
]


def _ads(texts: list[str]):
    return list(parse_ads("\n".join(t.replace("{c}", str(i + 1)) for i, t in enumerate(texts)),
                          "old"))


def _fresh(ad, kind: str) -> tuple:
    absurd = adeval.absurd_request(ad) if kind == "job" else None
    return foreign_type(ad, kind), absurd, runaway_verdict(ad)


def _screened(ads, kind: str) -> list[tuple]:
    screen = AdScreen(kind)
    out = []
    for ad in ads:
        found = screen.screen(ad)
        out.append((found.foreign, found.absurd, found.runaway(ad)))
    return out


def test_the_fixtures_hold_every_kind_of_answer():
    answers = [_fresh(ad, "job") for ad in _ads(JOBS)]
    assert ("Machine", None, None) in answers
    assert any(a[1] and a[1].startswith("RequestMemory") for a in answers)
    assert any(a[2] == "Requirements" for a in answers)
    assert any(a[2] == "Rank" for a in answers)
    assert any(a[2] == "regexp(...)" for a in answers)
    assert (None, None, None) in answers


@pytest.mark.parametrize("order", ["forward", "backward", "shuffled"])
def test_screened_answers_are_each_ads_own(order):
    ads = _ads(JOBS)
    if order == "backward":
        ads.reverse()
    elif order == "shuffled":
        ads = [ads[i] for i in (5, 1, 16, 0, 8, 18, 3, 12, 7, 2, 15, 4, 10, 17, 6, 13, 9, 11, 14)]
    assert _screened(ads, "job") == [_fresh(ad, "job") for ad in ads]


def test_an_ad_sharing_only_its_direct_references_gets_its_own_verdict():
    # The chain is two names below Requirements: keying on Requirements and the names
    # it reads directly would hand the second ad the first one's "no".
    benign, runaway = _ads(JOBS[:2])
    assert _screened([benign, runaway], "job")[1][2] == "Requirements"
    assert _screened([runaway, benign], "job")[1][2] is None


def test_target_names_count_only_when_the_ad_binds_target():
    plain, bound = _ads(JOBS[2:4])
    assert _screened([plain, bound], "job") == [(None, None, None),
                                                (None, None, "Requirements")]


def test_pairs_of_ads_in_both_orders_agree_with_fresh_checks():
    ads = _ads(JOBS)
    fresh = [_fresh(ad, "job") for ad in ads]
    for i, j in itertools.permutations(range(len(ads)), 2):
        assert _screened([ads[i], ads[j]], "job") == [fresh[i], fresh[j]]


def test_slot_ads_are_screened_as_slots():
    slots = _ads(['Name = "s1@m"\nMyType = "Job"\nRequirements = true\n',
                  'Name = "s2@m"\nMyType = "Machine"\nStart = A0 > 0\n' + CHAIN,
                  'Name = "s3@m"\nMyType = "Machine"\nStart = A0 > 0\nA0 = 1\n'])
    assert _screened(slots, "slot") == [("Job", None, None), (None, None, "Start"),
                                        (None, None, None)]


def _doubling(depth: int) -> str:
    """``B0 = B1 + B1; ...; B<depth> = 1``: evaluating B0 makes 2**depth - 1 steps."""
    return "".join(f"B{k} = B{k + 1} + B{k + 1}\n" for k in range(depth)) + f"B{depth} = 1\n"


@pytest.mark.parametrize(("depth", "verdict"), [(14, None), (15, "Requirements")])
def test_the_step_bound_is_tight_at_the_budget(depth, verdict):
    # 2**14 - 1 = 16,383 steps are within MAX_STEPS (20,000), 2**15 - 1 are not; the
    # screen decides the first by its bound (no probe) and probes the second.
    text = JOB + "Requirements = B0 > 0\n" + _doubling(depth)
    ads = _ads([text.format(c=c) for c in range(3)])
    assert [_fresh(ad, "job")[2] for ad in ads] == [verdict] * 3
    screen = AdScreen("job")
    assert [screen.screen(ad).runaway(ad) for ad in ads] == [verdict] * 3
    assert screen.screen(ads[0]).bounded is (verdict is None)


@pytest.mark.parametrize("shared", [True, False])
def test_slots_differing_only_in_their_numbers_share_one_bound(shared, monkeypatch):
    monkeypatch.setattr(ad_screen, "SHARED_LEAVES", shared)
    texts = [f'Name = "s{k}@m"\nMyType = "Machine"\nKeyboardIdle = {k * 97}\n'
             f"LoadAvg = {k / 7}\nStart = KeyboardIdle > 900 && LoadAvg < 0.3\n"
             f"Requirements = START && TARGET.RequestCpus <= 1\n" for k in range(50)]
    ads = _ads(texts)
    screen = AdScreen("slot")
    leaves = [screen.screen(ad) for ad in ads]
    # one leaf per slot (its own numbers), or one for them all (shared leaves)
    assert len({id(leaf) for leaf in leaves}) == (1 if shared else 50)
    assert all(leaf.bounded for leaf in leaves)
    assert len(screen._bounds) == 1
    assert [leaf.runaway(ad) for leaf, ad in zip(leaves, ads, strict=True)] == [None] * 50


@pytest.mark.parametrize("order", ["forward", "backward"])
def test_a_plain_screening_stands_for_ads_that_pass_every_check(order):
    # ``plain`` lets the reading pass skip the checks: it must never be set on a leaf
    # one of whose ads a check would refuse, in any order, before or after a probe.
    ads = _ads(JOBS) * 2
    if order == "backward":
        ads.reverse()
    screen = AdScreen("job")
    plain = 0
    for ad in ads:
        found = screen.screen(ad)
        if found.plain:
            plain += 1
            assert _fresh(ad, "job") == (None, None, None)
        found.runaway(ad)
    assert plain > 0


#: Slots whose numbers change what START costs and whether a pattern runs: a chain
#: evaluated only when K > 0, a regexp at the match limit only when R > 0, a literal
#: MyType that makes one of them foreign, and an absent or computed K.
SLOT_VARIANTS = [
    'K = {k}\nR = 0\nStart = ifThenElse(K > 0, A0 > 0, true)\n' + CHAIN,
    'K = {k}\nR = {k}\nStart = ifThenElse(R > 0, P, true)\n'
    'P = regexp("(a+)+$", "' + "a" * 40 + '!")\n',
    'K = {k}\nStart = K > 3\nMyType = "Job"\n',
    'K = {k}\nStart = K > 3\n',
    'Start = K > 3\n',
    'K = {k} + 1\nStart = K > 3\n',
    'K = {k}\nR = 1\nStart = K > 3 && R > 0\nRequirements = START\n',
]


def _slot_texts() -> list[str]:
    return [f'Name = "s{i}@m"\nMyType = "Machine"\n'.replace(
        'MyType = "Machine"\n', "" if "MyType" in v else 'MyType = "Machine"\n')
        + v.replace("{k}", str(k)) for i, (k, v) in enumerate(
            (k, v) for k in (0, 1, 5, 0, 2) for v in SLOT_VARIANTS)]


@pytest.mark.parametrize("shared", [True, False])
@pytest.mark.parametrize("order", ["forward", "backward", "shuffled"])
def test_shared_leaves_give_each_slot_its_own_answers(shared, order, monkeypatch):
    # A leaf shared by the layout of a level's entries must not hand one slot another's
    # verdict where a literal's value changes it (the unbounded chain, the foreign type
    # at the root): the answers are the fresh checks', plain only where they all pass.
    monkeypatch.setattr(ad_screen, "SHARED_LEAVES", shared)
    ads = _ads(_slot_texts())
    if order == "backward":
        ads.reverse()
    elif order == "shuffled":
        ads = ads[1::3] + ads[2::3] + ads[0::3]
    fresh = [_fresh(ad, "slot") for ad in ads]
    assert {f[2] for f in fresh} >= {None, "Start", "regexp(...)"}
    assert ("Job", None, None) in fresh
    screen = AdScreen("slot")
    for ad, want in zip(ads, fresh, strict=True):
        found = screen.screen(ad)
        assert not found.plain or want == (None, None, None)
        assert (found.foreign, found.absurd, found.runaway(ad)) == want
    if shared:
        assert any(level.shared for level in _levels(screen._root))


def _levels(level):
    yield level
    for _entries, step in level.next.values():
        if isinstance(step, ad_screen._Level):
            yield from _levels(step)
