#!/usr/bin/env bash
# A/B of the nodal tile kernels: $OLD (the binary before a template change) against $NEW, alternating twice per
# variant on the same GPU: `dg run maxwell-cavity --order N --nx NX --t-end T --precision P --variant V --json`, the
# run's kernel seconds (device.kernel_seconds, the folded LSRK45 stages) and final L2 error. Reports under $OUT.
# usage: OLD=gpu/dg NEW=gpu/dg-new OUT=dir bash scripts/probe/tile_prefetch_ab.sh
set -u
OLD=${OLD:?}; NEW=${NEW:?}; OUT=${OUT:-.}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"
SPECS=${SPECS:-"3:f32:tile4/wg32/seq1/matrix-const/merged/node-major/f32/mixed:600:0.05
4:f32:tile8/wg32/seq1/matrix-const/merged/node-major/f32/mixed:600:0.05
4:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:600:0.05
5:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
6:f32:tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
7:f32:tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
8:f32:tile8/wg32/seq1/matrix-local/merged/node-major/f32/mixed:300:0.1
3:f64:tile4/wg32/seq1/matrix-const/merged/node-major/f64:600:0.05
4:f64:tile8/wg32/seq1/matrix-const/merged/node-major/f64:600:0.05"}
printf '%-3s %-4s %-58s %-9s %-9s %-9s %-9s %s\n' N P variant old1 new1 old2 new2 "L2 old / new"
for spec in $SPECS; do
  IFS=: read -r n p v nx t <<< "$spec"
  row=(); errs=()
  for i in 1 2; do for which in old new; do
    dg=$OLD; [ $which = new ] && dg=$NEW
    f="$OUT/N$n-$p-${v%%/*}-$(echo "$v" | cut -d/ -f4)-$which$i.json"
    timeout 120 "$dg" run maxwell-cavity --order "$n" --nx "$nx" --t-end "$t" --precision "$p" --variant "$v" \
      --device cuda:0 --json > "$f" 2> "${f%.json}.err"
    row+=("$(python3 -c "import json;print('%.4f'%json.load(open('$f'))['device']['kernel_seconds'])" 2>/dev/null || echo fail)")
    [ $i = 1 ] && errs+=("$(python3 -c "import json;print(json.load(open('$f'))['l2_error'])" 2>/dev/null || echo -)")
  done; done
  printf '%-3s %-4s %-58s %-9s %-9s %-9s %-9s %s\n' "$n" "$p" "$v" "${row[@]}" "${errs[0]} / ${errs[1]}"
done | tee "$OUT/table.txt"
