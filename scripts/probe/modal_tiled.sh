#!/usr/bin/env bash
# The modal `tiled` layout against mode-major on a GPU (built 2026-12-04, valid on request, not yet timed): the
# shipped winner of each (p, precision) of the issue's vortex and its tiled twin (the same spec with `/tiled/`),
# verified first, then the vortex run alternating the two, twice; then `dg bench` of the stage at the tuner's size for
# the same pairs, and the tiled twin of p = 4 f64 under compute-sanitizer. Results in $OUT/r (a table on stdout).
# usage: DG=path/to/dg OUT=dir [ORDERS="3 4"] [PRECISIONS="f32 f64"] bash scripts/probe/modal_tiled.sh
set -u
DG=${DG:?}; R=$OUT/r; mkdir -p "$R"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
source scripts/probe/vortex_run.sh
for P in ${PRECISIONS:-f32 f64}; do for p in ${ORDERS:-3 4}; do
  # the winner the run takes (from the compiled-in database), read from a short run's report
  W=$("$DG" run euler-isentropic-vortex --order $p --nx 60 --t-end 1e-3 --precision $P --device cuda:0 --json 2>/dev/null \
      | python3 -c "import json,sys; print(json.load(sys.stdin)['device']['choice']['variant'])")
  T=$(echo "$W" | sed -E 's#/(mode-major|elem-major)/#/tiled/#')
  [ "$W" = "$T" ] && { echo "p=$p $P: winner $W has no tiled twin"; continue; }
  for V in "$W" "$T"; do
    timeout 120 "$DG" verify euler2d --formulation modal-tri --flux hllc_flux --order $p --variant "$V" --device cuda:0 \
      > "$R/verify-$P-$p-$(echo $V | tr / _).txt" 2>&1; echo "verify $V: rc $?"
  done
  for pass in 1 2; do vortex $p $P "mode-major-$pass" "$W"; vortex $p $P "tiled-$pass" "$T"; done
  for V in "$W" "$T"; do
    timeout 120 "$DG" bench euler2d --formulation modal-tri --flux hllc_flux --orders $p --variant "$V" --device cuda:0 \
      2>&1 | tail -3 | tee "$R/bench-$P-$p-$(echo $V | tr / _).txt"
  done
done; done
V=$("$DG" run euler-isentropic-vortex --order 4 --nx 60 --t-end 1e-3 --precision f64 --device cuda:0 --json 2>/dev/null \
    | python3 -c "import json,sys; print(json.load(sys.stdin)['device']['choice']['variant'])" | sed -E 's#/(mode-major|elem-major)/#/tiled/#')
timeout 240 compute-sanitizer --tool memcheck "$DG" verify euler2d --formulation modal-tri --flux hllc_flux --order 4 \
  --variant "$V" --device cuda:0 > "$R/sanitizer.txt" 2>&1; echo "sanitizer $V: rc $? $(grep -E 'ERROR SUMMARY' "$R/sanitizer.txt")"
date -u +%FT%TZ | tee -a "$R/date"
