#!/usr/bin/env bash
# A search without a stored result for its key (#14): `dg autotune <law> --strategy greedy --budget 60` for a law
# the shipped H200 database has no entry of (a user's own law meets this on its first run), per binary, against an
# exhaustive tuning of the same key: the winner each finds and its time.
# usage: OUT=dir [DGS="gpu/dg gpu/dg-before"] [LAW=acoustics2d] [ORDERS="6 8"] [PRECISION=f32] bash scripts/probe/first_use.sh
set -u
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT"
LAW=${LAW:-acoustics2d}; P=${PRECISION:-f32}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
tune() { # name binary strategy order
  local o="$OUT/$1-N$4" t0=$(date +%s)
  DG_CACHE_DIR=$OUT/cache "$2" --db "$OUT/db-$1-N$4" autotune $LAW --orders $4 --precision $P --strategy $3 \
    --budget 60 --device cuda:0 > $o.txt 2> $o.err
  echo "$1 N=$4 rc $? ($(( $(date +%s) - t0 )) s): $(grep -o 'winner .*' $o.txt | cut -c1-160)"
}
for N in ${ORDERS:-6 8}; do
  for DG in ${DGS:-gpu/dg}; do tune greedy-$(basename $DG) $DG greedy $N; done
  DG=${DGS%% *}; tune exhaustive $DG exhaustive $N
done
tar -czf "$PACK/results.tgz" -C "$OUT" --exclude=cache . && rm -rf "$OUT" && echo packed
