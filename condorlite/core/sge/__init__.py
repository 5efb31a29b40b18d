"""Grid Engine's scheduler policies (Sun N1 Grid Engine 6.1 / SoGE 8.1.9).

Data flows one way: ``objects`` (the cell, as read from a dump) -> ``urgency`` and
``tickets`` (which runs ``override``, ``functional`` and ``sharetree`` over the job refs
of ``refs``, grouping pending jobs with ``categories`` and finding their share-tree
nodes with ``treesearch``) -> ``priority`` (the weighted
priority and the order) -> ``explain`` (one job taken apart). Entry points:

* ``prioritise(cell, now)`` -> ``Prioritisation``: every job's figures, in the
  scheduler's order, and the share tree as the run saw it;
* ``explain(prioritisation, cell, job)`` -> ``Explanation``.
"""

from condorlite.core.sge.explain import Explanation, explain
from condorlite.core.sge.priority import JobPriority, Prioritisation, prioritise

__all__ = ["Explanation", "JobPriority", "Prioritisation", "explain", "prioritise"]
