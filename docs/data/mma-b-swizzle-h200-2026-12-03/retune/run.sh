#!/bin/bash
set -u
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/new.tar.xz
export DG=gpu/bin/dg DB=gpu/db R=$OUT/r D="--device cuda:0"; mkdir -p $R
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
source scripts/probe/nodal_retune_lib.sh
nodal_retune f64
date -u +%FT%TZ | tee -a $R/date
nodal_bench both
$DG verify maxwell2d --order 1..8 --precision f64 --variant mma16/wg16/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
$DG verify maxwell2d --order 1..8 --precision f64 --variant mma/wg8/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
$DG verify euler2d --formulation nodal-tri --order 1..4 --precision f64 --variant mma/wg16/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
$DG verify euler2d --formulation nodal-tri --flux hllc_flux --order 2..4 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D 2>&1 | tail -1
$DG verify maxwell2d --order 5..8 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group $D > $R/planted.txt 2>&1; echo "planted rc $? (must be 1)"
timeout 60 $DG run maxwell-cavity --order 6 --nx 100 --t-end 0.05 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D --json > $R/cavity.json 2> $R/cavity.err; echo "cavity rc $? (old binary: 1.4522487271882092e-14)"; grep -o "\"l2_error\": [^,]*" $R/cavity.json
cp gpu/db/cuda-nvidia-h200-sm-90.json $R/
date -u +%FT%TZ | tee -a $R/date
cd $OUT && tar -czf r.tgz r && rm -rf r
