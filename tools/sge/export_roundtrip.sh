#!/usr/bin/env bash
# Records tests/data/sge_export: a cell with a project, users, a department and a share
# tree is dumped ("before"), `condorlite export sge` writes it changed by CHANGES, the
# real qconf loads the files (apply.sh), and the cell is dumped again ("after").
# tests/cli/test_export.py then holds read_cell(after) equal to "before" changed by
# the same CHANGES: the real qconf accepted every exported file as written.
#   sudo bash tools/sge/export_roundtrip.sh OUTDIR      (the cell of tools/sge/setup.sh running)
set -u
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/lib.sh"
OUT="${1:?usage: export_roundtrip.sh OUTDIR}"
begin sge_export
mkprj p1 40 0
mkuser alice 100 0
mkuser bob 50 0
mkdept dept_a 60 0 alice,bob
stree "$here/../../tests/data/sge_export/tree.txt"
snap before
args=()
while IFS= read -r change; do args+=(--what-if "$change"); done < "$here/export_changes.txt"
condorlite export sge "$SCN/exported" --cell "$SCN/before" "${args[@]}" || exit 3
sh "$SCN/exported/apply.sh" || exit 4
snap after
