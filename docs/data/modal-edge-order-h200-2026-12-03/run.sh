#!/usr/bin/env bash
# The modal edges grouped by their (left, right) face indices: the issue's vortex with the shipped winners, the
# committed binary (old) and the probe (new) alternating, then `dg bench` of the modal winners with each.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p gpu/old gpu/new && tar -C gpu/old -xJf gpu/recheck.tar.xz && tar -C gpu/new -xJf gpu/edgeorder.tar.xz
R=$OUT/r; mkdir -p $R
export DG_CACHE_DIR=$(mktemp -d)
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
source scripts/probe/vortex_run.sh
for p in 4 3 2; do for P in f64 f32; do
  for tag in old new old new; do BIN=gpu/$tag/dg vortex $p $P $tag-$RANDOM; done
done; done
for tag in old new; do
  timeout 200 gpu/$tag/dg bench euler2d --formulation modal-tri --flux hllc_flux --orders 1..5 --precision both --device cuda:0 > $R/bench-$tag.txt 2> $R/bench-$tag.err
  echo "bench $tag rc $?"; cut -c1-140 $R/bench-$tag.txt | head -14
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
