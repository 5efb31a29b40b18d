"""``read_cell``: which files a dump must have, in which order they are read."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar, cast

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell, Complex, ParallelEnvironment, Project, User, Userset
from condorlite.errors import CondorliteError, DataError, InputMissingError

from . import _dispatch, _jobfast, _jobs, _jobscan, _objects, _sharetree, _xml
from ._objects import Notes

T = TypeVar("T")

#: The files the reader needs, and the command that makes each (for the message).
REQUIRED = {
    "sched_conf": "qconf -ssconf",
    "complexes": "qconf -sc",
    "jobs.xml": _jobs.JOBS_COMMAND,
}


class _Dump:
    """The dump directory: opens its files and names them in messages."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def source(self, name: str) -> str:
        return str(self.path / name)

    def data(self, name: str) -> bytes | None:
        """The file's bytes, or None when it does not exist."""
        file = self.path / name
        try:
            return file.read_bytes()
        except FileNotFoundError:
            if name in REQUIRED:
                raise InputMissingError(
                    f"{file}: missing from the cell dump (it is the output of "
                    f"`{REQUIRED[name]}`)") from None
            return None
        except IsADirectoryError:
            raise InputMissingError(f"{file}: is a directory, expected a file") from None
        except OSError as exc:
            raise InputMissingError(f"{file}: cannot read: {exc.strerror or exc}") from None

    def text(self, name: str) -> str | None:
        data = self.data(name)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            raise DataError.at(self.source(name), line, f"not UTF-8 text "
                            f"(byte {exc.start}): {exc.reason}") from None

    def xml(self, name: str, what: str, read: Callable[[ET.Element], T],
            head: Callable[[bytes], bytes] | None = None) -> T | None:
        """``read(root)`` on the parsed file (only the part ``head`` keeps, when given:
        lines keep their numbers), with a bad value's line found afterwards; None when
        the file does not exist."""
        data = self.data(name)
        if data is None:
            return None
        if head is not None:
            data = head(data)
        root = _xml.parse(data, self.source(name), what)
        try:
            return read(root)
        except _xml.XmlValueError as exc:
            raise _xml.value_error(data, root, exc, self.source(name)) from None


def _now(text: str | None, source: str) -> int | None:
    if text is None:
        return None
    value = text.strip()
    if not value.isdigit():
        raise DataError.at(source, 1, f"expected the scheduler run's time in epoch "
                        f"seconds, found {value[:40]!r}")
    return int(value)


def _modified(text: str | None, source: str) -> tuple[int, ...]:
    """``modified_jobs``: one job number a line (recorded by the recording kit's
    ``mgr qalter``; a live cell's dump cannot know it)."""
    if text is None:
        return ()
    out: list[int] = []
    for number, line in enumerate(text.splitlines(), 1):
        value = line.strip()
        if not value:
            continue
        if not value.isdigit():
            raise DataError.at(source, number, f"expected a job number, found {value[:40]!r}")
        out.append(int(value))
    return tuple(out)


def _objects_of(dump: _Dump, name: str, notes: Notes) -> dict[str, object]:
    text = dump.text(name)
    if text is None:
        return {}
    return _objects.read_objects(text, dump.source(name), _objects.KINDS[name], notes)


def _share(dump: _Dump, notes: Notes) -> tuple[object, dict]:
    tree_text, mon_text = dump.text("share_tree"), dump.text("share_mon")
    tree = None
    if tree_text is not None:
        tree = _sharetree.read_share_tree(tree_text, dump.source("share_tree"), notes)
    if mon_text is None:
        return tree, {}
    if tree is None:
        notes.add(f"{dump.source('share_mon')}: ignored: the dump has no share tree")
        return tree, {}
    return tree, _sharetree.read_share_mon(mon_text, dump.source("share_mon"), notes)


def read_cell(path: Path | str) -> Cell:
    """Everything a cell dump directory holds (see the package docstring)."""
    path = Path(path)
    if not path.is_dir():
        what = "is not a directory" if path.exists() else "no such directory"
        raise InputMissingError(f"{path}: {what} (expected a Grid Engine cell dump)",
                                hint="make one with tools/sge/dump-cell.sh DIR")
    dump, notes = _Dump(path), Notes()
    sched_conf = _objects.read_sched_conf(
        cast(str, dump.text("sched_conf")), dump.source("sched_conf"), notes)
    complexes = _objects.read_complexes(cast(str, dump.text("complexes")),
                                        dump.source("complexes"))
    users = _objects_of(dump, "users", notes)
    projects = _objects_of(dump, "projects", notes)
    usersets = cast(dict[str, Userset], _objects_of(dump, "usersets", notes))
    pes = _objects_of(dump, "pes", notes)
    read = _read_jobs_and_rest(dump, notes, complexes, usersets)
    return Cell(
        sched_conf=sched_conf,
        complexes=complexes,
        users=cast(dict[str, User], users),
        projects=cast(dict[str, Project], projects),
        usersets=usersets,
        pes=cast(dict[str, ParallelEnvironment], pes),
        jobs=tuple(read.jobs),
        share_tree=read.tree,  # type: ignore[arg-type]
        share_usage=read.usage,
        now=_now(dump.text("now"), dump.source("now")),
        modified_jobs=_modified(dump.text("modified_jobs"), dump.source("modified_jobs")),
        warnings=tuple(notes.items),
        **read.files,
    )


