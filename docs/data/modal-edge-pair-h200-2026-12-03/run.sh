#!/usr/bin/env bash
# The modal edge kernel with two work items per edge (`edge-flux-pair`): A/B of the issue's vortex against the
# committed binary with the variant forced, Nsight Compute's kernel durations, then (PARTS) exhaustive tunings of
# the H200 modal entries into $OUT/db.
set -u
cd "$(dirname "$0")/../../.."
mkdir -p gpu/old gpu/new && tar -C gpu/old -xJf gpu/recheck.tar.xz && tar -C gpu/new -xJf gpu/edgepair.tar.xz
R=$OUT/r; mkdir -p $R $OUT/db
export DG_CACHE_DIR=$(mktemp -d)
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
source scripts/probe/vortex_run.sh
case " ${PARTS:-ab} " in *" ab "*)
for p in 4 3 2 1; do for P in f64 f32; do V=modal/wg128/edge-flux-pair/shared/mode-major/$P
  for tag in old new old new; do BIN=gpu/$tag/dg vortex $p $P $tag-$RANDOM $V; done
done; done
for P in f64 f32; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw --launch-skip 20 --launch-count 24 \
    gpu/new/dg run euler-isentropic-vortex --order 4 --nx 600 --scheme rk4 --dt 5e-5 --t-end 5e-4 --precision $P --device cuda:0 \
    --variant modal/wg128/edge-flux-pair/shared/mode-major/$P > $R/ncu-new-$P.csv 2> $R/ncu-new-$P.err
  grep -E "modal_edge_flux|element_lift" $R/ncu-new-$P.csv | awk -F'","' '{print $5, $NF}' | sort | uniq -c | head -8
done;; esac
for f in ${TUNE_FLUXES:-}; do
  timeout 560 gpu/new/dg --db $OUT/db autotune euler2d --formulation modal-tri --flux $f --orders ${TUNE_ORDERS:-1..5} --precision both --device cuda:0 > $R/tune-$f.txt 2> $R/tune-$f.err
  echo "tune $f rc $?"; grep -iE "winner|→|best" $R/tune-$f.txt | head -12 | cut -c1-160
done
date -u +%FT%TZ | tee -a $R/date
tar -czf $OUT/r.tgz -C $OUT r && rm -rf $R
