#!/bin/bash
# A/B: the jobs' lane order (conflict-free stores into B) and mma16 matrix-local, against the committed binary
set -u
mkdir -p gpu/o gpu/n && tar -C gpu/o -xJf gpu/check.tar.xz && tar -C gpu/n -xJf gpu/new.tar.xz
R=$OUT/r; mkdir -p $R; nvidia-smi -L; date -u +%FT%TZ | tee $R/date
D="--device cuda:0"
for spec in mma16/wg8/seq1/field-local mma16/wg16/seq2/field-local mma/wg8/seq1/field-local mma/wg16/seq2/matrix-local mma/wg32/seq1/field-local; do
  for N in 1 4 7; do
    DG_CACHE_DIR=$(mktemp -d) timeout 60 gpu/n/dg verify maxwell2d --order $N --precision f64 --variant $spec/merged/node-major/f64 $D >> $R/verify.txt 2>&1; echo "verify $spec N=$N rc $?"
  done
done
for N in 2 4; do for spec in mma/wg8/seq1/field-local mma16/wg16/seq1/field-local; do
  DG_CACHE_DIR=$(mktemp -d) timeout 60 gpu/n/dg verify euler2d --order $N --precision f64 --variant $spec/merged/node-major/f64 $D >> $R/verify.txt 2>&1; echo "verify euler2d $spec N=$N rc $?"
done; done
DG_CACHE_DIR=$(mktemp -d) timeout 60 gpu/n/dg verify maxwell2d --order 7 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 --plant-bug skip-last-group $D >> $R/verify.txt 2>&1; echo "planted rc $? (must be 1)"
mkdir -p $OUT/u $OUT/s
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/u AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=unit TAG=unit PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab unit"
FOCUS='^mma' OLD=gpu/o/dg NEW=gpu/n/dg OUT=$OUT/s AB_ORDERS=5..8 AB_PRECISION=f64 AB_OPERATION=stage TAG=stage PARTS=ab bash scripts/probe/family_ab.sh 2>&1 | grep -E "^N=|ab stage"
for w in o n; do
  DG_CACHE_DIR=$(mktemp -d) timeout 120 ncu --launch-skip 3 --launch-count 1 -k regex:mma --metrics gpu__time_duration.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts.sum,l1tex__throughput.avg.pct_of_peak_sustained_elapsed gpu/$w/dg run maxwell-cavity --order 8 --nx 300 --t-end 1e-4 --precision f64 --variant mma16/wg8/seq1/field-local/merged/node-major/f64 $D > $R/ncu-$w.txt 2>&1
  echo "ncu $w"; grep -E "gpu__time|conflicts|wavefronts|throughput|  mma" $R/ncu-$w.txt
done
cd $OUT && tar -czf all.tgz r u/r s/r && rm -rf r u s
