#!/usr/bin/env bash
# the committed binary (a2cdc5f): compute-sanitizer on every maxwell2d nodal-tri winner of the shipped H200 file
# (scripts/probe/sanitize_winners.sh, ONLY=maxwell2d), then every valid nodal-tri variant of acoustics2d (materials,
# three boundary conditions) and euler2d verified on the GPU
set -u
cd "$(dirname "$0")/.."
tar -C gpu -xJf gpu/ship-commit.tar.xz
date -u +%FT%TZ
DG=gpu/dg OUT=$OUT/san ONLY=maxwell2d LIMIT=120 JOBS=8 timeout 330 bash scripts/probe/sanitize_winners.sh 2>&1 | tail -8
R=$OUT/verify; mkdir -p $R
for job in "acoustics2d 1..4 160" "euler2d --formulation nodal-tri 1..3 100"; do
  set -- $job; lim=${@: -1}; ord=${@: -2:1}; law=${*:1:$#-2}; t=$(echo $law | cut -d' ' -f1); t0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout $lim gpu/dg verify $law --order $ord --precision both --device cuda:0 > $R/verify-$t.txt 2>&1
  echo "verify $law --order $ord: rc $? ($(( $(date +%s) - t0 )) s) $(tail -1 $R/verify-$t.txt | cut -c1-160)"
done
(cd $OUT && tar -czf verify.tgz verify)
date -u +%FT%TZ
