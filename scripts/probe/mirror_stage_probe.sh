#!/usr/bin/env bash
# maxwell2d's stage tuned at N = 1..8 in both precisions into /tmp/db (the mirror code's H100 entries), then mirror
# variants the list leaves out (groups of 16 and 64, node-major, flux-first) benched at N = 6..8.
# usage: OUT=dir bash scripts/probe/mirror_stage_probe.sh   (the binary at /tmp/m/dg)
set -u
DG=/tmp/m/dg; DB=/tmp/db; R=$OUT/r; mkdir -p $R $DB; D="--device cuda:0"
pack() { rm -rf $OUT/db; cp -r $DB $OUT/db; (cd $OUT && tar -czf results.tgz r db); }
date -u +%FT%TZ
for p in f32 f64; do
  t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout 200 $DG --db $DB autotune maxwell2d --orders 1..8 --precision $p --operation stage $D > $R/tune-stage-$p.txt 2> $R/tune-stage-$p.err
  echo "tune stage $p rc $? ($(( SECONDS - t0 )) s)"; grep winner $R/tune-stage-$p.txt | cut -c1-175; pack
done
for v in mirror4/wg16/seq1/matrix-local/merged/tiled/f64/mixed mirror4/wg64/seq1/matrix-local/merged/tiled/f64/mixed mirror4/wg32/seq1/matrix-local/merged/node-major/f64/mixed mirror4/wg32/seq1/matrix-local/merged/tiled/f64 mirror5/wg16/seq1/matrix-local/merged/tiled/f64/mixed mirror4/wg16/seq1/matrix-local/merged/tiled/f32/mixed mirror5/wg16/seq1/matrix-local/merged/tiled/f32/mixed mirror5/wg64/seq1/matrix-local/merged/tiled/f32/mixed; do
  [ $SECONDS -lt 540 ] || { echo "$v skipped"; continue; }
  timeout 60 $DG bench maxwell2d --orders 6..8 --variant $v $D > $R/p.txt 2> $R/p.err; echo "$v rc $?: $(grep -E '^ ?[0-9] ' $R/p.txt | awk '{print "N"$1, $4, $8}' | tr '\n' ' ')"
done | tee $R/probe.txt
date -u +%FT%TZ; pack
