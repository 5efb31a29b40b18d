"""Fixtures shared by the CLI tests."""

from __future__ import annotations

import time

import pytest


@pytest.fixture(autouse=True)
def utc(monkeypatch):
    """Human output prints local time, labelled; pin it to UTC so the golden files hold
    anywhere (a test that wants another zone sets TZ itself)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
