#!/usr/bin/env bash
# Issue 14's points re-measured on a fresh instance with the committed binary (the code of 7c4a19d, its compiled-in
# database, empty kernel cache), and where the modal vortex's time goes per kernel at the thinnest margins
# (p = 4 f64 and f32, p = 1 f32): Nsight Compute's kernel durations at the card's own clocks.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p gpu/bin && tar -C gpu/bin -xJf gpu/recheck.tar.xz
DG=gpu/bin/dg; R=$OUT/r; mkdir -p $R
export DG_CACHE_DIR=$(mktemp -d)
nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader; date -u +%FT%TZ | tee $R/date
source scripts/probe/vortex_run.sh
for P in f32 f64; do for p in 1 2 3 4; do vortex $p $P shipped; done; done
for law in acoustics3d elastic3d; do for i in 1 2; do
  timeout 200 $DG bench $law --per-kernel --orders 7 --precision f32 --device cuda:0 > $R/tet-$law-$i.txt 2> $R/tet-$law-$i.err
  echo "tet $law $i rc $?"; head -2 $R/tet-$law-$i.txt | cut -c1-220
done; done
timeout 300 $DG bench maxwell2d --orders 1..8 --precision both --device cuda:0 > $R/maxwell.txt 2> $R/maxwell.err; echo "maxwell rc $?"
cat $R/maxwell.txt | cut -c1-150
for c in "4 f64" "4 f32" "1 f32"; do set -- $c
  timeout 240 ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw --launch-skip 20 --launch-count 40 \
    $DG run euler-isentropic-vortex --order $1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 5e-4 --precision $2 --device cuda:0 \
    > $R/ncu-iv-$2-$1.csv 2> $R/ncu-iv-$2-$1.err
  echo "ncu p=$1 $2 rc $?"
  python3 - $R/ncu-iv-$2-$1.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 5]
h = rows[0]; k = h.index('Kernel Name'); t = h.index('gpu__time_duration.sum')
tot = collections.defaultdict(float); n = collections.Counter()
for r in rows[2:]:
    try: v = float(r[t].replace(',', ''))
    except ValueError: continue
    tot[r[k]] += v; n[r[k]] += 1
s = sum(tot.values())
for name, v in sorted(tot.items(), key=lambda x: -x[1]):
    print(f"  {name[:40]:40s} {n[name]:3d} launches {v/n[name]/1e3:8.1f} us each {100*v/s:5.1f} %")
PY
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
