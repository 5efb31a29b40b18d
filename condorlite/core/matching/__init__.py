"""Matching: which offers a job can take, in which order, and walking that list.

Data flows one way through the stages of this package:

* jobs into match classes: ``queue_blocks`` (idle jobs in queue order), ``significant``
  and ``autocluster`` (jobs grouped by the attributes matchmaking can read), ``row_maps``;
* slots into offers and shapes: ``offers`` (an ``Offer`` per slot, carving pieces),
  ``carving`` (partitionable slots as resource vectors, ``PairProgram``),
  ``slot_walks``, ``first_states``, ``first_ranks``, ``literal_ranks``, ``lazy_ranks``,
  ``pair_programs``, ``spent_statics``, ``offer_shapes`` (the offers kept in their
  shapes);
* the match table and candidate lists: ``candidates`` (entries, ``Candidates``),
  ``request_lists`` (one request's ordered list), ``shape_entries`` (a shape's entries,
  the runs kept), ``carved_lists`` (the vector statics), ``static_lists`` (with
  ``static_parts``: the static shapes by part, sorted by their numbers),
  ``held_groups`` (with ``held_counts``: a plan's deferred groups counted per
  submitter), ``held_walks`` (a class's matching held groups with priority
  preemption on), ``held_lists`` (their entries, once per submitter),
  ``preq_verdicts`` (``PREEMPTION_REQUIREMENTS`` kept by what it reads; with
  ``preq_reads``: the names it reads, from its tree),
  ``box_ranges`` (items sorted by a number, bisected by a box's bounds: for both);
  ``match_table`` (a class against a shape, kept); ``matchmaker.Matchmaker`` owns the
  shapes, the table and the lists and answers ``candidates(job, ...)``;
* consuming a list under a budget: ``list_scan`` (the first entry a job may take) and
  ``piece_costs`` (what an entry costs against a limit).

It reads the data model (``core.model``, ``core.policy``) and the ClassAd language
through ``core.adeval``; nothing here knows about submitters' turns, pie spins or the
accountant (``core.negotiation`` drives it).
"""

from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.list_scan import ListScan
from condorlite.core.matching.matchmaker import REMOTE_ATTRS, Matchmaker
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.policy_exprs import PolicyExprs

__all__ = ["REMOTE_ATTRS", "Autoclusters", "Candidates", "ListScan", "Matchmaker", "Offer",
           "PolicyExprs"]
