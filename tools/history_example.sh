#!/usr/bin/env bash
# The README's history picture: 24 hourly cycles of the bundled example pool, bob's
# factor raised after 8 hours, then `condorlite history --plot`. Needs condorlite[plot].
#   bash tools/history_example.sh [STATE_DIR] [PNG]
set -euo pipefail
cd "$(dirname "$0")/.."
state="${1:-/tmp/condorlite-history-demo}"
png="${2:-docs/images/history.png}"
rm -rf "$state"
t0=1760000000
for i in $(seq 0 23); do
  if [ "$i" -eq 8 ]; then
    condorlite setfactor bob@example.org 5000 --state-dir "$state" --now $((t0 + i * 3600 - 60)) >/dev/null
  fi
  condorlite negotiate --config examples/condorlite.toml --state-dir "$state" \
    --now $((t0 + i * 3600)) --summary >/dev/null
done
condorlite history --state-dir "$state" --plot "$png" --no-chart
