#!/usr/bin/env bash
# Device-machine session, part 3: `dg run` on CUDA twice with the same key: the first run tunes (greedy, 30 s
# budget), stores the winner and fills the PTX cache; the second must hit the database (no benchmarking) and
# load its kernels from the cache.
set -u
DG=./gpu/dg
export DG_CACHE_DIR=/tmp/dg-cache
rm -rf "$DG_CACHE_DIR"
for i in 1 2; do
  /usr/bin/time -f "wall %e s" $DG run maxwell-cavity --order 4 --nx 64 --device cuda:0 2>&1 | grep -Ev "^\s*$"
  echo "PTX cache entries: $(ls "$DG_CACHE_DIR/kernels" 2>/dev/null | wc -l)"
done
$DG run maxwell-cavity --order 4 --nx 64 --device cpu | grep -E "L2|throughput"
