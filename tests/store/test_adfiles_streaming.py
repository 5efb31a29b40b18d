"""``iter_ads`` hands the parser a stream and takes ads one by one: reading the first ad
of standard input reads only about that ad, in the old form and in JSON."""

from __future__ import annotations

import io
import json

import pytest

from condorlite.core.classad.jsonread import CHUNK
from condorlite.core.classad.oldform import CHUNK as OLD_CHUNK
from condorlite.errors import DataError
from condorlite.store.adfiles import iter_ads


class CountingStream(io.TextIOBase):
    """Lines of text handed out one at a time, counting the characters taken; reading
    it whole is a test failure."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines(keepends=True)
        self.taken = 0
        self.chars = 0

    def readable(self) -> bool:
        return True

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.taken >= len(self.lines):
            raise StopIteration
        line = self.lines[self.taken]
        self.taken += 1
        self.chars += len(line)
        return line

    def read(self, size: int | None = -1) -> str:
        raise AssertionError("the stream must not be read whole")


def _old_text(count: int) -> str:
    return "".join(f'Name = "slot{i}@h"\nCpus = {i % 4}\nRequirements = START\n\n'
                   for i in range(count))


def test_old_form_on_stdin_is_read_a_chunk_ahead() -> None:
    text = _old_text(5000)
    stream = CountingStream(text)
    ads = iter_ads(["-"], stdin=stream)
    first = next(ads)
    assert first.ad.evaluate("Name") == "slot0@h"
    assert first.source == "<stdin>" and first.index == 0
    assert stream.chars <= OLD_CHUNK + 100 < len(text)
    rest = list(ads)
    assert len(rest) == 4999 and rest[-1].index == 4999
    assert rest[-1].ad.evaluate("Cpus") == 4999 % 4


def test_json_on_stdin_is_read_a_chunk_ahead() -> None:
    docs = [json.dumps({"Name": f"slot{i}@h", "Cpus": 1, "Pad": "p" * 100}, indent=2)
            for i in range(5000)]
    text = "[\n" + "\n,\n".join(docs) + "\n]\n"
    stream = CountingStream(text)
    ads = iter_ads(["-"], stdin=stream)
    assert next(ads).ad.evaluate("Name") == "slot0@h"
    assert stream.chars <= 2 * CHUNK + 1000 < len(text)
    assert sum(1 for _ in ads) == 4999


def test_error_late_in_a_stream_is_a_data_error_with_its_line() -> None:
    text = _old_text(3000) + "Bad = (1 +\n"
    with pytest.raises(DataError) as info:
        list(iter_ads(["-"], stdin=CountingStream(text)))
    assert str(info.value).startswith(f"<stdin>:{3000 * 4 + 1}:")
