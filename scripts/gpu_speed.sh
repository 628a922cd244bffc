#!/usr/bin/env bash
# Issue 14's measurements on the GPU machine (one call, under 10 minutes): the start-up timeline of the
# 720,000-triangle Maxwell run (cold kernel cache, warm, f64), the same run's time loop, the Euler isentropic vortex
# on 720,000 triangles (RK4, fixed dt, p = 1..4, f32 and f64), and tuning maxwell2d N = 5 f32 twice in separate
# processes and once untruncated; the modal euler2d winners re-tuned (modaltune) and benched (modalbench). Sections:
# SECTIONS="startup loop euler tune tuneall bench modaltune modalbench ptxas ncu". Results in $OUT.
set -u
DG=${DG:-gpu/dg}
OUT=${OUT:-$(mktemp -d)}
D="--device cuda:0"
SECTIONS=${SECTIONS:-startup loop euler tune tuneall bench}
# the database the run sections read besides the shipped one: the re-tuned copy when modaltune ran first
TUNED=$(mktemp -d); mkdir -p "$TUNED/tuning"
case " $SECTIONS " in *" modaltune "*) ;; *) TUNED="";; esac
date -u +%FT%TZ | tee "$OUT/date"
nproc
summary() { # phase timeline and the device report of a `dg run --json` file
  python3 - "$@" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
extra = float(sys.argv[3]) if len(sys.argv) > 3 else None
d = json.load(open(path))
prev, parts = 0.0, []
for m in d.get("startup", []):
    parts.append(f"{m['phase']} {m['seconds'] - prev:.3f}")
    prev = m["seconds"]
dev = d.get("device") or {}
line = f"{label}: " + ", ".join(parts)
if extra is not None:
    line += f"; process {extra:.2f} s"
line += f"; loop wall {d['wall_seconds']:.3f} s, kernels {dev.get('kernel_seconds', float('nan')):.3f} s, checks {dev.get('state_check_seconds', float('nan')):.3f} s"
split = dev.get("loop_split")
if split:
    line += " (host: stepping {stepping_seconds:.3f}, inspecting {inspecting_seconds:.3f}, saving {saving_seconds:.3f})".format(**split)
if "elements" in d and "order" in d and "density_l2_error" in d:
    p = d["order"]; pts = d["elements"] * (p + 1) * (p + 2) // 2
    line += f"; {pts * d['rhs_evaluations'] / d['wall_seconds'] / 1e9:.2f} Gpts·RHS/s (kernels only {pts * d['rhs_evaluations'] / dev.get('kernel_seconds', float('nan')) / 1e9:.2f}), density L2 {d['density_l2_error']:.4e}"
elif "l2_error" in d:
    line += f"; L2 {d['l2_error']:.4e}, {d['rhs_evaluations']} RHS"
print(line)
PY
}
for s in $SECTIONS; do case $s in
startup)
  CACHE=$(mktemp -d)
  for p in f32 f32 f64 f64; do
    t0=$(date +%s.%N)
    DG_CACHE_DIR=$CACHE "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 1e-5 $D --json > "$OUT/startup-$p.json" 2> "$OUT/startup-$p.err"
    t1=$(date +%s.%N)
    summary "startup $p" "$OUT/startup-$p.json" "$(python3 -c "print(round($t1 - $t0, 2))")"
  done ;;
loop)
  for p in f32 f64; do
    "$DG" run maxwell-cavity --order 4 --nx 600 --precision $p --t-end 0.3 $D --json > "$OUT/loop-$p.json" 2> "$OUT/loop-$p.err"
    summary "maxwell N4 nx600 t=0.3 $p" "$OUT/loop-$p.json"
  done ;;
euler)
  for p in ${EULER_PRECISIONS:-f32 f64}; do for o in ${EULER_ORDERS:-1 2 3 4}; do
    DG_CACHE_DIR=${TUNED:-$HOME/.cache/dg} "$DG" run euler-isentropic-vortex --order $o --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $p $D --json > "$OUT/iv-$p-$o.json" 2> "$OUT/iv-$p-$o.err"
    summary "iv p=$o $p" "$OUT/iv-$p-$o.json"
  done; done ;;
tune)
  # each (order, precision) tuned twice in separate processes with empty caches (kernels compiled afresh), then
  # once untruncated (every candidate timed in full) against a warm kernel cache
  for o in ${TUNE_ORDERS:-5}; do for p in ${TUNE_PRECISIONS:-f32}; do
    WARM=$(mktemp -d)
    for run in a b full; do
      extra=""; cache=$(mktemp -d)
      [ $run = full ] && { extra="--no-early-stop --db $(mktemp -d)"; cache=$WARM; }
      [ $run = b ] && cache=$WARM
      t0=$(date +%s.%N)
      DG_CACHE_DIR=$cache "$DG" autotune maxwell2d --orders $o --precision $p $D $extra > "$OUT/tune-$o-$p-$run.txt" 2> "$OUT/tune-$o-$p-$run.err"
      t1=$(date +%s.%N)
      echo "tune N=$o $p $run (process $(python3 -c "print(round($t1 - $t0, 2))") s): $(grep winner "$OUT/tune-$o-$p-$run.txt" | sed 's/.*: winner //')"
    done
  done; done ;;
