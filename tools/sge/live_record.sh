#!/bin/bash
# live_record.sh OUTDIR [N]
#
# Start the Grid Engine cell (setup.sh: installs it the first time; needs root) and record N
# (default 5) random scenarios (random_scenario.py) into OUTDIR/rnd_<seed>/t0/, in the
# layout of tests/data/sge. The generated scripts go to OUTDIR/scripts/.
# Seeds: SEED (default: the current epoch second) + 1 .. N; set SEED for a repeatable run.
# Each scenario runs under `flock /tmp/sge-cell.lock` (the cell may be shared).
# Exits nonzero, loudly, when the cell cannot start or a scenario records nothing.
set -u
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 OUTDIR [N]" >&2; exit 2; }
OUTDIR=$(mkdir -p "$1" && cd "$1" && pwd)
N=${2:-5}
SEED=${SEED:-$(date +%s)}
LOCK=${SGE_CELL_LOCK:-/tmp/sge-cell.lock}

loud() {
  echo "" >&2
  echo "######################################################################" >&2
  echo "### live_record.sh: $*" >&2
  echo "######################################################################" >&2
  echo "" >&2
}

[ "$(id -u)" = 0 ] || { loud "must run as root (it installs/starts the cell and submits as alice..erin)"; exit 1; }

touch "$LOCK" 2>/dev/null
if ! flock "$LOCK" bash "$HERE/setup.sh" > "$OUTDIR/setup.log" 2>&1; then
  loud "THE GRID ENGINE CELL DID NOT START (setup.sh failed); see $OUTDIR/setup.log"
  tail -30 "$OUTDIR/setup.log" >&2
  exit 1
fi
export SGE_ROOT=/var/lib/gridengine SGE_CELL=default
. $SGE_ROOT/$SGE_CELL/common/settings.sh 2>/dev/null
if ! qconf -sh >/dev/null 2>&1 || ! qconf -sel 2>/dev/null | grep -q .; then
  loud "THE GRID ENGINE CELL IS NOT REACHABLE after setup.sh (no qmaster or no exec host)"
  tail -30 "$OUTDIR/setup.log" >&2
  exit 1
fi

mkdir -p "$OUTDIR/scripts"
fail=0
for i in $(seq 1 "$N"); do
  s=$((SEED + i))
  script=$OUTDIR/scripts/rnd_$s.sh
  python3 "$HERE/random_scenario.py" --seed $s --kit "$HERE" -o "$script" || { loud "random_scenario.py failed for seed $s"; fail=1; continue; }
  echo "recording rnd_$s ($i/$N)"
  OUT=$OUTDIR flock "$LOCK" bash "$script" > "$OUTDIR/scripts/rnd_$s.log" 2>&1
  d=$OUTDIR/rnd_$s/t0
  if ! [ -s "$d/expected/qstat.xml" ] || ! grep -q '<job_list' "$d/expected/qstat.xml"; then
    loud "scenario rnd_$s recorded no jobs (see $OUTDIR/scripts/rnd_$s.log)"
    tail -20 "$OUTDIR/scripts/rnd_$s.log" >&2
    fail=1
  elif grep -q FAILED "$OUTDIR/scripts/rnd_$s.log"; then
    echo "warning: rnd_$s: a command failed (see $OUTDIR/scripts/rnd_$s.log)" >&2
    grep FAILED "$OUTDIR/scripts/rnd_$s.log" >&2
  fi
done
[ $fail = 0 ] || { loud "SOME RANDOM SCENARIOS FAILED TO RECORD"; exit 1; }
echo "recorded $N random scenarios into $OUTDIR (seeds $((SEED+1))..$((SEED+N)))"
