#!/bin/bash
# dump-cell.sh OUTDIR [--qstat]
#
# Write a dump of a LIVE Grid Engine cell into OUTDIR, in the cell-dump layout condorlite
# reads (tools/sge/README.md, "The cell dump"): sched_conf, complexes, users, projects,
# usersets, pes, hosts, queues, share_tree + share_mon (only when a share tree exists),
# global_conf, jobs.xml, running.xml, queue_instances.xml, queue_resources.xml and now.
# Read-only: it runs only qconf -s*/qstat/sge_share_mon and changes nothing in the cell.
#
# Run it as any user allowed to run qconf -s* and qstat -u '*' (an admin host, with the
# cell's settings.sh sourced, or SGE_ROOT/SGE_CELL set). `now` is `date +%s` at the start.
#
# With --qstat it also writes expected/qstat.txt and expected/qstat.xml
# (qstat -ext -urg -pri -u '*'): what the LAST scheduler run decided, which may be up to one
# schedule_interval older than the dump.
set -u
usage() { echo "usage: $0 OUTDIR [--qstat]" >&2; exit 2; }
[ $# -ge 1 ] || usage
OUTDIR=$1; shift
WITH_QSTAT=0
for a in "$@"; do case $a in --qstat) WITH_QSTAT=1 ;; *) usage ;; esac; done

if ! command -v qconf >/dev/null 2>&1; then
  if [ -n "${SGE_ROOT:-}" ] && [ -r "$SGE_ROOT/${SGE_CELL:-default}/common/settings.sh" ]; then
    . "$SGE_ROOT/${SGE_CELL:-default}/common/settings.sh"
  else
    echo "dump-cell.sh: qconf not found; source your cell's settings.sh first" >&2; exit 1
  fi
fi
qconf -ssconf >/dev/null 2>&1 || { echo "dump-cell.sh: cannot reach the qmaster (qconf -ssconf failed)" >&2; exit 1; }

# sge_share_mon lives in utilbin, which is not on PATH
share_mon=$(command -v sge_share_mon 2>/dev/null || true)
if [ -z "$share_mon" ] && [ -n "${SGE_ROOT:-}" ]; then
  arch=$("$SGE_ROOT/util/arch" 2>/dev/null || true)
  for c in "$SGE_ROOT/utilbin/$arch/sge_share_mon" /usr/lib/gridengine/sge_share_mon; do
    [ -x "$c" ] && { share_mon=$c; break; }
  done
fi
[ -z "$share_mon" ] && [ -x /usr/lib/gridengine/sge_share_mon ] && share_mon=/usr/lib/gridengine/sge_share_mon

d=$OUTDIR
mkdir -p "$d"
date +%s > "$d/now"
qconf -ssconf > "$d/sched_conf"
qconf -sconf > "$d/global_conf"
qconf -sc > "$d/complexes"
: > "$d/users";    for x in $(qconf -suserl 2>/dev/null); do qconf -suser "$x" >> "$d/users"; done
: > "$d/projects"; for x in $(qconf -sprjl 2>/dev/null); do qconf -sprj "$x" >> "$d/projects"; done
: > "$d/usersets"; for x in $(qconf -sul 2>/dev/null);   do qconf -su "$x" >> "$d/usersets"; done
: > "$d/pes";      for x in $(qconf -spl 2>/dev/null);   do qconf -sp "$x" >> "$d/pes"; done
{ qconf -se global; for x in $(qconf -sel 2>/dev/null); do qconf -se "$x"; done; } > "$d/hosts"
: > "$d/queues";   for x in $(qconf -sql 2>/dev/null);   do qconf -sq "$x" >> "$d/queues"; done
rm -f "$d/share_tree" "$d/share_mon"
if qconf -sstree >/dev/null 2>&1; then
  qconf -sstree > "$d/share_tree"
  if [ -n "$share_mon" ]; then
    "$share_mon" -c 1 -h -n > "$d/share_mon" 2>&1
  else
    echo "dump-cell.sh: sge_share_mon not found; share_mon not written" >&2
  fi
fi
qstat -xml -j '*' > "$d/jobs.xml" 2>&1
qstat -xml -s r -g t -u '*' > "$d/running.xml"
qstat -f -xml -u '*' > "$d/queue_instances.xml"
qstat -f -F -xml -u '*' > "$d/queue_resources.xml"
if [ $WITH_QSTAT = 1 ]; then
  mkdir -p "$d/expected"
  qstat -ext -urg -pri -u '*' > "$d/expected/qstat.txt"
  qstat -xml -ext -urg -pri -u '*' > "$d/expected/qstat.xml"
fi
echo "cell dumped to $d"