tuneall)
  # every order and precision of maxwell2d into the shipped database's copy (winners kept unless 3% faster), with
  # the geometric-mean speed-up over the best fixed variant
  cp -r tuning-db "$OUT/tuning-db"
  DG_CACHE_DIR=$(mktemp -d) timeout ${TUNEALL_LIMIT:-400} "$DG" autotune maxwell2d --orders ${TUNEALL_ORDERS:-1..8} --precision both $D --db "$OUT/tuning-db" > "$OUT/tuneall.txt" 2> "$OUT/tuneall.err"
  echo "rc $?"; cat "$OUT/tuneall.txt"
  # the shipped nodal euler2d entries (p = 1, 2, f64) re-tuned with the same code
  DG_CACHE_DIR=$(mktemp -d) timeout 120 "$DG" autotune euler2d --orders 1..2 --precision f64 $D --db "$OUT/tuning-db" > "$OUT/tuneeuler.txt" 2> "$OUT/tuneeuler.err"
  echo "rc $?"; grep winner "$OUT/tuneeuler.txt"
  cp "$OUT"/tuning-db/*.json "$OUT/" ;;
modaltune)
  # the shipped modal euler2d entries re-tuned (both fluxes, p = 1..5, both precisions) into the database's copy;
  # later sections run with it (DG_CACHE_DIR=$TUNED)
  [ -d "$OUT/tuning-db" ] || cp -r tuning-db "$OUT/tuning-db"
  for flux in ${MODAL_FLUXES:-hllc_flux numerical_flux}; do
    DG_CACHE_DIR=$(mktemp -d) timeout ${MODALTUNE_LIMIT:-400} "$DG" autotune euler2d --formulation modal-tri --flux $flux --orders ${MODAL_ORDERS:-1..5} --precision both $D --db "$OUT/tuning-db" > "$OUT/modaltune-$flux.txt" 2> "$OUT/modaltune-$flux.err"
    echo "rc $? $flux"; grep -E "winner|tuned in" "$OUT/modaltune-$flux.txt" | head -20
  done
  cp "$OUT"/tuning-db/*.json "$OUT/"; cp "$OUT"/tuning-db/*.json "$TUNED/tuning/" ;;
ptxas)
  # registers and spills of tile kernels (nvcc on the emitted CUDA)
  for spec in ${PTXAS_SPECS:-tile4/wg32/seq4/matrix-local/merged/node-major/f32 tile4/wg32/seq1/field-local/merged/node-major/f64}; do
    for o in ${PTXAS_ORDERS:-6 8}; do
      "$DG" emit maxwell2d --order $o --variant $spec --target cuda 2>/dev/null | sed '/KERNEL void update/,$d' > "$OUT/k.cu"
      regs=$(nvcc -arch=sm_90 -cubin -o "$OUT/k.cubin" -Xptxas -v "$OUT/k.cu" 2>&1 | grep -o "Used [0-9]* registers.*" | tail -1)
      sass=$(cuobjdump -sass "$OUT/k.cubin" | grep -oE "\b(FFMA|DFMA|LDS(\.[0-9A-Z.]*)?|LDC(\.[0-9A-Z.]*)?|ULDC(\.[0-9A-Z.]*)?|LDG(\.[0-9A-Z.]*)?)\b" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')
      echo "N=$o $spec: $regs; SASS: $sass"
    done
  done ;;
bench)
  # every stored maxwell2d winner verified and timed again (the database tuneall wrote, else the shipped one)
  db=tuning-db; [ -d "$OUT/tuning-db" ] && db="$OUT/tuning-db"
  "$DG" bench maxwell2d --orders ${TUNEALL_ORDERS:-1..8} --precision both $D --db "$db" > "$OUT/bench.txt" 2> "$OUT/bench.err"
  echo "rc $?"; cat "$OUT/bench.txt" ;;
modalbench)
  # the modal winners (re-tuned copy when modaltune ran) verified and timed again: one Runge–Kutta stage each
  db=tuning-db; [ -d "$OUT/tuning-db" ] && db="$OUT/tuning-db"
  for flux in ${MODAL_FLUXES:-hllc_flux numerical_flux}; do
    "$DG" bench euler2d --formulation modal-tri --flux $flux --orders ${MODAL_ORDERS:-1..5} --precision both $D --db "$db" > "$OUT/modalbench-$flux.txt" 2> "$OUT/modalbench-$flux.err"
    echo "rc $? $flux"; cat "$OUT/modalbench-$flux.txt"
  done ;;
ncu)
  # where the N = 8 tile winners spend their time (one timing launch of each, after verification's)
  db=tuning-db; [ -d "$OUT/tuning-db" ] && db="$OUT/tuning-db"
  : > "$OUT/ncu.txt"
  for p in f32 f64; do
    echo "== N=8 $p" >> "$OUT/ncu.txt"
    timeout 120 ncu --clock-control none --kernel-name regex:tile --launch-skip 5 --launch-count 1 \
      --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
      "$DG" bench maxwell2d --orders 8 --precision $p $D --db "$db" >> "$OUT/ncu.txt" 2>&1
  done
  grep -E "^==|Throughput|Occupancy|Stall|Registers|Shared Memory Configuration Size|Block Limit|Duration|Hit Rate|Warp Cycles" "$OUT/ncu.txt" | head -80 ;;
esac; done
# the device tool returns few files: leave out empty logs
find "$OUT" -maxdepth 1 -name "*.err" -empty -delete