@dataclass(frozen=True)
class _JobsAndRest:
    """What ``_read_jobs_and_rest`` reads: the jobs, the share tree with its usage, the
    dispatch files."""

    jobs: list[Job]
    tree: object
    usage: dict
    files: dict[str, object]


def _read_jobs_and_rest(dump: _Dump, notes: Notes, complexes: dict[str, Complex],
                        usersets: dict[str, Userset]) -> _JobsAndRest:
    """share_tree and share_mon, queue_instances.xml's pending lines, jobs.xml, the
    dispatch files: read in this order, and an error is that of the first bad one; but
    jobs.xml's tail is read by a second process (``_jobfast.JobsRead``) while this one
    reads share_mon and the dispatch files, so those two run early and keep their
    error (and the dispatch files their notes, added last) until their turn."""
    share = _Later(lambda: _share(dump, notes))
    dispatch_notes = Notes()
    dispatch = _Later(lambda: _dispatch_of(dump, dispatch_notes))
    try:
        # queue_instances.xml's pending lines are scanned first: a job is built once,
        # with every task (a missing jobs.xml is still said before anything of that file)
        jobs_xml = cast(bytes, dump.data("jobs.xml"))
        instances = dump.data("queue_instances.xml")
        pending = _jobs.Pending(None if instances is None else _jobs.scan_pending(
            instances, dump.source("queue_instances.xml")))
        checked = _jobscan.check_document(jobs_xml, dump.source("jobs.xml"))
    except CondorliteError:
        share.value()  # an error in the share files comes first
        raise
    with _jobfast.JobsRead(jobs_xml if checked else b"", dump.source("jobs.xml"),
                           complexes, usersets, pending, head_share=0.45) as read:
        share.run()
        dispatch.run()
        tree, usage = share.value()
        jobs = read.jobs()
    if not pending.known and jobs:
        notes.add(f"{dump.source('queue_instances.xml')}: missing: pending tasks taken "
                  f"from JB_ja_structure (finished array tasks count as pending), "
                  f"holds unknown")
    for number in pending.unmatched({job.number for job in jobs}):
        notes.add(f"{dump.source('queue_instances.xml')}: job {number} is pending there "
                  f"but not in jobs.xml; ignored")
    files = dispatch.value()
    notes.items.extend(dispatch_notes.items)
    return _JobsAndRest(jobs, tree, usage, files)


class _Later(Generic[T]):
    """A part of the reading run early, its error kept until ``value`` (``read_cell``)."""

    def __init__(self, work: Callable[[], T]) -> None:
        self._work = work
        self._done = False
        self._value: T | None = None
        self._error: CondorliteError | None = None

    def run(self) -> None:
        if not self._done:
            self._done = True
            try:
                self._value = self._work()
            except CondorliteError as error:
                self._error = error

    def value(self) -> T:
        self.run()
        if self._error is not None:
            raise self._error
        return cast(T, self._value)


def _dispatch_of(dump: _Dump, notes: Notes) -> dict[str, object]:
    """The dispatch files (``_dispatch``), each optional."""
    hosts, queues, conf = dump.text("hosts"), dump.text("queues"), dump.text("global_conf")
    states = dump.xml("queue_instances.xml", _jobs.QUEUE_INSTANCES_COMMAND,
                      _dispatch.read_instances, head=_jobs.queue_info)
    values = dump.xml("queue_resources.xml", _dispatch.RESOURCES_COMMAND,
                      _dispatch.read_instances, head=_jobs.queue_info)
    running = dump.xml("running.xml", _dispatch.RUNNING_COMMAND, _dispatch.read_running)
    return {
        "hosts": {} if hosts is None else _dispatch.read_hosts(hosts, dump.source("hosts"),
                                                               notes),
        "queues": {} if queues is None else _dispatch.read_queues(queues,
                                                                  dump.source("queues")),
        "queue_instances": _dispatch.with_resources(states, values),
        "running": running or (),
        "global_conf": {} if conf is None else _dispatch.read_global_conf(
            conf, dump.source("global_conf")),
    }
