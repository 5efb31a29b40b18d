"""Work done on the machine's second core: a forked child whose result comes back pickled.

``Forked(work)`` forks at once when the platform can (``os.fork``) and the process may
run on two or more cores; the child runs ``work()``, writes the pickled value to a
pipe and leaves with ``os._exit`` (so it never runs the parent's exit handlers, never
flushes the parent's buffered output, never touches its state lock or database).
``result()`` reads the pipe, reaps the child and returns the value, or raises
``ChildFailed`` when the child raised, died or could not start; the caller then does
the work itself, so a failure costs time, never an answer. Leaving the ``with`` block
kills and reaps a child whose result was never taken (an error or an interrupt in the
parent). Without ``fork`` or a second core nothing is forked and ``result()`` raises
``ChildFailed`` at once.

Invariant: the value ``result()`` returns equals ``work()`` run in the parent at the
moment of the fork (the child has a copy of the parent's memory; ``work`` must read
nothing the parent changes afterwards, and its value must pickle).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable
from types import TracebackType
from typing import Generic, TypeVar

T = TypeVar("T")


class ChildFailed(Exception):
    """The child gave no value: it raised, died, or was never started."""


def two_cores() -> bool:
    """Whether this process may run on two or more cores."""
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except AttributeError:  # not on Linux
        return (os.cpu_count() or 1) >= 2


class Forked(Generic[T]):
    """``work()`` run in a forked child (module doc)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._pid: int | None = None
        self._read = -1
        if not hasattr(os, "fork") or not two_cores():
            return
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read)
            os.close(write)
            return
        if pid == 0:  # the child: nothing of it returns past this block
            status = 1
            try:
                os.close(read)
                payload = pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)
                view = memoryview(payload)
                while view:
                    view = view[os.write(write, view):]
                status = 0
            except BaseException:
                pass
            finally:
                os._exit(status)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """The child's value (module doc); ``ChildFailed`` when there is none."""
        if self._pid is None:
            raise ChildFailed("no child")
        chunks = []
        with os.fdopen(self._read, "rb") as pipe:
            self._read = -1
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if status != 0 or not chunks:
            raise ChildFailed(f"child status {status}")
        return pickle.loads(b"".join(chunks))

    def close(self) -> None:
        """Kill and reap a child whose result was not taken."""
        if self._read >= 0:
            os.close(self._read)
            self._read = -1
        if self._pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None

    def __enter__(self) -> Forked[T]:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()
