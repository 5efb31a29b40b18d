#!/bin/bash
# reader sample: share tree, usage, holds, arrays, shortcuts. Run under flock /tmp/sge-cell.lock
OUT=/tmp/rdr/out
. /work/shared/sge/lib.sh
begin reader_mix
sconf weight_tickets_share 100000 weight_tickets_functional 50000 max_reservation 5 \
      weight_user 0.5 weight_project 0.5 weight_department 0 weight_job 0
mkprj P1 70 0; mkprj P2 30 100
mkuser alice 100 10 P1; mkuser bob 50 0; mkuser carol 25 0; mkuser dave 0 5
mkdept dept_a 40 0 alice,bob
mkdept dept_big 5 1 $(for i in $(seq 1 40); do printf 'someuser%02d,' $i; done)@staff
sconf weight_tickets_share 100000 weight_tickets_functional 50000 max_reservation 5 \
      weight_user 0.5 weight_project 0.5 weight_department 0 weight_job 0 params MONITOR=1,DURATION_OFFSET=60
cat > $TMPD/stree_rdr <<'T'
id=0
name=Root
type=0
shares=1
childnodes=1,4,5
id=1
name=P1
type=1
shares=60
childnodes=2,3
id=2
name=alice
type=0
shares=30
childnodes=NONE
id=3
name=default
type=0
shares=10
childnodes=NONE
id=4
name=bob
type=0
shares=30
childnodes=NONE
id=5
name=grp
type=0
shares=10
childnodes=6
id=6
name=carol
type=0
shares=5
childnodes=NONE
T
stree $TMPD/stree_rdr
# a CPU-burning array that gets two tasks running
A=$(su alice -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N burn -P P1 -t 1-10:3 timeout 600 yes" | cut -d. -f1)
echo array=$A
mgr qmod -e all.q
qconf -tsm >/dev/null 2>&1
sleep 8
qmod -d '*' >/dev/null 2>&1
qhold -h u $A.10 >/dev/null
J1=$(sub alice -P P1 -l h_rt=600,a=lx-amd64,mf=1G -soft -l h=$HOST)
J2=$(sub bob -h -pe smp 2-4 -R y -l h_rt=100)
J3=$(sub carol -dl $(date -d '+2 hours' +%Y%m%d%H%M) -js 10 -p -100 -q all.q)
J4=$(sub bob -hold_jid $J1 -a $(date -d '+3 hours' +%Y%m%d%H%M))
J5=$(sub dave -P P2 -pe smp 2)
J6=$(sub erin -t 1-4 | cut -d. -f1)
mgr qalter -ot 500 $J5
mgr qhold -h o $J3
mgr qhold -h s $J6
J7=$(sub alice -t 1-5 | cut -d. -f1)
mgr qhold -h u $J7.2-3
echo jobs $J1 $J2 $J3 $J4 $J5 $J6 $J7
sleep 90   # execd reports usage every 40 s
snap t0
sleep 45
snap t1
qdel -f $(qstat -u '*' | awk 'NR>2{print $1}' | sort -u) >/dev/null 2>&1
for i in $(seq 1 60); do [ -z "$(qstat -u '*' 2>/dev/null)" ] && break; sleep 1; done
mkdir -p $OUT/extra
qstat -xml -j '*' > $OUT/extra/jobs_empty.xml 2>&1; echo "rc=$?" >> $OUT/extra/rcs
qstat -xml -j '*' 2>/dev/null > $OUT/extra/jobs_empty_stdout.xml
qconf -dstree >/dev/null 2>&1
/usr/lib/gridengine/sge_share_mon -c 1 -h -n > $OUT/extra/share_mon_notree 2>&1; echo "rc=$?" >> $OUT/extra/rcs
qconf -su dept_big > $OUT/extra/dept_big
qconf -ssconf > $OUT/extra/sched_conf_params
# leave the cell as begin leaves it
begin reader_cleanup
qconf -sstree >/dev/null 2>&1 && echo "tree still there"
rm -rf $OUT/reader_cleanup
