#!/usr/bin/env bash
# Issue 16 on nvidia-h100-x4 (each section one device call, under 10 minutes); results under $OUT.
#   check    the nodal-triangle kernels verified on CUDA (whole and in two element ranges), and runs over 2 and 4
#            ranks (one GPU each) in both exchanges and every schedule against the one-process run (f64)
#   scaling  Maxwell TM, N = 4, f64: weak scaling (≈ 50M DOF per GPU: 746², 1055², 1492² cells on 1, 2, 4 GPUs)
#            and strong scaling (100M DOF: 1055² cells on 1, 2, 4 GPUs); every run times each exchange × schedule
#            on its first state (the slowest rank's seconds per right-hand side) and steps with the fastest; at 4
#            GPUs the whole loop also in the synchronous host-staged and the asynchronous NCCL combinations
#   tune     (on nvidia-h100-x1) the nodal-triangle winners re-tuned after the kernels' group-offset argument, into
#            the user database under $OUT/tune
#   hex-check    the hexahedral kernels verified on CUDA (whole and over two cell ranges), and maxwell3d-cavity over
#                2 and 4 ranks in both exchanges and every schedule against the one-process run (f64)
#   hex-scaling  Maxwell 3D on hexahedra, D = 3, f64: weak scaling (≈ 50M DOF per GPU: 51³, 64³, 81³ cells on 1,
#                2, 4 GPUs) and strong scaling (100.7M DOF: 64³ cells on 1, 2, 4 GPUs), as `scaling` does (the
#                4-GPU runs only where 4 GPUs are found)
#   compare-only the runs over 2 and 4 ranks of `check` and `hex-check` without the every-variant verification
#   channels     (nvidia-h100-x4) the asynchronous NCCL runs at 4 GPUs (triangles 1492², hexahedra 81³) with NCCL's
#                send/receive channels capped at 1, 2, 4, 8 (NCCL_MAX_P2P_NCHANNELS) and uncapped: each channel is a
#                thread block that stays on an SM beside the interior's kernel
#   eager-channels  (4 GPUs) hexahedra 81³, the eager NCCL right-hand side with NCCL's send/receive channels capped
#                at 2, 4, 8, 16 and uncapped, and with NCCL's copy-engine transfers (NCCL_P2P_USE_CUDA_MEMCPY=1);
#                the one-GPU 51³ baseline in the same call
#   ab           (4 GPUs) two binaries, $DG_OLD against $DG, alternating: the eager NCCL right-hand side at 4 GPUs
#                (hexahedra 81³ three times each, triangles 1492² once each), one GPU's baselines first
#   partition    (2 or 4 GPUs) meshes split into blocks against METIS: the NCCL right-hand side in every schedule
#                (trials of the slowest rank) of hexahedra at 2 GPUs (64³, and 63³ once) and triangles (N = 4, 1055²)
#                and, where 4 GPUs are found, at 4 (81³, 1492²), alternating $REPEATS times (3); the one-GPU
#                baselines (51³, 746²) first; a table of the trials and halo sizes at the end
#   hex-tune     (on nvidia-h100-x1) the hexahedral winners re-tuned after the operator's zones over cell ranges,
#                into tuning-db (copied to $OUT/tuning-db)
# usage: DG=gpu/dg OUT=dir bash scripts/gpu_mpi_scaling.sh SECTION
set -u
SECTION=${1:?check, scaling or tune}
DG=${DG:-gpu/dg}; OUT=${OUT:-.}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
date -u +%FT%TZ > "$OUT/date-$SECTION"
# NCCL from the Python image (nvidia-nccl) as libnccl.so, which cudarc loads
LIB=$(find / -xdev -name 'libnccl.so.2' 2>/dev/null | head -1)
mkdir -p /tmp/nccl && [ -n "$LIB" ] && ln -sf "$LIB" /tmp/nccl/libnccl.so
export LD_LIBRARY_PATH=/tmp/nccl:${LD_LIBRARY_PATH:-}
MPI="mpirun --bind-to none --mca pml ob1 --mca btl self,vader -x LD_LIBRARY_PATH -x NCCL_NVLS_ENABLE"
V=elem/wg128/seq1/matrix-local/merged/node-major/f64/diff-first
# the hexahedral D = 3 f64 winner of the H100 database
HV=hex/fused/spec/c2/vki/f64
field() { grep -oE "\"$1\": [^,]*" "$2" | head -1 | sed 's/.*: //'; }
# verify LAW [verify options]: every variant on CUDA, whole and over two ranges
verify() {
  local law=$1; shift
  CUDA_VISIBLE_DEVICES=0 timeout 240 "$DG" verify "$law" "$@" --precision both --device cuda:0 --json \
    > "$OUT/verify-$law.json" 2> "$OUT/verify-$law.err"
  echo "verify $law rc $?: $(grep -oE '"(passed|failed|rejected)": [0-9]+' "$OUT/verify-$law.json" | sort | uniq -c | tr '\n' ' ')"
}
# compare PREFIX ARGS...: the run in one process, then over 2 and 4 ranks in both exchanges and every schedule
compare() {
  local p=$1; shift
  CUDA_VISIBLE_DEVICES=0 "$DG" "$@" > "$OUT/${p}1.json" 2> "$OUT/${p}1.err"
  echo "1 process: L2 $(field l2_error "$OUT/${p}1.json") steps $(field steps "$OUT/${p}1.json")"
  for n in 2 4; do for x in host-staged nccl; do for s in sync async eager; do
    local o="$OUT/$p$n-$x-$s"
    timeout 120 $MPI -n $n "$DG" "$@" --exchange $x --schedule $s > "$o.json" 2> "$o.err"
    echo "$n ranks $x $s rc $?: L2 $(field l2_error "$o.json") steps $(field steps "$o.json") gpus $(grep -oE '"gpu": [0-9]+' "$o.json" | sed 's/.*: //' | tr '\n' ' ')"
    tail -1 "$o.err"
  done; done; done
}
# scale NAME RANKS ARGS...: one scaling run (one process for one rank, the split path through --schedule), its
# trials printed
scale() {
  local name=$1 n=$2; shift 2
  if [ "$n" = 1 ]; then timeout ${RUN_LIMIT:-240} "$DG" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
  else timeout ${RUN_LIMIT:-240} $MPI -n "$n" "$DG" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"; fi
  echo "$name ($n GPUs) rc $?: steps $(field steps "$OUT/$name.json") wall $(field wall_seconds "$OUT/$name.json") chosen $(field chosen "$OUT/$name.json")/$(field exchange "$OUT/$name.json")"
  tr -d ' \n' < "$OUT/$name.json" | grep -oE '"trials":\[[^]]*\]' ; echo
  tail -1 "$OUT/$name.err"
}
case $SECTION in
check)
  nvidia-smi -L; echo "nccl: ${LIB:-none}"
  ompi_info --parsable --all 2>/dev/null | grep -i "cuda_support" | head -3
  verify maxwell2d --order 1..8
  compare c run maxwell-cavity --order 4 --nx 120 --ny 97 --t-end 0.02 --device cuda --variant $V --json ;;
