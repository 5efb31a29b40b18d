# Helpers for recording what a real Grid Engine scheduler decides. Source it from a scenario
# script after setup.sh has started the cell:   OUT=/some/dir . tools/sge/lib.sh
# (scenarios/*.sh do this themselves: OUT=/tmp/out flock /tmp/sge-cell.lock bash scenarios/X.sh)
#
#   begin NAME              reset the cell to a known state; outputs go to $OUT/NAME/
#   sconf KEY VALUE ...     load base_sconf.txt with these keys changed (qconf -Msconf)
#   add_complex "name shortcut type relop requestable consumable default urgency"
#   mkuser NAME FSHARE OTICKET [DEFAULT_PROJECT]
#   mkprj NAME FSHARE OTICKET
#   mkdept NAME FSHARE OTICKET user1,user2          (a userset of type DEPT)
#   stree FILE              load a share tree (qconf -Astree; nodes in depth-first order!)
#   sub USER [qsub args]    submit "sleep 3600" as USER (alice, bob, carol, dave, erin); prints the id
#   subs USER SECS [args]   submit "sleep SECS" (jobs that finish: for dispatch scenarios)
#   mgr CMD ...             run an admin command (qalter -ot, qalter -p, qmod -e all.q, ...)
#   snap NAME               dump the cell, force ONE scheduler run, record what it decided
#   wait_done JOB ...       wait until the jobs have left qstat
#   burn USER SECS [args]   submit /tmp/sge/burn.sh SECS (burns CPU: share-tree usage)
#   tsm                     force one scheduler run and wait for it, recording nothing
#   note TEXT               append a line to $OUT/NAME/commands.txt
#
# Every helper appends what it did to $OUT/NAME/commands.txt (job ids included).
#
# begin leaves the queues disabled (jobs stay pending; tickets, urgency and priority are still
# computed). Enable them (mgr qmod -e '*') to record dispatch decisions.
# snap writes $OUT/<scenario>/<snap>/ in the cell-dump layout of README.md, and under
# expected/: qstat.txt, qstat.xml, schedule, started.txt, running.txt.
set -u
export SGE_ROOT=/var/lib/gridengine SGE_CELL=default
. $SGE_ROOT/$SGE_CELL/common/settings.sh
HERE_SGE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
COMMON=$SGE_ROOT/$SGE_CELL/common
OUT=${OUT:-/tmp/sge-out}
TMPD=/tmp/sge/tmp
HOST=$(hostname)
mkdir -p $TMPD $OUT

begin() {
  SCN=$OUT/$1
  rm -rf $SCN; mkdir -p $SCN
  qmod -d '*' >/dev/null 2>&1
  local ids x i
  ids=$(qstat -u '*' 2>/dev/null | awk 'NR>2{print $1}' | sort -u)
  [ -n "$ids" ] && qdel -f $ids >/dev/null 2>&1
  for i in $(seq 1 60); do [ -z "$(qstat -u '*' 2>/dev/null)" ] && break; sleep 1; done
  for x in $(qconf -sql 2>/dev/null); do [ "$x" = all.q ] || qconf -dq $x >/dev/null 2>&1; done
  qconf -dstree >/dev/null 2>&1
  # users first: a user's default_project keeps that project from being deleted
  for x in $(qconf -suserl 2>/dev/null); do qconf -duser $x >/dev/null 2>&1; done
  for x in $(qconf -sprjl 2>/dev/null); do qconf -dprj $x >/dev/null 2>&1; done
  for x in $(qconf -sul 2>/dev/null | grep '^dept_'); do qconf -dul $x >/dev/null 2>&1; done
  qconf -Mu $HERE_SGE/default_department.txt >/dev/null 2>&1
  # the queue first: a PE still in all.q's pe_list cannot be deleted
  sed "s/^hostlist .*/hostlist $HOST/" $HERE_SGE/default_queue_all.q.txt > $TMPD/all.q
  qconf -Mq $TMPD/all.q >/dev/null 2>&1
  for x in $(qconf -spl 2>/dev/null); do [ "$x" = smp ] || qconf -dp $x >/dev/null 2>&1; done
  qconf -Mp $HERE_SGE/default_pe_smp.txt >/dev/null 2>&1
  for x in global $(qconf -sel 2>/dev/null); do qconf -rattr exechost complex_values NONE $x >/dev/null 2>&1; done
  qconf -Mc $HERE_SGE/default_complexes.txt >/dev/null 2>&1
  qconf -clearusage >/dev/null 2>&1
  qconf -Msconf $HERE_SGE/base_sconf.txt >/dev/null 2>&1
  qmod -d '*' >/dev/null 2>&1
  : > $COMMON/schedule 2>/dev/null; chown sgeadmin:sgeadmin $COMMON/schedule 2>/dev/null
  note "# scenario $1 begun $(date -u +%FT%TZ) (cell reset, queues disabled, usage cleared)"
}

