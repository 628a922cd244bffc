#!/usr/bin/env bash
# The tf32 mirror kernel's face work from two constant tables (F: each face representative's face nodes packed as
# j | face << 6 | node << 8, the neighbour's node for each link's face and reversal in 8-bit fields of a 64-bit
# word; no division by N + 1, no dependent table read, no closed form of the neighbour's face node) and with its
# store's trips unrolled as well (FS). Each verified (maxwell2d mixed N = 1..8 in groups of 16, euler2d 1..5,
# acoustics2d 1..6, mhd2d 1..2, the planted bug), then `dg bench` at N = 8 in three rounds beside the submitted
# kernel (DG) under launch bounds for 9 groups and `balanced4`. Packing after each step.
# Usage: DG=path/to/dg F=path/to/dg FS=path/to/dg OUT=dir bash scripts/probe/mirror_tf32_face_tables.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; MAIN=$DG; OUT=${OUT:-/tmp/mirror_tf32_face_tables}
F=${F:?}; FS=${FS:?}
probe_start
verify_probes "$F" "$FS"
for round in 1 2 3; do
  echo "--- round $round" >> "$R/bench.txt"
  DG=$MAIN; bench 8 "$B9"
  echo "--- F" >> "$R/bench.txt"; DG=$F; bench 8 "$B9"
  echo "--- FS" >> "$R/bench.txt"; DG=$FS; bench 8 "$B9"
  [ $round = 1 ] && { bench 8 "$M16/f32/mixed"; bench 5..7 "$M16/f32/mixed"; }
  echo "--- main" >> "$R/bench.txt"; DG=$MAIN; bench 8 "$B4"
  pack
done
for alt in "$F" "$FS"; do
  echo "--- $alt:" | tee -a "$R/check.txt"; DG=$alt
  verify_laws "$M16" "euler2d 1..5" "acoustics2d 1..6 /mixed" "mhd2d 1..2"
done
pack
date -u | tee -a "$R/date"
