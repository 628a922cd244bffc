#!/usr/bin/env bash
# Probe (not kept): each work group of the merged element, tile and mma kernels prefetches into L2 (sm_90
# `cp.async.bulk.prefetch.L2.global`) the state and element data of the group DG_PROBE_L2_AHEAD elements ahead, so
# that a later group's loads hit L2. Needs gpu/l2probe.tar.xz (a dg built with scripts/probe/l2_prefetch.patch
# applied) and gpu/dbprobe/ (the shipped H200 file with its nodal-triangle keys moved to that binary's fingerprint);
# `dg bench maxwell2d --orders 1..8 --precision both` of the shipped winners for each distance in RUNS (tag:A:op).
# usage: OUT=dir RUNS="u0:0:unit u64k:65536:unit u16k:16384:unit" bash scripts/probe/l2_prefetch.sh
set -u
cd "$(dirname "$0")/.."
mkdir -p gpu/probe && tar -C gpu/probe -xJf gpu/l2probe.tar.xz
DG=gpu/probe/dg; D="--device cuda:0"; R=$OUT/r; mkdir -p $R
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
DG_PROBE_L2_AHEAD=65536 $DG emit maxwell2d --order 4 --variant elem/wg128/seq1/matrix-local/merged/node-major/f32/mixed --target cuda > $R/e.cu
(cd $R && nvcc -cubin -arch=sm_90 -o /tmp/e.cubin --resource-usage e.cu 2>&1 | grep -E "error|registers" | head -5)
run() { # tag A op precision orders
  rm -rf /tmp/db-$1; mkdir -p /tmp/db-$1; cp gpu/dbprobe/*.json /tmp/db-$1/
  local t0=$(date +%s)
  DG_PROBE_L2_AHEAD=$2 DG_CACHE_DIR=$(mktemp -d) timeout 240 $DG --db /tmp/db-$1 bench maxwell2d --orders $5 --precision $4 --operation $3 $D > $R/bench-$1.txt 2> $R/bench-$1.err
  echo "== $1 A=$2 $3 rc $? $(( $(date +%s) - t0 )) s"; awk 'NR>1{printf "%s %s %s %s %s %s\n",$1,$2,$4,$5,$8,substr($3,1,14)}' $R/bench-$1.txt; tail -2 $R/bench-$1.err
}
for spec in ${RUNS:-u0:0:unit u64k:65536:unit}; do
  IFS=: read -r tag a op <<< "$spec"; run $tag $a $op both 1..8
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r
