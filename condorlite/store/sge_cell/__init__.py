"""Reading a Grid Engine cell dump into ``condorlite.core.sge.objects.Cell``.

A dump is a directory of verbatim command outputs (``tools/sge/README.md``; made by
``tools/sge/dump-cell.sh``). Read here:

=======================  ==============================  ========
file                     command                         needed
=======================  ==============================  ========
``sched_conf``           ``qconf -ssconf``               yes
``complexes``            ``qconf -sc``                   yes
``jobs.xml``             ``qstat -xml -j '*'``           yes
``users``                ``qconf -suser U``, each        no
``projects``             ``qconf -sprj P``, each         no
``usersets``             ``qconf -su S``, each           no
``pes``                  ``qconf -sp P``, each           no
``share_tree``           ``qconf -sstree``               no
``share_mon``            ``sge_share_mon -c 1 -h -n``    no
``queue_instances.xml``  ``qstat -f -xml -u '*'``        no (its pending jobs only)
``now``                  the scheduler run's time        no
=======================  ==============================  ========

Other files (``hosts``, ``queues``, ``running.xml`` ...) are left alone. A missing
needed file or directory is ``InputMissingError`` (exit 66) naming the command that
makes it; a bad line is ``DataError`` (exit 65) as ``file:line: key: expected ...,
found ...``; a key a newer Grid Engine adds is kept out with a warning in
``Cell.warnings``. The formats: ``_lines`` (qconf text), ``_objects`` (each object
kind), ``_sharetree`` (share tree and share_mon), ``_jobs`` and ``_xml`` (qstat XML,
and why a ``<!DOCTYPE`` is refused); jobs.xml is read by ``_jobfast`` when it is
regular, else by the careful ``_jobscan``, which says where it is not. ``_changes``
makes a changed copy of a dump (``sge qstat --what-if``, ``export sge``).
"""

from ._cell import read_cell
from ._changes import CellChange, changed_dump, parse_change

__all__ = ["CellChange", "changed_dump", "parse_change", "read_cell"]
