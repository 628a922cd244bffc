#!/usr/bin/env bash
# Issue 14's points measured with the submitted binary and its compiled-in tuning database (no --db: what a user
# gets), on one machine in one call: `dg bench maxwell2d --orders 1..8` of both precisions (each winner verified
# first); the issue's vortex at p = 1..4 of both precisions; the tetrahedra at N = 7 f32 (`dg bench --per-kernel`);
# the start-up of the 720,000-triangle Maxwell run (a cold kernel cache, then two warm runs, both precisions);
# maxwell2d tuned at N = 7 and 8 of both precisions in two fresh processes each (empty database and kernel cache);
# then (if time is left) the N = 8 f32 winner's SASS counted by opcode (scripts/probe/sass_mix.py).
# usage: DG=path/to/dg OUT=dir [DEADLINE=s] bash scripts/probe/shipped_points.sh
set -u
DG=${DG:?}; OUT=${OUT:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"; H=$(dirname "$0"); DEADLINE=${DEADLINE:-560}
left() { echo $(( DEADLINE - SECONDS )); }
pack() { (cd "$OUT" && tar -czf results.tgz r); }
nvidia-smi -L; nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
date -u +%FT%TZ | tee -a "$R/date"
for p in f32 f64; do
  timeout 90 "$DG" bench maxwell2d --orders 1..8 --precision $p $D > "$R/bench-$p.txt" 2> "$R/bench-$p.err"
  echo "bench $p rc $?"; grep -E "^ *[0-9] " "$R/bench-$p.txt" | awk '{print "  N"$1, $3, $4, $5, $8}'
done; pack
source "$H/vortex_run.sh"
for P in f64 f32; do for p in 4 3 2 1; do
  [ "$(left)" -gt 200 ] || { echo "iv $P p=$p: skipped"; continue; }
  BIN=$DG vortex $p $P shipped
done; done; pack
for law in acoustics3d elastic3d; do
  timeout 60 "$DG" bench $law --per-kernel --orders 7 --precision f32 $D > "$R/tet-$law.txt" 2> "$R/tet-$law.err"
  echo "tet $law rc $?"; grep -iE "peak|step|winner" "$R/tet-$law.txt" | tail -4 | cut -c1-220
done; pack
for p in f32 f64; do
  cache=$(mktemp -d)
  for run in cold warm1 warm2; do
    o="$R/startup-$p-$run"; t0=$(date +%s.%N)
    DG_CACHE_DIR=$cache timeout 60 "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 $D --json > $o.json 2> $o.err
    t1=$(date +%s.%N)
    python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
m=d.get('startup',[]); prev=0.0; parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('startup $p $run: %.3f s'%prev,'(process %.2f s)'%($t1-$t0),'|',', '.join(parts),'|',v['choice']['source'],v['choice']['variant'], '| L2', d['l2_error'])" || tail -2 $o.err
  done
done; pack
for job in "8 f64" "8 f32" "7 f32" "7 f64"; do
  set -- $job
  for run in a b; do
    [ "$(left)" -gt 45 ] || { echo "tunetime N=$1 $2 $run: skipped"; continue; }
    C=$(mktemp -d); T=$(mktemp -d); t0=$(date +%s.%N)
    DG_CACHE_DIR=$C timeout 45 "$DG" --db "$T" autotune maxwell2d --orders $1 --precision $2 $D > "$R/tunetime-$1-$2-$run.txt" 2>&1
    echo "tunetime N=$1 $2 $run rc $? (process $(python3 -c "print(round($(date +%s.%N) - $t0, 2))") s): $(grep winner "$R/tunetime-$1-$2-$run.txt" | tail -1 | sed 's/.*winner //' | cut -c1-160)"
  done
done; pack
if [ "$(left)" -gt 30 ]; then SKIP_SHIPPED=1 SKIP_NCU=1 EXP=$DG OUT=$OUT bash "$H/sass_mix.sh" | tail -12; fi
date -u +%FT%TZ | tee -a "$R/date"; pack
