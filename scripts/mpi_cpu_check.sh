#!/usr/bin/env bash
# dg's MPI build on the device machine: does the binary load Open MPI 4.1.6, and how does the CPU path split?
set -u
# usage: DG=path/to/dg OUT=dir bash scripts/mpi_cpu_check.sh (on the device machine: DG=gpu/dg, the stripped mpi build)
DG="${DG:-target/release/dg}"; OUT="${OUT:-.}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
which mpirun; mpirun --version | head -1
ldd "$DG" | grep -E "mpi|not found"
args="run maxwell-cavity --order 4 --nx 96 --t-end 0.05 --device cpu --json"
for n in 1 2 4 8; do
  if [ $n = 1 ]; then RAYON_NUM_THREADS=8 "$DG" $args > $OUT/r1.json 2>$OUT/r1.err; else
  RAYON_NUM_THREADS=$((8 / n > 0 ? 8 / n : 1)) mpirun --oversubscribe --bind-to none -n $n "$DG" $args > $OUT/r$n.json 2>$OUT/r$n.err; fi
  echo "n=$n rc=$? $(grep -E '"l2_error"|"wall_seconds"|"steps"' $OUT/r$n.json | tr -d '\n ')"
  tail -2 $OUT/r$n.err
done
