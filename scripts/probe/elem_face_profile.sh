#!/usr/bin/env bash
# After the element-per-thread kernels took their own face states from registers: the folded loop on the new
# database ($DB), ptxas's register and spill report of emitted kernels (gpu/src/*.cu, from `dg emit`), and Nsight
# Compute's DRAM bytes, throughput and occupancy of the N = 3 f32 right-hand-side winner at the bench's 16M DOFs.
# usage: DG=gpu/dg DB=gpu/db OUT=dir bash scripts/probe/elem_face_profile.sh
set -u
DG=${DG:-gpu/dg}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee "$R/date"
for run in f32,4,600,0.3 f64,4,600,0.3 f32,3,600,0.1 f64,3,600,0.1; do
  set -- ${run//,/ }; o="$R/loop-$1-N$2-nx$3"
  DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$DB" run maxwell-cavity --order $2 --nx $3 --t-end $4 --precision $1 $D --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('$1 N=$2 nx=$3:',v['choice']['variant'],v['choice']['source'],'steps',d['steps'],'L2 %.6e'%d['l2_error'],'kernels %.3f s'%v['kernel_seconds'])" || tail -2 $o.err
done
for p in f32 f64; do
  o="$R/vortex-nodal-n3-$p"
  DG_CACHE_DIR=$(mktemp -d) timeout 90 "$DG" --db "$DB" run euler-isentropic-vortex --formulation nodal-tri --order 3 --nx 100 --t-end 0.5 \
    --precision $p $D --json > $o.json 2> $o.err
  python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('vortex nodal $p N=3:',v['choice']['variant'],v['choice']['source'],'L2 %.6e'%d['l2_error'])" || tail -2 $o.err
done
for f in gpu/src/*.cu; do
  echo "== $f"; nvcc -arch=sm_90 -c -o /dev/null -Xptxas -v "$f" 2>&1 | grep -E "registers|spill" | head -4
done | tee "$R/ptxas.txt"
if command -v ncu >/dev/null; then
  timeout 200 ncu --csv --kernel-name regex:^rhs --launch-count 400 \
    --metrics gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,sm__warps_active.avg.pct_of_peak_sustained_active,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum \
    "$DG" --db "$DB" bench maxwell2d --orders 3 --precision f32 $D > "$R/ncu-n3-f32.csv" 2> "$R/ncu-n3-f32.err"
  echo "ncu rc $?"
  python3 - "$R/ncu-n3-f32.csv" <<'PY' | tee "$R/ncu-n3-f32-summary.txt"
import csv, sys, collections
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
head, rows = rows[0], rows[1:]
ix = {h: i for i, h in enumerate(head)}
by = collections.defaultdict(dict)
for r in rows:
    by[r[ix["ID"]]][r[ix["Metric Name"]]] = (r[ix["Metric Value"]], r[ix["Metric Unit"]])
big = [m for m in by.values() if int(m["launch__grid_size"][0].replace(",", "")) > 1000]
for m in big[-3:]:
    print({k: " ".join(v) for k, v in sorted(m.items())})
PY
fi
tar -czf "$OUT/results.tgz" -C "$R" . && echo packed
