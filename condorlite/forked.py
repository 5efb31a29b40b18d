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

``ForkedBytes(work)`` is the same for a ``work`` that makes a list of bytes: they
come back as they are, not pickled (``chunks()``), for a large text its caller writes
out.

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
from typing import Generic, Self, TypeVar

T = TypeVar("T")


class ChildFailed(Exception):
    """The child gave no value: it raised, died, or was never started."""


def two_cores() -> bool:
    """Whether this process may run on two or more cores."""
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except AttributeError:  # not on Linux
        return (os.cpu_count() or 1) >= 2


class _Child:
    """A forked child that sends back the bytes ``produce()`` gives, as they are."""

    def __init__(self, produce: Callable[[], list[bytes]]) -> None:
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
                # (all made before the first write: the pipe holds 64 KB, and the
                # parent reads only once its own share of the work is done)
                for payload in produce():
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

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs unreaped; None otherwise."""
        return self._pid

    def chunks(self) -> list[bytes]:
        """What the child sent, in chunks of at most 1 MiB, once it has left with
        success; ``ChildFailed`` when it did not (or never started)."""
        if self._pid is None:
            raise ChildFailed("no child")
        chunks = []
        with os.fdopen(self._read, "rb") as pipe:
            self._read = -1
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        _, status = os.waitpid(self._pid, 0)
        self._pid = None
        if status != 0:
            raise ChildFailed(f"child status {status}")
        return chunks

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


class _Owned:
    """What ``Forked`` and ``ForkedBytes`` share: their child, killed and reaped on
    leaving the ``with`` block when its result was not taken."""

    _child: _Child

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs unreaped; None otherwise."""
        return self._child.pid

    def close(self) -> None:
        """Kill and reap a child whose result was not taken."""
        self._child.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class Forked(_Owned, Generic[T]):
    """``work()`` run in a forked child (module doc)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._child = _Child(
            lambda: [pickle.dumps(work(), protocol=pickle.HIGHEST_PROTOCOL)])

    def result(self) -> T:
        """The child's value (module doc); ``ChildFailed`` when there is none."""
        chunks = self._child.chunks()
        if not chunks:
            raise ChildFailed("no value")
        return pickle.loads(b"".join(chunks))


class ForkedBytes(_Owned):
    """``work()``'s pieces of bytes made in a forked child and sent back as they are,
    not pickled: ``chunks()`` gives them again in chunks of at most 1 MiB, for a
    caller that writes them out. A large text is then held once by the parent, as
    chunks, where a pickled value was held as chunks, their join and the value.
    ``chunks()`` raises ``ChildFailed`` as ``Forked.result()`` does: only a child
    that left with success sent all of it."""

    def __init__(self, work: Callable[[], list[bytes]]) -> None:
        self._child = _Child(work)

    def chunks(self) -> list[bytes]:
        return self._child.chunks()
