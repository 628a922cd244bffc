#!/usr/bin/env bash
# Ship link-bc2: re-tune every nodal-triangle entry (maxwell2d N=1..8 unit+stage, euler2d N=1..4 both fluxes, f32+f64)
# with the new kernels, verify the changed kernels (incl. the CUDA-only mma ones) on the GPU.
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/new; tar -C gpu/new -xJf gpu/ship-bc2.tar.xz
OUT=${OUT:?}; date -u +%FT%TZ; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
OLD=gpu/new/dg NEW=gpu/new/dg RETUNE_PRECISION=both OUT=$OUT PARTS="retune" bash scripts/probe/elem_lean_faces.sh 2>&1 | grep -v "^    " | cut -c1-200
R=$OUT/rt
for spec in "maxwell2d f64 mma/wg8/seq1/field-local/merged/node-major/f64" "acoustics2d f64 mma/wg8/seq2/matrix-local/merged/node-major/f64" \
            "euler2d --formulation nodal-tri f64 mma16/wg8/seq1/field-local/merged/node-major/f64" "maxwell2d f32 mma/wg16/seq1/field-local/merged/node-major/f32"; do
  set -- $spec; v=${@: -1}; p=${@: -2:1}; law=${*:1:$#-2}; t=$(echo $law | cut -d' ' -f1)
  timeout 60 gpu/new/dg verify $law --order 2..5 --precision $p --variant $v --device cuda:0 > "$R/verify-mma-$t-$p.txt" 2>&1
  echo "verify $law $v: rc $? $(tail -1 $R/verify-mma-$t-$p.txt | cut -c1-150)"
done
(cd "$OUT" && tar -czf all.tgz rt db/*h200*.json)
date -u +%FT%TZ
