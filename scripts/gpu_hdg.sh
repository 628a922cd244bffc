#!/usr/bin/env bash
# Issue 17 on one GPU (one device call, under 10 minutes); reports under $OUT.
#   breakdown  helmholtz-square on 20², 40², 80², 320² squares for P = 1, 3, 5, 7, 9 on cuda:0 (block Jacobi; every
#              local candidate — generated Cholesky and cuBLAS's batched LU, each at three widths — timed and checked
#              in every run: the runs start without tuning results) and on the native CPU path of the same machine
#              (not 320² above P = 3: the CPU assembly lists 4.4 GB of entries at P = 9), one JSON report per run
#   db         80² and 320² at P = 9 twice: the first run stores its local winner, the second takes it from the
#              tuning database (no other candidate timed)
#   precond    Jacobi against block Jacobi on 80² and 320², P = 1, 3, 5, 7, 9 (iterations, CG seconds)
#   table1     seed 004's Table 1 on the device: 40², P = 1..9 (the breakdown's odd P reused)
#   shared     two ranks on one GPU asked for NCCL: the message that says so (issue 16)
# usage: DG=gpu/dg OUT=dir bash scripts/gpu_hdg.sh [breakdown|precond|table1|db|shared|all]
set -u
SECTION=${1:-all}
DG=${DG:-gpu/dg}; OUT=${OUT:-.}
# the kernel cache kept between runs; the tuning results cleared before each (every candidate timed), except in `db`
export DG_CACHE_DIR=${DG_CACHE_DIR:-/tmp/dg-hdg-cache}
date -u +%FT%TZ > "$OUT/date-hdg"
nvidia-smi -L
one() {  # name device args...
  local name=$1 dev=$2; shift 2
  [ -n "${KEEP_TUNING:-}" ] || rm -rf "$DG_CACHE_DIR/tuning"
  timeout ${RUN_LIMIT:-120} "$DG" run helmholtz-square --device "$dev" "$@" --json > "$OUT/$name.json" 2> "$OUT/$name.err"
  echo "$name rc $?"
}
if [ "$SECTION" = breakdown ] || [ "$SECTION" = all ]; then
  for n in 20 40 80 320; do for p in 1 3 5 7 9; do
    one "gpu-n$n-p$p" cuda:0 --order $p --nx $n
    if [ $n -le 80 ] || [ $p -le 3 ]; then one "cpu-n$n-p$p" cpu --order $p --nx $n; fi
  done; done
fi
if [ "$SECTION" = precond ] || [ "$SECTION" = all ]; then
  for n in 80 320; do for p in 1 3 5 7 9; do
    one "jacobi-n$n-p$p" cuda:0 --order $p --nx $n --variant jacobi
  done; done
fi
if [ "$SECTION" = table1 ] || [ "$SECTION" = all ]; then
  for p in 2 4 6 8; do one "gpu-n40-p$p" cuda:0 --order $p --nx 40; done
fi
if [ "$SECTION" = db ] || [ "$SECTION" = all ]; then
  for n in 80 320; do
    rm -rf "$DG_CACHE_DIR/tuning"
    KEEP_TUNING=1 one "db1-n$n-p9" cuda:0 --order 9 --nx $n
    KEEP_TUNING=1 one "db2-n$n-p9" cuda:0 --order 9 --nx $n
  done
fi
if [ "$SECTION" = shared ] || [ "$SECTION" = all ]; then
  LIB=$(find / -xdev -name 'libnccl.so.2' 2>/dev/null | head -1)
  mkdir -p /tmp/nccl && [ -n "$LIB" ] && ln -sf "$LIB" /tmp/nccl/libnccl.so
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 LD_LIBRARY_PATH=/tmp/nccl:${LD_LIBRARY_PATH:-} \
    timeout 60 mpirun -n 2 --bind-to none --mca btl self,vader -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE "$DG" run \
    maxwell-cavity --order 2 --nx 20 --device cuda --exchange nccl > "$OUT/shared.out" 2> "$OUT/shared.err"
  echo "two ranks on one GPU, NCCL: rc $?: $(grep -m1 -o 'ranks [0-9] and [0-9] share[^;]*' "$OUT/shared.err")"
fi
python3 scripts/hdg_table.py "$OUT"
