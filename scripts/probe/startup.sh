#!/usr/bin/env bash
# The start-up (#14): process start to the end of the first step of the 720,000-triangle Maxwell run with a
# database hit (or another run: RUN="acoustic-cube --order 2 --nx 40"), one cold kernel cache then three warm runs,
# per precision and per binary; the phases of `--json`.
# usage: OUT=dir [DGS="gpu/dg gpu/dg-before"] [PRECISIONS="f32 f64"] [RUNS="cold warm1 warm2 warm3"] [RUN="…"]
#        bash scripts/probe/startup.sh
set -u
PACK=${OUT:-.}; OUT=$PACK/r; mkdir -p "$OUT"
RUN=${RUN:-maxwell-cavity --order 4 --nx 600}
nvidia-smi -L; date -u +%FT%TZ | tee "$OUT/date"; nproc
for DG in ${DGS:-gpu/dg}; do
  name=$(basename "$DG")
  for p in ${PRECISIONS:-f32 f64}; do
    cache=$(mktemp -d)
    for run in ${RUNS:-cold warm1 warm2 warm3}; do
      o="$OUT/startup-${RUN%% *}-$name-$p-$run"
      t0=$(date +%s.%N)
      DG_CACHE_DIR=$cache "$DG" --db tuning-db run $RUN --precision $p --t-end 1e-5 --device cuda:0 --json > $o.json 2> $o.err
      t1=$(date +%s.%N)
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
m=d.get('startup',[]); prev=0.0; parts=[]
for x in m: parts.append('%s %.3f'%(x['phase'],x['seconds']-prev)); prev=x['seconds']
print('${RUN%% *} $name $p $run: %.3f s'%prev,'(process %.2f s)'%($t1-$t0),'|',', '.join(parts),'|',v['choice']['source'],v['choice']['variant'],'| L2 %.6e'%(d.get('l2_error') or float('nan')))" || tail -2 $o.err
    done
  done
done
tar -czf "$PACK/results.tgz" -C "$OUT" . && rm -rf "$OUT" && echo packed
