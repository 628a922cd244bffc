#!/usr/bin/env bash
# The tf32 mirror kernel's global accesses of four consecutive elements (`mirror_tf32_quad_access.patch`; one 16-byte
# access each, the tiled layout's rows holding 32 consecutive elements): its representatives' states and metric terms
# loaded so (one representative and four elements a work item) and its results stored so (one trip of the store
# instead of four, the step's test outside it). F verified (maxwell2d mixed N = 1..8 under launch bounds for 9
# groups), then `dg bench` at N = 8 in two rounds beside the submitted kernel (DG) and `balanced4` (once also F under
# bounds for 10 groups, and Q if given: a build with part of the change), each build's executed instructions (Nsight
# Compute, one launch); F verified on the other laws and with two planted bugs; then, with F, maxwell2d's f32
# right-hand side and stage at N = 8 tuned into $DB, `dg bench --precision f32` with them and one timed tuning of N =
# 8. Packing after each step.
# F: `git apply scripts/probe/mirror_tf32_quad_access.patch`, `cargo build --release`; the patch moves the nodal-tri
# fingerprint (only `mmamirrorb9`'s kernels differ: `scripts/same_kernels.sh`, 2026-12-07, 8 of 10,460), so
# `scripts/rekey_db.py OLD NEW tuning-db/*.json` and a second build make the shipped winners the stored ones.
# Usage: [TUNE=0] [Q=path/to/dg] DG=path/to/dg F=path/to/dg DB=dir OUT=dir bash scripts/probe/quad_access.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; MAIN=$DG; OUT=${OUT:-/tmp/quad_access}
Q=${Q:-}; F=${F:?}; DB=${DB:?}
probe_start
echo "--- $F:" | tee -a "$R/check.txt"; DG=$F; verify_maxwell "$B9"; pack
# (round 1 also times F under bounds for 10 groups, and Q where given)
f_and_q() {
  bench 8 "${B9/mmamirrorb9/mmamirrorb10}"
  [ -n "$Q" ] && { echo "--- Q" >> "$R/bench.txt"; DG=$Q; bench 8 "$B9"; }
  return 0
}
ab_rounds f_and_q
# executed instructions and DRAM bytes of one timed launch at 16M DOFs (the 21st: past the verification's), each build
ncu_launch DG "$MAIN" "$B9"; ncu_launch F "$F" "$B9"
pack
echo "--- $F:" | tee -a "$R/check.txt"; DG=$F
verify_laws "$M16" "euler2d 1..5" "acoustics2d 1..6 /mixed" "mhd2d 1..2"
"$DG" verify maxwell2d --order 8 --variant "$B9" $D --plant-bug stage-register-dropped > "$R/planted-stage.txt" 2>&1
echo "planted stage-register-dropped: exit $? (must be non-zero)" | tee -a "$R/check.txt"
pack
# F's tuning (as scripts/probe/tune_tf32_b9.sh; TUNE=0 stops here)
[ "${TUNE:-1}" = 0 ] && { date -u | tee -a "$R/date"; exit 0; }
mkdir -p "$DB"
DG=$F
tune_into rhs8-f32 maxwell2d --orders 8 --precision f32
tune_into stage8-f32 maxwell2d --orders 8 --precision f32 --operation stage
timeout 90 "$F" --db "$DB" bench maxwell2d --orders 1..8 --precision f32 $D > "$R/bench-f32.txt" 2>&1
echo "bench rc $?"; grep -E "^ *[0-9] " "$R/bench-f32.txt"
timed_tuning a
date -u | tee -a "$R/date"; pack_db
