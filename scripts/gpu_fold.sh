#!/usr/bin/env bash
# The nodal Maxwell loop on one GPU, LSRK45 stages unfolded (the previous binary, $DG_OLD) against folded into the
# merged kernel's store ($DG): every order N = 1..8 in both precisions on 300² cells (180,000 triangles) to
# t = 0.05, each with the bench's winner partition (element per work item at low orders, the tile partition above).
# (The committed data ran before the f64 N = 7, 8 line below was added: those two orders are missing there.)
# usage: DG=gpu/dg DG_OLD=gpu/dg-old OUT=dir bash scripts/gpu_fold.sh
set -u
OUT=${OUT:-.}; DG=${DG:-gpu/dg}; OLD=${DG_OLD:?the unfolded binary}
nvidia-smi -L; date -u +%FT%TZ > "$OUT/date"
for p in f32 f64; do
  for n in 1 2 3 4 5 6 7 8; do
    V=elem/wg128/seq1/matrix-local/merged/node-major/$p/diff-first
    if { [ $p = f32 ] && [ $n -ge 6 ]; } || { [ $p = f64 ] && [ $n -ge 5 ]; }; then
      V=tile4/wg32/seq1/matrix-local/merged/node-major/$p
    fi
    # f64 above N = 6: the matrices do not fit the 48 KiB of local memory beside the fluxes
    if [ $p = f64 ] && [ $n -ge 7 ]; then V=tile4/wg32/seq1/matrix-const/merged/node-major/f64; fi
    for b in old new; do
      BIN=$DG; [ $b = old ] && BIN=$OLD
      o=$OUT/maxwell-N$n-$p-$b
      timeout 60 $BIN run maxwell-cavity --order $n --nx 300 --t-end 0.05 --precision $p --device cuda:0 --variant $V \
        --json > $o.json 2> $o.err
      python3 -c "
import json;d=json.load(open('$o.json'));v=d['device']
print('N=$n $p $b steps',d['steps'],'L2 %.6e'%d['l2_error'],'loop %.3f'%sum(v['loop_split'].values()),'kernels %.3f'%v['kernel_seconds'],'GDOF.RHS/s %.1f'%(d['throughput']/1e9),'folded',v.get('stages_folded'))" || tail -2 $o.err
    done
  done
done
