#!/usr/bin/env bash
# Issue 14: the Euler vortex loop (p = 1, 3, f32) with Runge–Kutta updates folded into the modal kernels (gpu/dg)
# against the binary before (gpu/dg_before, built from the parent commit), per layout, and ncu's per-kernel time
# and DRAM traffic of both at p = 1 (element-major). Run on the GPU machine with both binaries carried; $OUT.
set -u
for o in 1 3; do for v in element/const/elem-major element/const/mode-major edge/const/mode-major; do for b in dg_before dg; do
  gpu/$b run euler-isentropic-vortex --order $o --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.025 --precision f32 --device cuda:0 --variant modal/wg64/$v/f32 --json > $OUT/r.json 2>$OUT/r.err || { echo "$b $o $v failed"; tail -2 $OUT/r.err; continue; }
  python3 -c "
import json; d=json.load(open('$OUT/r.json')); dev=d['device']; s=dev['loop_split']
print('p=$o $v $b: wall %.3f kernels %.3f saving %.3f inspecting %.3f stepping %.3f' % (d['wall_seconds'], dev['kernel_seconds'], s['saving_seconds'], s['inspecting_seconds'], s['stepping_seconds']))"
done; done; done
ncu --kernel-name regex:'modal_element|lincomb' --launch-skip 40 --launch-count 12 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread gpu/dg run euler-isentropic-vortex --order 1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0025 --precision f32 --device cuda:0 --variant modal/wg64/element/const/elem-major/f32 > $OUT/ncu_new.txt 2>&1
ncu --kernel-name regex:'modal_element|lincomb' --launch-skip 40 --launch-count 12 --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread gpu/dg_before run euler-isentropic-vortex --order 1 --nx 600 --scheme rk4 --dt 5e-5 --t-end 0.0025 --precision f32 --device cuda:0 --variant modal/wg64/element/const/elem-major/f32 > $OUT/ncu_old.txt 2>&1
for f in new old; do echo "== $f"; grep -E "modal_element|lincomb|duration|bytes|registers" $OUT/ncu_$f.txt | head -60 | awk '{$1=$1; print}' | paste -sd' ' | sed 's/modal_element/\nmodal_element/g; s/lincomb/\nlincomb/g' | cut -c1-250; done
