#!/usr/bin/env bash
# The tf32 mirror kernel storing from its registers (issue 14): the antisymmetric rows' warps put their accumulators in
# local memory, the symmetric rows' warps store y_i = sym + anti and y_P(i) = sym − anti from theirs (no results' rows
# in local memory, no store loop). F (the build with it) verified: maxwell2d mixed N = 1..8 under launch bounds for 9
# groups, in groups of 32 (two halves), without bounds; once under compute-sanitizer (memcheck, N = 8); euler2d,
# acoustics2d, mhd2d and two planted bugs. Then `dg bench` at N = 8 in two rounds beside DG (the binary before it) and
# `balanced4`, each build's executed instructions (Nsight Compute, one launch), and with F (TUNE=0 stops before it)
# the nine f32 entries whose list holds `mmamirrorb9` tuned into $DB: maxwell2d's right-hand side N = 1..8 and its
# stage at N = 8; `dg bench --precision f32` with them; two timed tunings of N = 8 in fresh processes and one
# untruncated. Packing after each step.
# F: `git apply scripts/probe/mirror_tf32_direct_store.patch`, its shipped entries re-keyed (`scripts/same_kernels.sh`
# against the binary before it: only the 8 tf32 `mmamirrorb9` kernels of the lists differ, 2026-12-08;
# `scripts/rekey_db.py`), `cargo build --release`.
# Usage: [TUNE=0] DG=path/to/dg F=path/to/dg DB=dir OUT=dir bash scripts/probe/tf32_direct_store.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; MAIN=$DG; OUT=${OUT:-/tmp/direct_store}; F=${F:?}; DB=${DB:?}
probe_start
DG=$F
for spec in "$B9" "$M32/f32/mixed" "$M16/f32/mixed"; do echo "--- F $spec:" | tee -a "$R/check.txt"; verify_maxwell "$spec"; done
timeout 180 compute-sanitizer --tool memcheck --error-exitcode 9 "$F" verify maxwell2d --order 8 --variant "$B9" $D \
  > "$R/memcheck.txt" 2>&1
echo "memcheck F b9 N = 8: exit $? ($(grep -c 'Invalid' "$R/memcheck.txt") invalid accesses)" | tee -a "$R/check.txt"
pack
# (round 1 also times F under bounds for 10 and 8 groups and in groups of 32)
f_bounds() { bench 8 "${B9/mmamirrorb9/mmamirrorb10}"; bench 8 "${B9/mmamirrorb9/mmamirrorb8}"; bench 8 "$M32/f32/mixed"; }
ab_rounds f_bounds
ncu_launch DG "$MAIN" "$B9"; ncu_launch F "$F" "$B9"
pack
echo "--- F laws:" | tee -a "$R/check.txt"; DG=$F
verify_laws "$M16" "euler2d 1..5" "acoustics2d 1..6 /mixed" "mhd2d 1..2"
"$DG" verify mhd2d --order 1..2 --variant "$M32/f32" $D 2>&1 | tail -2 | tee -a "$R/check.txt"
"$DG" verify maxwell2d --order 8 --variant "$B9" $D --plant-bug stage-register-dropped > "$R/planted-stage.txt" 2>&1
echo "planted stage-register-dropped: exit $? (must be non-zero)" | tee -a "$R/check.txt"
"$DG" verify mhd2d --order 2 --variant "$M16/f32" $D --plant-bug source-dropped > "$R/planted-source.txt" 2>&1
echo "planted source-dropped (mhd2d N = 2): exit $? (must be non-zero)" | tee -a "$R/check.txt"
pack
[ "${TUNE:-1}" = 0 ] && { date -u | tee -a "$R/date"; exit 0; }
tune_b9_keys
