#!/bin/bash
# Reasons a job can never run in a queue (schedd_job_info true): q_acl (seq_no 5) takes
# only the userset acl_a (alice), q_prj only project p1, all.q has h_rt 0:5:0; all three
# enabled. bob (no -P) cannot use q_acl nor q_prj; -l h_rt=600 exceeds all.q's and
# q_acl's limit; -l arch=none matches nothing; -P p1 may use q_prj.
. "$(dirname "$0")/../lib.sh"
begin d11_static_reasons
mkprj p1 0 0
printf 'name acl_a\ntype ACL\nfshare 0\noticket 0\nentries alice\n' > $TMPD/acl_a
mgr qconf -Au $TMPD/acl_a
mgr qconf -mattr queue h_rt 0:5:0 all.q
for q in q_acl:user_lists:acl_a q_prj:projects:p1; do
  IFS=: read name key value <<< "$q"
  sed -e "s/^qname .*/qname $name/" -e "s/^hostlist .*/hostlist $HOST/" \
      -e "s/^$key .*/$key $value/" -e "s/^seq_no .*/seq_no 5/" \
      $HERE_SGE/default_queue_all.q.txt > $TMPD/$name
  mgr qconf -Aq $TMPD/$name
  mgr qmod -d $name
done
sconf schedd_job_info true queue_sort_method seqno
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
ids="$(subs bob 60 -p 0 -l h_rt=600)"
ids="$ids $(subs carol 60 -p -1 -l arch=none)"
ids="$ids $(subs bob 60 -p -2 -P p1 -l h_rt=600)"
ids="$ids $(subs alice 60 -p -3 -l h_rt=600)"
ids="$ids $(subs carol 60 -p -4 -q q_acl)"
mgr qmod -e all.q q_acl q_prj
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
