#!/usr/bin/env bash
# The two tiled layouts in the tuner's lists (2026-12-05): the modal `tiled` layout in `ModalVariant::all` and the
# f64 tensor-core kernels' tiled twins in the nodal `Variant::all` (the patch that was scripts/probe/mma_tiled_in_list.patch), the
# entries they touch tuned again into $DB (a copy of the shipped database, or the one a previous part left), one part
# per device call (each under ten minutes):
#   ab      — the issue's vortex at p = 3, 4 in both precisions with the shipped modal winners and their tiled twins
#             (each twin verified first), two passes;
#   modal   — euler2d modal-tri hllc_flux p = 1..4, f64 then f32 (the issue's vortex), each within what is left of
#             DEADLINE seconds (default 570) since the script started;
#   rusanov — the modal entries that were only re-keyed when the tiled layout joined the list: euler2d modal-tri
#             numerical_flux p = 1..5 and hllc_flux p = 5, both precisions, within DEADLINE as `modal`;
#   nodal   — the f64 nodal entries (maxwell2d right-hand side and stage N = 1..8, euler2d nodal N = 1..4), then
#             `dg bench maxwell2d` f64 of both operations on $DB;
#   runs    — the issue's vortex at p = 1..4 in both precisions with $DB, the shipped modal winners of p = 3, 4 by
#             --variant beside them, a timed tuning of maxwell2d N = 7 f64 in two processes and untruncated, a tiled
#             modal winner under compute-sanitizer.
# Results in $OUT/results.tgz (r/, the database in r/db).
# usage: DG=path/to/dg DB=dir OUT=dir PARTS="modal" bash scripts/probe/lists_retune.sh
set -u
DG=${DG:?}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
PARTS=" ${PARTS:?} "
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
[ -d "$DB" ] || cp -r tuning-db "$DB"
source scripts/probe/nodal_retune_lib.sh
source scripts/probe/vortex_run.sh
declare -A SHIPPED=([3-f32]=modal/wg128/element-regs/shared/mode-major/f32 [4-f32]=modal/wg128/edge-flux/const/mode-major/f32
                    [3-f64]=modal/wg64/edge-flux/const/mode-major/f64 [4-f64]=modal/wg128/edge-flux-pair/shared/mode-major/f64)
case "$PARTS" in *" ab "*)
  for k in 4-f64 3-f64 4-f32 3-f32; do
    W=${SHIPPED[$k]}; T=$(echo "$W" | sed 's#/mode-major/#/tiled/#')
    timeout 60 "$DG" verify euler2d --formulation modal-tri --flux hllc_flux --order ${k%-*} --variant "$T" $D \
      > "$R/verify-$k.txt" 2>&1; echo "verify $T p=${k%-*}: rc $?"
    for pass in 1 2; do vortex ${k%-*} ${k#*-} "shipped-$pass" "$W"; vortex ${k%-*} ${k#*-} "tiled-$pass" "$T"; done
  done
esac
case "$PARTS" in *" modal "*)
  for p in f64 f32; do
    t0=$(date +%s); left=$(( ${DEADLINE:-570} - SECONDS ))
    [ "$left" -gt 30 ] || { echo "tune modal $p: no time left"; continue; }
    DG_CACHE_DIR=$(mktemp -d) timeout "$left" "$DG" --db "$DB" autotune euler2d --formulation modal-tri \
      --flux hllc_flux --orders 1..4 --precision $p $D > "$R/tune-modal-$p.txt" 2> "$R/tune-modal-$p.err"
    echo "tune modal $p rc $? ($(( $(date +%s) - t0 )) s)"; grep -E "winner|faster" "$R/tune-modal-$p.txt" | cut -c1-190
  done
esac
case "$PARTS" in *" rusanov "*)
  for job in "numerical_flux 1..5" "hllc_flux 5"; do
    t0=$(date +%s); left=$(( ${DEADLINE:-570} - SECONDS ))
    [ "$left" -gt 30 ] || { echo "tune modal $job: no time left"; continue; }
    set -- $job
    DG_CACHE_DIR=$(mktemp -d) timeout "$left" "$DG" --db "$DB" autotune euler2d --formulation modal-tri \
      --flux "$1" --orders "$2" --precision both $D > "$R/tune-modal-$1.txt" 2> "$R/tune-modal-$1.err"
    echo "tune modal $job rc $? ($(( $(date +%s) - t0 )) s)"; grep -E "winner|faster" "$R/tune-modal-$1.txt" | cut -c1-190
  done
esac
case "$PARTS" in *" nodal "*)
  TUNE_TIMEOUT=${NODAL_TIMEOUT:-150} nodal_retune_maxwell f64
  TUNE_TIMEOUT=${EULER_TIMEOUT:-70} nodal_retune_euler f64
  nodal_bench f64
esac
case "$PARTS" in *" runs "*)
  DGDB="$DG --db $DB"
  for P in f32 f64; do for p in 1 2 3 4; do BIN=$DGDB vortex $p $P tuned; done; done
  for k in 3-f32 4-f32 3-f64 4-f64; do BIN=$DGDB vortex ${k%-*} ${k#*-} shipped "${SHIPPED[$k]}"; done
  for k in 4-f64 4-f32; do BIN=$DGDB vortex ${k%-*} ${k#*-} tuned-again; done
  for run in a b; do
    C=$R/cache-$run; rm -rf "$C"; mkdir -p "$C"; T=$(mktemp -d)
    DG_CACHE_DIR=$C timeout 60 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision f64 $D > "$R/tunetime-f64-$run.txt" 2>&1
    echo "tunetime f64 $run rc $?: $(grep -iE "winner" "$R/tunetime-f64-$run.txt" | tail -1 | sed 's/.*winner //')"
  done
  T=$(mktemp -d)
  DG_CACHE_DIR=$R/cache-b timeout 90 "$DG" --db "$T" autotune maxwell2d --orders 7 --precision f64 --every-variant --no-early-stop $D > "$R/tunetime-f64-u.txt" 2>&1
  echo "tunetime f64 untruncated rc $?: $(grep -iE "winner" "$R/tunetime-f64-u.txt" | tail -1 | sed 's/.*winner //')"
  rm -rf "$R"/cache-*
  V=$(python3 -c "
import json,glob
for f in sorted(glob.glob('$DB/*.json')):
  for k,e in json.load(open(f))['entries'].items():
    if 'modal' in k and '/tiled/' in e['winner']: print(e['winner'], k.split('|')[4][1:]); raise SystemExit" 2>/dev/null)
  if [ -n "$V" ]; then
    timeout 200 compute-sanitizer --tool memcheck "$DG" verify euler2d --formulation modal-tri --flux hllc_flux --order ${V#* } \
      --variant ${V% *} $D > "$R/sanitizer.txt" 2>&1; echo "sanitizer $V: rc $? $(grep -E 'ERROR SUMMARY' "$R/sanitizer.txt")"
  else echo "no tiled modal winner in $DB"; fi
esac
rm -rf "$R/db"; cp -r "$DB" "$R/db"
date -u +%FT%TZ | tee -a "$R/date"
(cd "$OUT" && tar -czf results.tgz r && rm -rf r)
