#!/usr/bin/env bash
# Issue 14's points on an H100 (the first H100 lent since 2026-11-28): the keys the issue measures tuned afresh into
# $DB (an empty user database on the first part, so the H100 file holds only this code's entries), then every point
# measured with them. One part per device call, each within DEADLINE seconds (default 570) since the script started:
#   nodal  — maxwell2d right-hand side N = 1..8 f32 then f64 (the first tuning measures the ceilings), the stage at
#            N = 4 of both precisions (the start-up run's key); `dg bench maxwell2d --orders 1..8` of both precisions;
#            the start-up of the 720,000-triangle Maxwell run (a cold kernel cache, then two warm runs); tuning
#            maxwell2d N = 7 in two processes on empty caches and once untruncated, f32 and f64.
#   modal  — euler2d modal-tri hllc_flux p = 1..4, f64 then f32; the issue's vortex at p = 1..4, both precisions;
#            acoustics3d and elastic3d nodal-tet N = 7 f32 tuned and benched per kernel (seed 002's figures).
#   rest   — maxwell2d's stage at N = 1..8 and the tetrahedra at N = 1..8, both precisions, while time is left.
#   fill   — the keys the H100 file still lacks that the H200 file holds, while time is left: euler2d modal-tri
#            numerical_flux p = 1..5 and HLLC p = 5, euler2d nodal-tri with both fluxes, mhd2d finite volumes, maxwell3d
#            and euler3d on hexahedra (the modal tunings take 60–130 s per order in both precisions; on 2026-12-05 a
#            320 s deadline reached HLLC p = 5 and numerical_flux p = 1, 2: pass the rest first next time).
# The database is copied to $OUT/db and $OUT/results.tgz packed after every tuning (a call that runs out of time keeps
# what it tuned); results in $OUT/r (logs) and on stdout (a short table).
# usage: DG=path/to/dg DB=dir OUT=dir PARTS="nodal" bash scripts/probe/h100_issue14.sh
set -u
DG=${DG:?}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R" "$DB"; D="--device cuda:0"
PARTS=" ${PARTS:?} "; DEADLINE=${DEADLINE:-570}
nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,clocks.sm,memory.total,driver_version --format=csv,noheader
date -u +%FT%TZ | tee -a "$R/date"; ls "$DB"
source scripts/probe/vortex_run.sh
left() { echo $(( DEADLINE - SECONDS )); }
# tune LABEL NEED ARGS…: one `dg autotune` into $DB on a fresh kernel cache, skipped when fewer than NEED seconds are left
tune() {
  local label=$1 need=$2; shift 2
  local l; l=$(left); [ "$l" -gt "$need" ] || { echo "$label: skipped, $l s left"; return; }
  local t0=$SECONDS
  DG_CACHE_DIR=$(mktemp -d) timeout "$l" "$DG" --db "$DB" autotune "$@" $D > "$R/tune-$label.txt" 2> "$R/tune-$label.err"
  echo "tune $label rc $? ($(( SECONDS - t0 )) s)"; grep -E "winner|faster" "$R/tune-$label.txt" | cut -c1-200
  rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"; (cd "$OUT" && tar -czf results.tgz r db)
}
case "$PARTS" in *" nodal "*)
  tune maxwell-unit-f32 60 maxwell2d --orders 1..8 --precision f32
  tune maxwell-unit-f64 60 maxwell2d --orders 1..8 --precision f64
  tune maxwell-stage-4 20 maxwell2d --orders 4 --precision both --operation stage
  for p in f32 f64; do
    l=$(left); [ "$l" -gt 40 ] || { echo "bench $p: skipped"; continue; }
    timeout "$l" "$DG" --db "$DB" bench maxwell2d --orders 1..8 --precision $p $D > "$R/bench-unit-$p.txt" 2> "$R/bench-unit-$p.err"
    echo "bench $p rc $?"; cat "$R/bench-unit-$p.txt"
  done
  for p in f32 f64; do
    cache=$(mktemp -d)
    for run in cold warm1 warm2; do
      o="$R/startup-$p-$run"; t0=$(date +%s.%N)
      DG_CACHE_DIR=$cache timeout 60 "$DG" --db "$DB" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 $D --json > $o.json 2> $o.err
      t1=$(date +%s.%N)
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
m=d.get('startup',[]); prev=0.0; parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('startup $p $run: %.3f s'%prev,'(process %.2f s)'%($t1-$t0),'|',', '.join(parts),'|',v['choice']['source'],v['choice']['variant'])" || tail -2 $o.err
    done
  done
  for p in f32 f64; do
    for run in a b; do
      l=$(left); [ "$l" -gt 45 ] || { echo "tunetime $p $run: skipped"; continue; }
      C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
      DG_CACHE_DIR=$C timeout 60 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p $D > "$R/tunetime-$p-$run.txt" 2>&1
      echo "tunetime $p $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$p-$run.txt" | tail -1 | sed 's/.*winner //')"
    done
    l=$(left); [ "$l" -gt 70 ] || { echo "tunetime $p untruncated: skipped"; continue; }
    T=$(mktemp -d)
    DG_CACHE_DIR=$C timeout 90 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision $p --every-variant --no-early-stop $D > "$R/tunetime-$p-u.txt" 2>&1
    echo "tunetime $p untruncated rc $?: $(grep winner "$R/tunetime-$p-u.txt" | tail -1 | sed 's/.*winner //')"
  done
