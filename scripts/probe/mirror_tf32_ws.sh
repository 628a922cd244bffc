#!/usr/bin/env bash
# The tf32 mirror kernel with its warps specialised (issue 14; not yet run on a GPU, 2026-12-08): W is dg built with
# scripts/probe/mirror_tf32_ws.patch; under DG_PROBE_WS=1 its `mmamirror…/f32` kernel runs twice the work items of a
# group, the first half loading group after group (states, fluxes, jumps, folded inputs) into one of two buffers of
# local memory, the second half multiplying on the tensor cores and storing from the other (named barriers 1–5), in a
# persistent loop: over the groups g0 + GROUP_ID, + gridDim.x, … (the grid DG_PROBE_GRID work groups, 528 by default:
# four a multiprocessor of an H100), or with DG_PROBE_WS_DYNAMIC=1 each work group's next group claimed from a
# counter a trip ahead (barrier 6 among the loaders; the last work group to end resets the counter). Without
# DG_PROBE_WS, W's kernels are DG's (`dg emit` compared here, 2026-12-08).
# The barriers' protocol is modelled and checked by mirror_tf32_ws_barriers.py (random interleavings, 0..8 groups).
# ptxas here (NVRTC 12.9, sm_90, `scripts/sass_local.py --sass`, maxwell2d N = 8 mixed, 33,792 bytes of local memory):
# under bounds for 4 groups (256 work items each) 64 registers and an 8-byte spill (claimed: 12 bytes), 1,920 static
# SASS instructions (`mmamirrorb9`: 56 registers, 1,712); for 3 groups 80 registers; for 5 groups 48 and a 288-byte
# spill.
# PHASE=check (one device call): maxwell2d mixed N = 1..8 under bounds for 4 groups in grids of 7 (eight groups a work
# group at the verification's 874 elements) and 528, strided and claimed; groups of 32 (two halves: at N = 8 two
# buffers of 67,584 bytes, over 48 KiB of static local memory, so refused there, said), without bounds, flux-first;
# euler2d (N = 5: 49,152 bytes, the limit), acoustics2d, mhd2d (55,296 bytes: refused, said); planted bugs
# (skip-last-group, last-element-unwritten; with claimed groups the first may pass: the other work groups claim the
# skipped one's groups); compute-sanitizer memcheck at N = 8, racecheck and synccheck at N = 3,
# both ways of taking groups. PHASE=bench (another call): `dg bench` at N = 8 beside DG's `mmamirrorb9` and
# `balanced4` in two rounds: W under bounds for 3, 4, 5 groups (grids of 396, 528, 660: one resident wave on an H100's
# 132 multiprocessors), strided and claimed, and strided under 4 in grids of 264, 396, 1,056; Nsight Compute on one
# launch of each kind. PHASE=all: both.
# W: `git apply scripts/probe/mirror_tf32_ws.patch`, `cargo build --release`, strip (gpu/ws.tar.xz here held DG and
# W of 2026-12-08, with this script and mirror_probe_lib.sh; the device takes it by carry).
# Usage: [PHASE=check|bench|all] DG=path/to/dg W=path/to/dg-with-the-patch OUT=dir bash scripts/probe/mirror_tf32_ws.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?DG=path to the dg binary}; MAIN=$DG; OUT=${OUT:-/tmp/ws_probe}; W=${W:?W=path to the probe build}
PHASE=${PHASE:-all}
probe_start
WB4=${M16/mmamirror/mmamirrorb4}/f32/mixed
export DG_PROBE_WS=1
DG=$W
if [ "$PHASE" != bench ]; then
  for dynamic in 0 1; do
    export DG_PROBE_WS_DYNAMIC=$dynamic
    for grid in 7 528; do
      echo "--- W claimed=$dynamic grid $grid $WB4:" | tee -a "$R/check.txt"; DG_PROBE_GRID=$grid verify_maxwell "$WB4"
    done
  done
  export DG_PROBE_WS_DYNAMIC=0
  for spec in "${M32/mmamirror/mmamirrorb4}/f32/mixed" "$M16/f32/mixed" "${M16/mmamirror/mmamirrorb4}/f32"; do
    echo "--- W grid 5 $spec:" | tee -a "$R/check.txt"; DG_PROBE_GRID=5 verify_maxwell "$spec"
  done
  pack
  for dynamic in 0 1; do
    export DG_PROBE_WS_DYNAMIC=$dynamic
    echo "--- W laws (claimed=$dynamic, grid 7):" | tee -a "$R/check.txt"
    DG_PROBE_GRID=7 verify_laws "${M16/mmamirror/mmamirrorb4}" "euler2d 1..5" "acoustics2d 1..6 /mixed" "mhd2d 1..2"
    DG_PROBE_GRID=7 "$W" verify maxwell2d --order 8 --variant "$WB4" $D --plant-bug last-element-unwritten \
      > "$R/planted-last-$dynamic.txt" 2>&1
    echo "planted last-element-unwritten (claimed=$dynamic): exit $? (must be non-zero)" | tee -a "$R/check.txt"
    for job in "memcheck 8" "racecheck 3" "synccheck 3"; do
      set -- $job
      DG_PROBE_GRID=7 timeout 150 compute-sanitizer --tool $1 --error-exitcode 9 "$W" verify maxwell2d --order $2 \
        --variant "$WB4" $D > "$R/sanitizer-$1-$dynamic.txt" 2>&1
      rc=$?; summary=$(grep -m1 'ERROR SUMMARY' "$R/sanitizer-$1-$dynamic.txt")
      echo "$1 W b4 N = $2 claimed=$dynamic grid 7: exit $rc ($summary)" | tee -a "$R/check.txt"
    done
    pack
  done
fi
if [ "$PHASE" != check ]; then
  for round in 1 2; do
    echo "--- round $round" | tee -a "$R/bench.txt"
    unset DG_PROBE_WS; DG=$MAIN; bench 8 "$B9"; bench 8 "$B4"
    export DG_PROBE_WS=1; DG=$W
    # (a grid of the work groups resident at once: 132 multiprocessors × the bounds' groups)
    for dynamic in 0 1; do
      echo "--- W claimed=$dynamic" | tee -a "$R/bench.txt"
      for b in 4 3 5; do
        DG_PROBE_WS_DYNAMIC=$dynamic DG_PROBE_GRID=$(( 132 * b )) bench 8 "${M16/mmamirror/mmamirrorb$b}/f32/mixed"
      done
    done
    for grid in 264 396 1056; do
      echo "--- W strided grid $grid" | tee -a "$R/bench.txt"; DG_PROBE_WS_DYNAMIC=0 DG_PROBE_GRID=$grid bench 8 "$WB4"
    done
    pack
  done
  DG_PROBE_WS_DYNAMIC=0 ncu_launch W "$W" "$WB4"; DG_PROBE_WS_DYNAMIC=1 ncu_launch W-claimed "$W" "$WB4"
  unset DG_PROBE_WS; ncu_launch DG "$MAIN" "$B9"
fi
date -u | tee -a "$R/date"; pack
