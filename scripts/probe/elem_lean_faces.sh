#!/usr/bin/env bash
# Fewer face loads in the merged element-per-thread kernels (2026-12-03; the first two slower, the third faster at
# N = 1..3, shipped in a2cdc5f with its re-tuned entries): $NEW built with
#   scripts/probe/elem_lean_faces.patch — each face's link also carries a boundary face's condition (−(c + 1)), the
#     neighbour's materials come from the link, the faces' normals and Fscale are derived from the metric terms (no
#     face_geo, face_bc, neigh loads), in both precisions (f64 elements read links too); the roofline's minimum
#     without the normals;
#   scripts/probe/elem_link_bc.patch — only the link carrying the boundary condition and the neighbour (no face_bc,
#     neigh loads), f32 as shipped; normals still read;
#   scripts/probe/elem_link_bc2.patch — the same with the neighbour's address formed before the boundary test (a
#     boundary face's pointing into its own element), so that the branch holds the loads alone; both precisions.
# against $OLD (the shipped kernels) through the exhaustive tuner (maxwell2d N = AB_ORDERS, default 1..5, AB_PRECISION),
# then the nodal entries of RETUNE_PRECISION (f32, f64 or both; default f32) tuned with $NEW into a copy of the shipped
# database ($OUT/db), the changed kernels verified (three laws, a planted bug)
# and maxwell2d benched on it (PARTS: ab retune bench). Results packed into $OUT/all.tgz after every part.
# usage: OLD=gpu/old/dg NEW=gpu/new/dg AB_PRECISION=f32 OUT=dir bash scripts/probe/elem_lean_faces.sh
set -u
OUT=${OUT:?}; OLD=${OLD:?}; NEW=${NEW:?}; PARTS=${PARTS:-"ab retune bench"}
nvidia-smi -L
DG=$NEW; DB=$OUT/db; R=$OUT/rt; mkdir -p "$R"; D="--device cuda:0"; [ -d "$DB" ] || cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
for part in $PARTS; do
  case $part in
    ab)
      FOCUS='^elem/.*/merged/' OLD=$OLD NEW=$NEW OUT=$OUT/ab AB_OPERATION=unit AB_ORDERS=${AB_ORDERS:-1..5} \
        AB_PRECISION=${AB_PRECISION:-both} PARTS=ab bash scripts/probe/family_ab.sh > "$OUT/ab-console.txt" 2>&1
      cp "$OUT/ab/r/ab-unit-old.err" "$OUT/ab/r/ab-old.err"; cp "$OUT/ab/r/ab-unit-new.err" "$OUT/ab/r/ab-new.err"
      python3 scripts/probe/ab_summary.py changed "$OUT/ab/r" merged | tee "$OUT/ab/r/summary.txt" ;;
    retune)
      RP=${RETUNE_PRECISION:-f32}
      nodal_retune $RP
      for p in f32 f64; do
        case $RP in both|$p) ;; *) continue ;; esac
        for law in maxwell2d acoustics2d "euler2d --formulation nodal-tri"; do
          t=$(echo "$law" | cut -d' ' -f1)
          timeout 100 "$DG" verify $law --order 1..5 --precision $p --variant elem/wg32/seq1/matrix-local/merged/node-major/$p $D > "$R/verify-$t-$p.txt" 2>&1
          echo "verify $law $p: rc $? $(tail -1 "$R/verify-$t-$p.txt")"
        done
      done
      V=elem/wg32/seq1/matrix-local/merged/node-major/f32
      timeout 60 "$DG" verify maxwell2d --order 2..3 --precision f32 --variant $V --plant-bug skip-last-group $D > "$R/verify-planted.txt" 2>&1
      echo "planted skip-last-group: rc $? (must be non-zero) $(tail -1 "$R/verify-planted.txt")" ;;
    bench) nodal_bench both ;;
  esac
  # the database after every part (on 2026-12-03 the call ran out of time in the bench, and the re-tuned database,
  # copied only at the end then, was lost)
  (cd "$OUT" && tar -czf all.tgz ab/r rt ab-console.txt db/*h200*.json $(ls -d sass 2>/dev/null) 2>/dev/null)
done
