#!/usr/bin/env bash
# The tf32 mirror kernel's local-memory bank conflicts removed one at a time, at N = 8 in groups of 16: ALT4, a
# warp's half-warps writing the folded inputs' columns 4 apart (the face representatives' work items as before) and
# the store's half-warps reading rows 4 apart; ALT5, the store's rows alone. Each verified (maxwell2d mixed N = 1..8),
# then `dg bench --variant` in two rounds: DG's kernel, ALT4's, ALT5's, each with and without launch bounds for 9
# groups, and `balanced4`. Packing after each step.
# Usage: DG=path/to/dg ALT4=path/to/dg ALT5=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_conflicts.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; NEW=$DG; OUT=${OUT:-/tmp/mirror_tf32_conflicts}
probe_start
B4=balanced4/wg32/seq1/matrix-local/merged/tiled/f32/mixed
for alt in "${ALT4:?}" "${ALT5:?}"; do
  echo "--- $alt:" | tee -a "$R/check.txt"; DG=$alt; verify_maxwell "$M16/f32/mixed"
done
pack
for round in 1 2; do
  for dg in "$NEW" "$ALT4" "$ALT5"; do
    echo "--- $dg:" >> "$R/bench.txt"; DG=$dg
    bench 8 "$M16/f32/mixed"; bench 8 "${M16/mmamirror/mmamirrorb9}/f32/mixed"
  done
  DG=$NEW; bench 8 "$B4"
done
pack
date -u | tee -a "$R/date"
