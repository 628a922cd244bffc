#!/usr/bin/env bash
# Element-per-thread kernels with the operator in local memory read Dr and Ds interleaved (two columns of both per
# float4 in f32, one column of both per double2 in f64) and LIFT in padded rows of whole vectors, instead of one
# scalar shared load per entry. PARTS (in order; results under $OUT/results.tgz, packed after every part):
#   ab     the binary before ($OLD) against $NEW through the exhaustive tuner, maxwell2d N = 1..8, both precisions,
#          the right-hand side ($OLD into a throw-away database, $NEW into $DB)
#   stage  maxwell2d N = 1..8, both precisions, --operation stage, into $DB
#   euler  euler2d nodal-tri, both fluxes, N = 1..4, both precisions, into $DB
#   bench  dg bench maxwell2d N = 1..8 both precisions, unit and stage, on $DB (every winner re-verified, re-timed)
# $NEW: a binary built with scripts/probe/elem_pair_loads.patch applied (measured 2026-12-02, not kept).
# usage: OLD=gpu/dg-old NEW=gpu/dg DB=gpu/db OUT=dir PARTS="ab stage" bash scripts/probe/elem_pair_loads.sh
set -u
OUT=${OUT:?}; DB=${DB:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}; PARTS=${PARTS:-"ab stage"}
R=$OUT/r; mkdir -p "$R" "$DB"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
pack() { rm -rf "$R/db"; cp -r "$DB" "$R/db"; tar -czf "$OUT/results.tgz" -C "$R" .; }
step() { # name, timeout, then the command
  local name=$1 limit=$2; shift 2; local t0; t0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout "$limit" "$@" > "$R/$name.txt" 2> "$R/$name.err"
  echo "$name rc $? $(( $(date +%s) - t0 )) s"; grep -i winner "$R/$name.txt" | cut -c1-150; pack
}
for part in $PARTS; do
  case $part in
    ab)
      step ab-old 200 "$OLD" --db "$(mktemp -d)" autotune maxwell2d --orders 1..8 --precision both $D
      step ab-new 200 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision both $D
      python3 scripts/probe/ab_summary.py changed "$R" matrix-local | tee "$R/summary.txt"; pack ;;
    stage) step tune-stage 200 "$NEW" --db "$DB" autotune maxwell2d --orders 1..8 --precision both --operation stage $D ;;
    euler)
      for flux in numerical_flux hllc_flux; do
        step "tune-euler-$flux" 150 "$NEW" --db "$DB" autotune euler2d --formulation nodal-tri --flux $flux --orders 1..4 --precision both $D
      done ;;
    bench)
      for op in unit stage; do
        step "bench-$op" 150 "$NEW" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation $op $D
        cat "$R/bench-$op.txt"
      done ;;
  esac
done
echo packed
