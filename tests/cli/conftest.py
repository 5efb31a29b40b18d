"""Fixtures shared by the CLI tests."""

from __future__ import annotations

import time

import pytest


@pytest.fixture
def utc(monkeypatch):
    """Tables print local time; pin it to UTC so the golden files hold anywhere."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()