note() { [ -n "${SCN:-}" ] && echo "$*" >> $SCN/commands.txt; return 0; }

sconf() {
  local SCONF_ARGS="$*"
  cp $HERE_SGE/base_sconf.txt $TMPD/sconf.txt
  while [ $# -ge 2 ]; do
    sed -i "s|^$1 .*|$1 $2|" $TMPD/sconf.txt
    grep -q "^$1 " $TMPD/sconf.txt || echo "$1 $2" >> $TMPD/sconf.txt
    shift 2
  done
  qconf -Msconf $TMPD/sconf.txt >/dev/null 2>&1 || echo "FAILED: qconf -Msconf ($*)" >&2
  note "sconf $SCONF_ARGS"
}

add_complex() {
  qconf -sc > $TMPD/cplx.txt
  sed -i '/^# >#</d' $TMPD/cplx.txt
  echo "$1" >> $TMPD/cplx.txt
  qconf -Mc $TMPD/cplx.txt >/dev/null
  note "add_complex $1"
}

mkuser() {
  printf 'name %s\noticket %s\nfshare %s\ndelete_time 0\ndefault_project %s\n' $1 $3 $2 ${4:-NONE} > $TMPD/user_$1
  qconf -Auser $TMPD/user_$1 >/dev/null 2>&1 || qconf -Muser $TMPD/user_$1 >/dev/null || echo "FAILED: mkuser $*" >&2
  note "mkuser $*"
}

mkprj() {
  printf 'name %s\noticket %s\nfshare %s\nacl NONE\nxacl NONE\n' $1 $3 $2 > $TMPD/prj_$1
  qconf -Aprj $TMPD/prj_$1 >/dev/null 2>&1 || qconf -Mprj $TMPD/prj_$1 >/dev/null || echo "FAILED: mkprj $*" >&2
  note "mkprj $*"
}

mkdept() {
  printf 'name %s\ntype DEPT\nfshare %s\noticket %s\nentries %s\n' $1 $2 $3 $4 > $TMPD/dept_$1
  qconf -Au $TMPD/dept_$1 >/dev/null 2>&1 || qconf -Mu $TMPD/dept_$1 >/dev/null || echo "FAILED: mkdept $*" >&2
  note "mkdept $*"
}

stree() {
  qconf -Astree $1 >/dev/null 2>&1 || qconf -Mstree $1 >/dev/null
  # qconf -Astree exits 0 even when it refuses the tree
  qconf -sstree >/dev/null 2>&1 || { echo "share tree not loaded: $1" >&2; return 1; }
  note "stree: $(tr '\n' ' ' < $1)"
}

sub() {
  local u=$1 id; shift
  id=$(su $u -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N j_$u $* sleep 3600")
  note "sub $u $* # job $id"; echo $id
}

subs() {
  local u=$1 secs=$2 id; shift 2
  id=$(su $u -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N j_$u $* sleep $secs")
  note "subs $u $secs $* # job $id"; echo $id
}

burn() {
  local u=$1 secs=$2 id; shift 2
  id=$(su $u -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N b_$u $* /tmp/sge/burn.sh $secs")
  note "burn $u $secs $* # job $id"; echo $id
}

mgr() {
  "$@" >/dev/null || echo "FAILED: $*" >&2; note "mgr $*"
  # qalter moves a job to the end of the scheduler's pending list (its event mirror
  # re-adds a modified job): keep the order for the dump's modified_jobs file.
  if [ "$1" = qalter ] && [ -n "${SCN:-}" ]; then
    local j=${!#}; j=${j%%.*}
    { grep -vx "$j" $SCN/.modified 2>/dev/null; echo "$j"; } > $SCN/.modified.new
    mv $SCN/.modified.new $SCN/.modified
  fi
}

tsm() {
  local i
  rm -f $COMMON/schedd_runlog
  qconf -tsm >/dev/null 2>&1
  for i in $(seq 1 240); do grep -q STOP-SCHEDULER-RUN $COMMON/schedd_runlog 2>/dev/null && break; sleep 0.25; done
  sleep 2
  note "tsm # a scheduler run, not recorded"
}

wait_done() {
  local j i left
  for i in $(seq 1 600); do
    left=0
    for j in "$@"; do qstat -u '*' | awk 'NR>2{print $1}' | grep -qx $j && left=1; done
    [ $left = 0 ] && return 0
    sleep 1
  done
  echo "wait_done timed out for $*" >&2
}

# the cell as the scheduler sees it, in the layout condorlite reads (README.md)
dump_cell() {
  local d=$1 x
  qconf -ssconf > $d/sched_conf
  qconf -sconf > $d/global_conf
  qconf -sc > $d/complexes
  : > $d/users;    for x in $(qconf -suserl 2>/dev/null); do qconf -suser $x >> $d/users; done
  : > $d/projects; for x in $(qconf -sprjl 2>/dev/null); do qconf -sprj $x >> $d/projects; done
  : > $d/usersets; for x in $(qconf -sul 2>/dev/null);   do qconf -su $x >> $d/usersets; done
  : > $d/pes;      for x in $(qconf -spl 2>/dev/null);   do qconf -sp $x >> $d/pes; done
  { qconf -se global; for x in $(qconf -sel 2>/dev/null); do qconf -se $x; done; } > $d/hosts
  : > $d/queues;   for x in $(qconf -sql 2>/dev/null);   do qconf -sq $x >> $d/queues; done
  if qconf -sstree >/dev/null 2>&1; then
    qconf -sstree > $d/share_tree
    /usr/lib/gridengine/sge_share_mon -c 1 -h -n > $d/share_mon 2>&1
  fi
  qstat -xml -j '*' > $d/jobs.xml 2>&1
  qstat -xml -s r -g t -u '*' > $d/running.xml
  qstat -f -xml -u '*' > $d/queue_instances.xml
  qstat -f -F -xml -u '*' > $d/queue_resources.xml
}

snap() {
  local d=$SCN/$1 sz ts i
  mkdir -p $d/expected
  dump_cell $d
  [ -f $SCN/.modified ] && cp $SCN/.modified $d/modified_jobs
  qstat -s p -u '*' | awk 'NR>2{print $1}' | sort -un > $TMPD/pending_before
  sz=$(stat -c %s $COMMON/schedule 2>/dev/null || echo 0)
  rm -f $COMMON/schedd_runlog
  qconf -tsm >/dev/null 2>&1
  for i in $(seq 1 240); do grep -q STOP-SCHEDULER-RUN $COMMON/schedd_runlog 2>/dev/null && break; sleep 0.25; done
  sleep 2   # let the qmaster apply the run's orders
  # the run's own clock: the START line of its run log, in epoch seconds
  ts=$(grep -m1 START-SCHEDULER-RUN $COMMON/schedd_runlog | cut -d'|' -f1)
  if [ -n "$ts" ]; then date -u -d "$ts" +%s > $d/now; else date -u +%s > $d/now; fi
  tail -c +$((sz+1)) $COMMON/schedule > $d/expected/schedule 2>/dev/null
  qstat -ext -urg -pri -u '*' > $d/expected/qstat.txt
  qstat -xml -ext -urg -pri -u '*' > $d/expected/qstat.xml
  qstat -s r -u '*' > $d/expected/running.txt
  # jobs pending before the run and running after it: "job queue_instance"
  awk 'NR==FNR{p[$1]=1; next} FNR>2 && ($1 in p) && $5 ~ /^(r|t|Rr|Rt)$/ {print $1, $8}' \
      $TMPD/pending_before $d/expected/running.txt | sort -un > $d/expected/started.txt
  note "snap $1 # now=$(cat $d/now)"
}
