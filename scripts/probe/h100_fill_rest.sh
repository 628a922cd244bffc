#!/usr/bin/env bash
# The keys the H100 file lacks after 2026-12-05 18:05 that the H200 file holds: euler2d modal-tri p = 5 (HLLC) and
# p = 1..5 (its first flux), euler2d nodal-tri N = 1..4 with both fluxes, mhd2d finite volumes, maxwell3d and euler3d
# on hexahedra — each tuned (exhaustive, every candidate verified first) into $DB while DEADLINE seconds allow; the
# database copied to $OUT/db after every tuning.
# (2026-12-05: the modal tunings take 60–130 s per order in both precisions; a 320 s deadline reached modal p = 5
# and p = 1, 2 only. Start with the keys still missing: modal numerical_flux p = 3..5, then the nodal and the rest.)
# usage: DG=path/to/dg DB=<empty dir> OUT=dir DEADLINE=330 bash scripts/probe/h100_fill_rest.sh
set -u
DG=${DG:?}; DB=${DB:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R" "$DB"; DEADLINE=${DEADLINE:-330}; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
tune() {
  local label=$1; shift
  local l=$(( DEADLINE - SECONDS )); [ "$l" -gt 20 ] || { echo "$label: skipped, $l s left"; return; }
  local t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout "$l" "$DG" --db "$DB" autotune "$@" $D > "$R/tune-$label.txt" 2> "$R/tune-$label.err"
  echo "tune $label rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner" "$R/tune-$label.txt" | cut -c1-160
  rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db)
}
tune modal-hllc-5 euler2d --formulation modal-tri --flux hllc_flux --orders 5 --precision both
tune modal-first euler2d --formulation modal-tri --orders 1..5 --precision both
tune nodal-euler-first euler2d --formulation nodal-tri --orders 1..4 --precision both
tune nodal-euler-hllc euler2d --formulation nodal-tri --flux hllc_flux --orders 1..4 --precision both
tune fv-mhd mhd2d --formulation fv --orders 1..2 --precision both
tune hex-maxwell maxwell3d --formulation hex --orders 1..6 --precision both
tune hex-euler euler3d --formulation hex --flux hllc_flux --orders 1..4 --precision both
date -u +%FT%TZ | tee -a "$R/date"