esac
case "$PARTS" in *" modal "*)
  tune modal-f64 60 euler2d --formulation modal-tri --flux hllc_flux --orders 1..4 --precision f64
  tune modal-f32 60 euler2d --formulation modal-tri --flux hllc_flux --orders 1..4 --precision f32
  DGDB="$DG --db $DB"
  for P in f32 f64; do for p in 1 2 3 4; do
    [ "$(left)" -gt 25 ] || { echo "iv $P p=$p: skipped"; continue; }
    BIN=$DGDB vortex $p $P h100
  done; done
  for law in acoustics3d elastic3d; do
    tune tet-$law-7 20 $law --orders 7 --precision f32
    l=$(left); [ "$l" -gt 20 ] || { echo "tet bench $law: skipped"; continue; }
    timeout "$l" "$DG" --db "$DB" bench $law --per-kernel --orders 7 --precision f32 $D > $R/tet-$law.txt 2> $R/tet-$law.err
    echo "tet $law rc $?"; grep -iE "fastest|peak|step" $R/tet-$law.txt | tail -6 | cut -c1-200
  done
esac
case "$PARTS" in *" rest "*)
  tune maxwell-stage-f32 60 maxwell2d --orders 1..8 --precision f32 --operation stage
  tune maxwell-stage-f64 60 maxwell2d --orders 1..8 --precision f64 --operation stage
  for law in acoustics3d elastic3d; do tune tet-$law 60 $law --orders 1..8 --precision both; done
esac
case "$PARTS" in *" fill "*)
  tune modal-hllc-5 20 euler2d --formulation modal-tri --flux hllc_flux --orders 5 --precision both
  tune modal-first 20 euler2d --formulation modal-tri --orders 1..5 --precision both
  tune nodal-euler-first 20 euler2d --formulation nodal-tri --orders 1..4 --precision both
  tune nodal-euler-hllc 20 euler2d --formulation nodal-tri --flux hllc_flux --orders 1..4 --precision both
  tune fv-mhd 20 mhd2d --formulation fv --orders 1..2 --precision both
  tune hex-maxwell 20 maxwell3d --formulation hex --orders 1..6 --precision both
  tune hex-euler 20 euler3d --formulation hex --flux hllc_flux --orders 1..4 --precision both
esac
rm -rf "$OUT/db"; cp -r "$DB" "$OUT/db"
date -u +%FT%TZ | tee -a "$R/date"
(cd "$OUT" && tar -czf results.tgz r db)