scaling)
  nvidia-smi -L
  run() {  # name ranks nx t_end [schedule exchange]
    scale "$1" "$2" run maxwell-cavity --order 4 --nx "$3" --t-end "$4" --device cuda --variant $V \
      --schedule "${5:-tuned}" --exchange "${6:-tuned}" --json
  }
  GPUS=$(nvidia-smi -L | wc -l)
  run weak1 1 746 0.03
  run weak2 2 1055 0.0212
  [ "$GPUS" -ge 4 ] && run weak4 4 1492 0.015
  run strong1 1 1055 0.0212
  [ "$GPUS" -ge 4 ] && run strong4 4 1055 0.0212
  # the whole loop in the two extremes at 4 GPUs (the tuned runs step with the fastest)
  [ "$GPUS" -ge 4 ] && run weak4-sync-host 4 1492 0.015 sync host-staged
  [ "$GPUS" -ge 4 ] && run weak4-async-nccl 4 1492 0.015 async nccl ;;
tune)
  nvidia-smi -L
  export DG_CACHE_DIR="$OUT/tune"
  timeout 470 "$DG" autotune maxwell2d --orders 1..8 --precision both --device cuda:0 > "$OUT/tune.txt" 2> "$OUT/tune.err"
  echo "maxwell2d rc $?"
  timeout 80 "$DG" autotune euler2d --orders 1..2 --precision f64 --device cuda:0 >> "$OUT/tune.txt" 2>> "$OUT/tune.err"
  echo "euler2d rc $?"
  grep -h winner "$OUT/tune.txt" ;;
hex-check)
  nvidia-smi -L; echo "nccl: ${LIB:-none}"
  verify maxwell3d --formulation hex --order 1..6
  compare h run maxwell3d-cavity --order 3 --nx 24 --perturb 0.2 --dt 0.002 --t-end 0.04 --device cuda --variant $HV --json ;;
hex-scaling)
  nvidia-smi -L
  run() {  # name ranks nx [schedule exchange]
    scale "$1" "$2" run maxwell3d-cavity --order 3 --nx "$3" --dt 4e-4 --t-end 0.008 --device cuda --variant $HV \
      --schedule "${4:-tuned}" --exchange "${5:-tuned}" --json
  }
  GPUS=$(nvidia-smi -L | wc -l)
  run weak1 1 51
  run weak2 2 64
  [ "$GPUS" -ge 4 ] && run weak4 4 81
  run strong1 1 64
  [ "$GPUS" -ge 4 ] && run strong4 4 64
  [ "$GPUS" -ge 4 ] && run weak4-sync-host 4 81 sync host-staged
  [ "$GPUS" -ge 4 ] && run weak4-async-nccl 4 81 async nccl ;;
