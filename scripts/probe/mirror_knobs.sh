#!/usr/bin/env bash
# Two questions about the mirror tiles at the orders that pass 60 % narrowly (N = 7 f32) or not at all (N = 8 f32),
# with EXP built from scripts/probe/mirror_knobs.patch (a probe, not the generator):
#  - how fast they would be with fewer products, an upper bound for a kernel folded by the triangle's whole symmetry
#    group D3, which needs 55 % of the mirror tiles' multiply-adds (scripts/probe/d3_counts.py): DG_PROBE_V and
#    DG_PROBE_L keep that percentage of the volume sum's and of the lift's columns (results wrong, so `dg bench` says
#    NOT VERIFIED: timing only; D3's basis changes are not emulated);
#  - DG_PROBE_BVEC=1: each column's folded inputs read as one float4 and one float2 instead of six floats (CUDA, f32,
#    a law with one flux-first variable and one shared field: maxwell2d mixed), verified as usual.
# usage: EXP=path/to/dg-with-the-patch OUT=dir bash scripts/probe/mirror_knobs.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
M=seq1/matrix-local/merged/tiled
date -u +%FT%TZ | tee -a "$R/date"
one() { # order spec env…
  local o=$1 v=$2; shift 2
  env "$@" timeout 40 "$EXP" bench maxwell2d --orders $o --variant $v $D > "$R/knob.txt" 2>&1
  echo "N=$o $v [$*]: $(grep -E "^ *[0-9] " "$R/knob.txt" | awk '{print $4, "ms", $8, "%"}') $(grep -c 'NOT VERIFIED' "$R/knob.txt") unverified"
  cat "$R/knob.txt" >> "$R/knobs-all.txt"
}
{
  for j in "8 balanced4/wg32/$M/f32/mixed" "7 whole5b5/wg32/$M/f32/mixed"; do
    set -- $j
    one $1 $2 DG_PROBE_V=100
    one $1 $2 DG_PROBE_BVEC=1
    one $1 $2 DG_PROBE_V=57 DG_PROBE_L=57
    one $1 $2 DG_PROBE_V=0 DG_PROBE_L=0
    one $1 $2 DG_PROBE_V=100
    one $1 $2 DG_PROBE_BVEC=1
  done
  for j in "6 balanced4/wg32/$M/f32/mixed" "5 balanced3/wg32/$M/f32/mixed" "8 balanced7/wg16/$M/f64/mixed"; do
    set -- $j
    one $1 $2 DG_PROBE_V=100
    one $1 $2 DG_PROBE_BVEC=1
    one $1 $2 DG_PROBE_V=57 DG_PROBE_L=57
  done
} | tee "$R/knobs.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
