#!/bin/bash
# The vortex at p = 4 in f64 with the shipped winner and the mma variant on 273,800 triangles (the tuner's
# size) and on 720,000, and the f32 winner at p = 4 three times. DG binary gpu/dg; OUT=dir bash scripts/probe/modal_mma_size.sh
v() { # tag order nx precision variant
  gpu/dg run euler-isentropic-vortex --order $2 --nx $3 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision $4 --device cuda:0 --variant $5 --json > $OUT/$1.json 2> $OUT/$1.err
  python3 -c "
import json; d=json.load(open('$OUT/$1.json')); p=d['order']; pts=d['elements']*(p+1)*(p+2)//2
print('$1', d['elements'], round(pts*d['rhs_evaluations']/d['wall_seconds']/1e9,2), 'Gpts/s', d['density_l2_error'], '$5')" || tail -2 $OUT/$1.err
}
v small-regs 4 370 f64 modal/wg256/element-regs/shared/mode-major/f64
v small-mma 4 370 f64 modal/wg128/mma/const/mode-major/f64
v big-regs 4 600 f64 modal/wg256/element-regs/shared/mode-major/f64
v big-mma 4 600 f64 modal/wg128/mma/const/mode-major/f64
for i in 1 2 3; do v f32-p4-$i 4 600 f32 modal/wg256/element-regs/shared/mode-major/f32; done
