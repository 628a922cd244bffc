#!/usr/bin/env bash
# After the f32 merged element-per-thread kernels read each face's packed link instead of vmap_p (2026-12-03): the
# f32 nodal-triangle entries re-tuned into $DB (a copy of the shipped database) — maxwell2d's right-hand side and
# stage at N = 1..8, euler2d's right-hand side (both fluxes) at N = 1..4 —, the changed kernels verified on the GPU
# (and a planted bug that verification must catch), then maxwell2d benched on $DB (both operations, both
# precisions). Results packed into $OUT/results.tgz.
# usage: DG=gpu/dg DB=dir OUT=dir bash scripts/probe/elem_links_retune.sh
set -u
DG=${DG:-gpu/dg}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
[ -d "$DB" ] || cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
nodal_retune f32
for V in elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed elem/wg32/seq1/matrix-local/merged/node-major/f32; do
  timeout 100 "$DG" verify maxwell2d --order 1..5 --precision f32 --variant $V $D > "$R/verify-$(echo $V | tr / _).txt" 2>&1
  echo "verify $V: rc $? $(tail -1 "$R/verify-$(echo $V | tr / _).txt")"
done
V=elem/wg32/seq1/matrix-local/merged/node-major/f32
timeout 100 "$DG" verify euler2d --formulation nodal-tri --order 1..4 --precision f32 --variant $V $D > "$R/verify-euler.txt" 2>&1; echo "verify euler2d: rc $? $(tail -1 "$R/verify-euler.txt")"
timeout 60 "$DG" verify maxwell2d --order 2..3 --precision f32 --variant $V --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")"
nodal_bench both
cp "$DB"/*h200*.json "$R/" 2>/dev/null || cp "$DB"/*.json "$R/"
(cd "$OUT" && tar -czf results.tgz r)
