export SGE_ROOT=/var/lib/gridengine SGE_CELL=default; . $SGE_ROOT/default/common/settings.sh
COMMON=$SGE_ROOT/$SGE_CELL/common
HOST=$(hostname)
mkdir -p /tmp/rdr/arr; cd /tmp/rdr/arr
qconf -sc > cplx.orig
{ grep -v '^# >#<' cplx.orig; echo "rdrforced rdrf BOOL == FORCED NO 0 0"; } > cplx.new
qconf -Mc cplx.new >/dev/null
sed "s/^hostlist .*/hostlist $HOST/; s/^qname .*/qname rdr.q/; s/^complex_values .*/complex_values rdrforced=TRUE/; s/^slots .*/slots 2/" /work/shared/sge/default_queue_all.q.txt > rdrq
qconf -Aq rdrq >/dev/null
J=$(su erin -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N arr -t 1-6 -l rdrf=1 sleep 3" | cut -d. -f1)
echo job $J
qconf -tsm >/dev/null 2>&1
sleep 12
qconf -tsm >/dev/null 2>&1
sleep 4
qmod -d rdr.q >/dev/null
sleep 1
qstat -xml -j $J > jobs.xml 2>&1
qstat -f -xml -u erin > queue_instances.xml
qstat -u '*' > qstat.txt
qdel -f $J >/dev/null 2>&1
for i in $(seq 1 30); do qstat -j $J >/dev/null 2>&1 || break; sleep 1; done
qconf -dq rdr.q >/dev/null
qconf -Mc cplx.orig >/dev/null
qconf -sc | grep -c rdrforced; qconf -sql
