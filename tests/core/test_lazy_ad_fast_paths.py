"""The fast paths that test an ad's type for ClassAd-lite take the compiled scanner's
lazy ads (``ad.LazyClassAd``) as well as ``ClassAd``: the same answers as for the pure
scanner's plain ads, by the fast path (a spy on each slow path says so), and the run
pass of decoding leaves a run's lazy ads lazy (it reads ProcId alone)."""

from __future__ import annotations

import pytest

from condorlite.cli import negotiate_inputs
from condorlite.core import adeval
from condorlite.core.ad_decoder import AdDecoder
from condorlite.core.ad_screen import AdScreen
from condorlite.core.classad import ClassAd, oldscan
from condorlite.core.classad.ad import LazyClassAd
from condorlite.core.classad.interning import clear_all
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads

pytestmark = pytest.mark.skipif(not oldscan.AVAILABLE,
                                reason="the compiled scanner was not built")

_TABLE = LazyClassAd.__dict__["_attrs"]


def _jobs_text(count: int = 8) -> str:
    return "".join(
        f'MyType = "Job"\nClusterId = 3\nProcId = {p}\nOwner = "u"\nUser = "u@d"\n'
        f'JobStatus = 1\nQDate = 100\nJobPrio = 0\nRequestCpus = 1\nRequestMemory = 512\n'
        f'Requirements = TARGET.Memory >= RequestMemory\nArgs = "-n {p}"\n\n'
        for p in range(count))


def _read(tmp_path, monkeypatch, *, pure: bool = False) -> list:
    if pure:
        monkeypatch.setenv("CONDORLITE_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("CONDORLITE_PURE_PYTHON", raising=False)
    clear_all()
    path = tmp_path / ("pure.ads" if pure else "jobs.ads")
    path.write_text(_jobs_text())
    return read_ads([path])


def _lazy_ad(tmp_path, monkeypatch) -> LazyClassAd:
    ad = _read(tmp_path, monkeypatch)[5].ad
    assert type(ad) is LazyClassAd and _TABLE.is_lazy(ad)
    return ad


def test_adeval_reads_lazy_ads_by_its_fast_paths(tmp_path, monkeypatch) -> None:
    want = _read(tmp_path, monkeypatch, pure=True)[5].ad
    assert type(want) is ClassAd
    # (the slow paths go through the mapping protocol's get and items)
    monkeypatch.setattr(LazyClassAd, "get", lambda *args: pytest.fail("slow path"))
    for read in (lambda ad: adeval.attr(ad, "procid"),
                 lambda ad: list(adeval.lower_names(ad)),
                 lambda ad: adeval.spelling(ad, "procid"),
                 lambda ad: adeval.table(ad),
                 lambda ad: adeval.tables([ad, ad]),
                 lambda ad: adeval.tables_and_marks([ad])[0],
                 lambda ad: adeval.with_literals(ad, {"Extra": 1}),
                 lambda ad: adeval.absurd_request(ad)):
        lazy = _lazy_ad(tmp_path, monkeypatch)
        got = read(lazy)
        assert got is not None or read(want) is None
        assert got == read(want)
    # (``changed`` tells entries by identity: two ads of one read)
    ads = [loaded.ad for loaded in _read(tmp_path, monkeypatch)]
    pure = [loaded.ad for loaded in _read(tmp_path, monkeypatch, pure=True)]
    assert type(ads[4]) is LazyClassAd and type(ads[5]) is LazyClassAd
    assert adeval.changed(ads[5], ads[4]) == adeval.changed(pure[5], pure[4])
    assert [name for name, _ in adeval.changed(ads[5], ads[4])] == ["procid", "args"]


def test_the_decoder_and_the_screen_take_lazy_ads(tmp_path, monkeypatch) -> None:
    policy = Policy(uid_domain="d")
    want = AdDecoder(policy).job(_read(tmp_path, monkeypatch, pure=True)[5].ad, 5)
    decoder = AdDecoder(policy)
    ads = [loaded.ad for loaded in _read(tmp_path, monkeypatch)]
    decoder.job(ads[1], 1)  # (learnt from the run's whole ad: the memo's cluster)
    monkeypatch.setattr(AdDecoder, "_decode", lambda *args: pytest.fail("slow path"))
    assert type(ads[5]) is LazyClassAd
    got = decoder.job(ads[5], 5)
    assert (got.id, got.index, got.submitter, got.ad) == (want.id, want.index,
                                                          want.submitter, want.ad)
    screen = AdScreen("job")
    real = AdScreen._fresh

    def fresh(self, ad, dynamic, *rest):
        # (the slow path screens the ad on its own, as a dynamic one)
        assert not dynamic, "slow path"
        return real(self, ad, dynamic, *rest)

    monkeypatch.setattr(AdScreen, "_fresh", fresh)
    assert screen.screen(ads[4]).plain


@pytest.mark.parametrize("run_pass", [True, False])
def test_decoding_a_run_leaves_its_lazy_ads_lazy(tmp_path, monkeypatch, run_pass) -> None:
    policy = Policy(uid_domain="d")
    want = negotiate_inputs.decode([], _read(tmp_path, monkeypatch, pure=True), policy)
    ads = _read(tmp_path, monkeypatch)
    assert [type(loaded.ad) for loaded in ads] == [ClassAd] * 2 + [LazyClassAd] * 6
    monkeypatch.setattr(negotiate_inputs, "RUN_PASS", run_pass)
    got = negotiate_inputs.decode([], ads, policy)
    if run_pass:
        # (the run's first plain job's memo hit takes the rest by their ProcId alone)
        assert [_TABLE.is_lazy(loaded.ad) for loaded in ads] == [False] * 2 + [True] * 6
        assert [type(loaded.ad) for loaded in ads] == [ClassAd] * 2 + [LazyClassAd] * 6
    # (comparing the ads reads them whole)
    assert [(j.id, j.index, j.submitter, j.ad) for j in got.jobs] == [
        (j.id, j.index, j.submitter, j.ad) for j in want.jobs]
    assert got.problems == want.problems == []
