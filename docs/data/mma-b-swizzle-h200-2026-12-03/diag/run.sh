#!/bin/bash
# Nsight Compute, full set, on one 16M-DOF timing launch of the f64 N = 8 winner (mma16) and the f32 N = 6 winner (tile4 mixed)
set -u
mkdir -p gpu/c && tar -C gpu/c -xJf gpu/check.tar.xz
DG=gpu/c/dg; R=$OUT/r; mkdir -p $R; nvidia-smi -L; ncu --version | tail -1; date -u +%FT%TZ | tee $R/date
run() { # tag order precision regex skip
  DG_CACHE_DIR=$(mktemp -d) timeout 240 ncu --launch-skip $5 --launch-count 1 -k regex:$4 --set full -o $R/$1 \
    $DG bench maxwell2d --orders $2 --precision $3 --device cuda:0 > $R/$1.log 2>&1
  echo "$1 rc $?"
  ncu -i $R/$1.ncu-rep --page details --print-details all > $R/$1-details.txt 2>&1
  ncu -i $R/$1.ncu-rep --page raw --csv > $R/$1-raw.csv 2>&1
  ncu -i $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1-sass.csv 2>&1 || echo "no sass page"
  grep -E "Duration|L1/TEX Cache Throughput|Wavefronts|Bank|Shared|Excessive" $R/$1-details.txt | head -40
}
run n8f64 8 f64 mma 9
run n6f32 6 f32 tile 9
rm -f $R/*.ncu-rep.bak
cd $OUT && tar -czf r.tgz r && rm -rf r
