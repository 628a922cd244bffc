#!/usr/bin/env bash
# Element-per-thread merged kernels read an element's vmap_p and metric terms as vectors: one call that A/Bs the
# binary before ($OLD) against $NEW through the exhaustive tuner at N = 1..4 (maxwell2d, right-hand side, both
# precisions; $NEW's sweep tunes into $DB), then tunes the rest of the nodal entries whose winners can change with
# $NEW (maxwell2d stage N = 1..4, euler2d nodal-tri both fluxes N = 1..4) into $DB and benches maxwell2d N = 1..8 on
# it. $DB holds the shipped file with the entries above removed and the others re-keyed to $NEW's fingerprint.
# Results under $OUT/results.tgz, packed after every step.
# usage: OLD=gpu/dg-old NEW=gpu/dg DB=gpu/db OUT=dir bash scripts/probe/elem_vector_loads.sh
set -u
OUT=${OUT:?}; DB=${DB:?}; NEW=${NEW:-gpu/dg}; OLD=${OLD:-gpu/dg-old}
R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
pack() { rm -rf "$R/db"; cp -r "$DB" "$R/db"; tar -czf "$OUT/results.tgz" -C "$R" .; }
step() { # name, then the command
  local name=$1; shift; local t0; t0=$(date +%s)
  DG_CACHE_DIR=$(mktemp -d) timeout 200 "$@" > "$R/$name.txt" 2> "$R/$name.err"
  echo "$name rc $? $(( $(date +%s) - t0 )) s"; grep -i winner "$R/$name.txt" | cut -c1-140; pack
}
step ab-old "$OLD" --db "$(mktemp -d)" autotune maxwell2d --orders 1..4 --precision both $D
step ab-new "$NEW" --db "$DB" autotune maxwell2d --orders 1..4 --precision both $D
step tune-stage "$NEW" --db "$DB" autotune maxwell2d --orders 1..4 --precision both --operation stage $D
for flux in numerical_flux hllc_flux; do
  step "tune-euler-$flux" "$NEW" --db "$DB" autotune euler2d --formulation nodal-tri --flux $flux --orders 1..4 --precision both $D
done
step bench-unit "$NEW" --db "$DB" bench maxwell2d --orders 1..8 --precision both --operation unit $D
cat "$R/bench-unit.txt"
echo packed
