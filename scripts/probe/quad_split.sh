#!/usr/bin/env bash
# The two halves of `mirror_tf32_quad_access.patch` apart: Q (its 16-byte store only, `mirror_tf32_quad_store.patch`)
# and L (its 16-byte loads and the faces' links first only, `mirror_tf32_quad_loads.patch`), each verified (maxwell2d
# mixed N = 1..8 under launch bounds for 9 groups), then `dg bench` at N = 8 in two rounds beside the submitted
# kernel (DG) and the whole patch (F); with TUNE_Q, where Q's rounds are 1 % faster than DG's, Q's f32 tuning into
# TUNE_Q (scripts/probe/tune_tf32_b9.sh). Each patch applies to c3333d1; Q moves the nodal-tri fingerprint like the
# whole patch (only `mmamirrorb9`'s kernels differ).
# Usage: [TUNE_Q=dir] DG=… F=… Q=… L=… OUT=dir bash scripts/probe/quad_split.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?}; MAIN=$DG; F=${F:?}; Q=${Q:?}; L=${L:?}; OUT=${OUT:-/tmp/quad_split}
probe_start
for b in "Q $Q" "L $L"; do set -- $b; echo "--- $1:" | tee -a "$R/check.txt"; DG=$2; verify_maxwell "$B9"; done
pack
for round in 1 2; do
  for b in "DG $MAIN" "Q $Q" "L $L" "F $F"; do
    set -- $b; echo "--- round $round $1" >> "$R/bench.txt"; DG=$2
    echo -n "$round $1 "; bench 8 "$B9" | awk '{print $5, $9}'
  done
  pack
done
date -u | tee -a "$R/date"
# Q's tuning (scripts/probe/tune_tf32_b9.sh into $OUT/db) only where Q's two rounds beat DG's by 1 % or more
if [ -n "${TUNE_Q:-}" ]; then
  faster=$(awk '/^--- round/{b=$4} /^mmamirrorb9/{t[b]+=$5; n[b]++}
    END{print (t["Q"]/n["Q"] <= 0.99 * t["DG"]/n["DG"]) ? 1 : 0}' "$R/bench.txt")
  echo "Q at least 1 % faster than DG: $faster"
  [ "$faster" = 1 ] && DG=$Q DB=${TUNE_Q} OUT=$OUT bash "$(dirname "$0")/tune_tf32_b9.sh"
fi
