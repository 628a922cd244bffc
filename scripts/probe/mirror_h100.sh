#!/usr/bin/env bash
# The mirror tiles (`mirror<t>`, the operator folded by the triangle's mirror symmetry) on a CUDA device: every
# listed mirror variant verified on CUDA at N = 1..8 (and a planted bug caught), maxwell2d's right-hand side tuned at
# N = 5..8 in both precisions into an empty database (every candidate, tiles and tensor-core kernels included,
# verified and timed in one process), `dg bench` with that database, and each mirror variant benched alone.
# usage: DG=path/to/dg OUT=dir [ORDERS=5..8] bash scripts/probe/mirror_h100.sh   (results in $OUT/results.tgz)
set -u
DG=${DG:?}; OUT=${OUT:?}; ORDERS=${ORDERS:-5..8}; R=$OUT/r; DB=$OUT/db; mkdir -p "$R" "$DB"; D="--device cuda:0"
pack() { (cd "$OUT" && tar -czf results.tgz r db); }
nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
date -u +%FT%TZ | tee -a "$R/date"
V32="mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed mirror6/wg32/seq1/matrix-local/merged/tiled/f32/mixed mirror4/wg32/seq1/field-local/merged/tiled/f32/mixed mirror6/wg32/seq1/field-local/merged/tiled/f32/mixed"
V64=${V32//f32/f64}
for v in $V32 $V64; do
  echo "verify $v: $(timeout 60 "$DG" verify maxwell2d --order 1..8 --variant "$v" $D 2>&1 | tail -1)"
done | tee "$R/verify.txt"
echo "planted: $(timeout 60 "$DG" verify maxwell2d --order 6 --variant mirror4/wg32/seq1/matrix-local/merged/tiled/f32/mixed --plant-bug skip-last-group $D 2>&1 | tail -2 | tr '\n' ' ')" | tee -a "$R/verify.txt"
pack
for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 200 "$DG" --db "$DB" autotune maxwell2d --orders "$ORDERS" --precision $p $D > "$R/tune-$p.txt" 2> "$R/tune-$p.err"
  echo "tune $p rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner" "$R/tune-$p.txt" | cut -c1-190
  pack
done
for p in f32 f64; do
  timeout 90 "$DG" --db "$DB" bench maxwell2d --orders "$ORDERS" --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench $p rc $?"; cat "$R/bench-$p.txt"; pack
done
i=0
for v in $V32 $V64; do
  i=$((i + 1))
  timeout 60 "$DG" bench maxwell2d --orders "$ORDERS" --variant "$v" $D > "$R/bench-v$i.txt" 2> "$R/bench-v$i.err"
  echo "bench $v rc $?"; grep -E "^ *[0-9] " "$R/bench-v$i.txt"; pack
done
date -u +%FT%TZ | tee -a "$R/date"; pack
