#!/bin/bash
# A/B: the f64 mma kernels' face normals and Fscale from the metric terms (no face_geo loads)
set -u
mkdir -p gpu/o gpu/n && tar -C gpu/o -xJf gpu/final.tar.xz && tar -C gpu/n -xJf gpu/normals.tar.xz
R=$OUT/r; mkdir -p $R; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
D="--device cuda:0"
V="timeout 60 env DG_CACHE_DIR=$(mktemp -d) gpu/n/dg verify"
for spec in mma16/wg8/seq1/field-local mma/wg8/seq1/field-local mma/wg16/seq2/matrix-local; do
  $V maxwell2d --order 1..8 --precision f64 --variant $spec/merged/node-major/f64 $D >> $R/verify.txt 2>&1; echo "verify $spec rc $?"
done
for flux in numerical_flux hllc_flux; do
  $V euler2d --formulation nodal-tri --flux $flux --order 1..4 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D >> $R/verify.txt 2>&1; echo "verify euler2d $flux rc $?"
done
timeout 60 gpu/n/dg run maxwell-cavity --order 6 --nx 100 --t-end 0.05 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D --json > $R/cavity.json 2> $R/cavity.err; echo "cavity rc $? (old binary: 1.4522487271882092e-14)"; grep -o "\"l2_error\": [^,]*" $R/cavity.json
date -u +%FT%TZ | tee -a $R/date
mkdir -p $OUT/u $OUT/s
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/u AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab unit"
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/s AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab stage"
for w in o n; do
  DG_CACHE_DIR=$(mktemp -d) timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:mma --metrics gpu__time_duration.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum gpu/$w/dg run maxwell-cavity --order 8 --nx 300 --t-end 1e-4 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D > $R/ncu-$w.txt 2>&1
  echo "ncu $w"; grep -E "gpu__time|wavefronts|throughput|inst_executed" $R/ncu-$w.txt
done
date -u +%FT%TZ | tee -a $R/date
cd $OUT && tar -czf all.tgz r u/r s/r && rm -rf r u s