compare-only)
  nvidia-smi -L; echo "nccl: ${LIB:-none}"
  compare c run maxwell-cavity --order 4 --nx 120 --ny 97 --t-end 0.02 --device cuda --variant $V --json
  compare h run maxwell3d-cavity --order 3 --nx 24 --perturb 0.2 --dt 0.002 --t-end 0.04 --device cuda --variant $HV --json ;;
channels)
  nvidia-smi -L
  for c in default 1 2 4 8; do
    if [ $c = default ]; then X="-x NCCL_DEBUG=INFO -x NCCL_DEBUG_FILE=$OUT/nccl-info.%h.%p"; else X="-x NCCL_MAX_P2P_NCHANNELS=$c"; fi
    MPI0=$MPI; MPI="$MPI $X"
    scale tri-c$c 4 run maxwell-cavity --order 4 --nx 1492 --t-end 0.0005 --device cuda --variant $V \
      --schedule async --exchange nccl --json
    scale hex-c$c 4 run maxwell3d-cavity --order 3 --nx 81 --dt 4e-4 --t-end 0.0016 --device cuda --variant $HV \
      --schedule async --exchange nccl --json
    MPI=$MPI0
  done
  grep -h "p2p channels" "$OUT"/nccl-info.* | sed 's/^[^ ]* [^ ]* //' | sort | uniq -c | head -4 ;;
eager-channels)
  nvidia-smi -L
  scale hex-1gpu 1 run maxwell3d-cavity --order 3 --nx 51 --dt 4e-4 --t-end 0.0016 --device cuda --variant $HV \
    --schedule eager --exchange host-staged --json
  for c in default 2 4 8 16 copy-engine; do
    case $c in default) X="";; copy-engine) X="-x NCCL_P2P_USE_CUDA_MEMCPY=1";; *) X="-x NCCL_MAX_P2P_NCHANNELS=$c";; esac
    MPI0=$MPI; MPI="$MPI $X"
    scale hex-eager-c$c 4 run maxwell3d-cavity --order 3 --nx 81 --dt 4e-4 --t-end 0.0016 --device cuda --variant $HV \
      --schedule eager --exchange nccl --json
    MPI=$MPI0
  done ;;
ab)
  nvidia-smi -L
  OLD=${DG_OLD:?the binary to compare with}
  hexrun() { scale "$1" "$2" run maxwell3d-cavity --order 3 --nx "$3" --dt 4e-4 --t-end 0.0016 --device cuda \
    --variant $HV --schedule eager --exchange "$4" --json; }
  trirun() { scale "$1" "$2" run maxwell-cavity --order 4 --nx "$3" --t-end 0.0005 --device cuda --variant $V \
    --schedule eager --exchange "$4" --json; }
  hexrun hex-1gpu 1 51 host-staged; trirun tri-1gpu 1 746 host-staged
  NEW=$DG
  for i in 1 2 3; do
    DG=$OLD; hexrun hex-old$i 4 81 nccl
    DG=$NEW; hexrun hex-new$i 4 81 nccl
  done
  DG=$OLD; trirun tri-old 4 1492 nccl
  DG=$NEW; trirun tri-new 4 1492 nccl ;;
partition)
  nvidia-smi -L
  GPUS=$(nvidia-smi -L | wc -l)
  hexrun() { scale "$1" "$2" run maxwell3d-cavity --order 3 --nx "$3" --dt 4e-4 --t-end 0.0016 --device cuda \
    --variant $HV --exchange "$4" --partition "$5" --json; }
  trirun() { scale "$1" "$2" run maxwell-cavity --order 4 --nx "$3" --t-end 0.0005 --device cuda --variant $V \
    --exchange "$4" --partition "$5" --json; }
  hexrun hex-1gpu 1 51 host-staged auto
  trirun tri-1gpu 1 746 host-staged auto
  for i in $(seq ${REPEATS:-3}); do
    hexrun hex2-blocks$i 2 64 nccl blocks; hexrun hex2-metis$i 2 64 nccl metis
    trirun tri2-blocks$i 2 1055 nccl blocks; trirun tri2-metis$i 2 1055 nccl metis
    if [ "$GPUS" -ge 4 ]; then
      hexrun hex4-blocks$i 4 81 nccl blocks; hexrun hex4-metis$i 4 81 nccl metis
      trirun tri4-blocks$i 4 1492 nccl blocks; trirun tri4-metis$i 4 1492 nccl metis
    fi
  done
  # an odd box on 2 GPUs: the blocks' cut steps by one layer to keep both halves equal
  hexrun hex2-odd-blocks 2 63 nccl blocks; hexrun hex2-odd-metis 2 63 nccl metis
  python3 scripts/partition_table.py "$OUT" ;;
hex-tune)
  nvidia-smi -L
  timeout 560 "$DG" autotune maxwell3d --formulation hex --orders 1..6 --precision both --device cuda:0 --db tuning-db \
    --json > "$OUT/hex-tune.txt" 2> "$OUT/hex-tune.err"
  echo "hex autotune rc $?"; tail -3 "$OUT/hex-tune.err"
  mkdir -p "$OUT/tuning-db" && cp tuning-db/*.json "$OUT/tuning-db/" ;;
esac
