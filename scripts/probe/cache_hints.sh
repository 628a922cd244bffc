# Cache hints in the nodal kernels: the right-hand side stored evict-first (`__stcs`, binary A) and, in B, the element
# kernels' own state also loaded without allocating in L1 (`ld.global.nc.L1::no_allocate`), against the committed
# binary: `dg bench --variant` on each order's winner, the three binaries alternating, two passes.
# Usage on the device: R=$OUT BINS="gpu/c/dg-old gpu/c/dg-A gpu/c/dg-B" bash this.
set -u
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u
for pass in 1 2; do
  for spec in "2 elem/wg128/seq1/matrix-const/merged/node-major/f32/diff-first" \
              "3 elem/wg128/seq1/matrix-const/merged/node-major/f32/mixed" \
              "4 elem/wg128/seq2/matrix-local/merged/node-major/f32/mixed" \
              "4 elem/wg128/seq1/matrix-local/merged/node-major/f64/diff-first" \
              "3 elem/wg128/seq1/matrix-local/merged/node-major/f64" \
              "5 tile4/wg32/seq1/matrix-local/merged/node-major/f32/mixed" \
              "8 tile6/wg32/seq1/matrix-local/merged/node-major/f32/mixed"; do
    set -- $spec
    for bin in $BINS; do
      tag=$(basename $bin)
      $bin bench maxwell2d --orders $1 --variant $2 --device cuda:0 > $R/b-$pass-$1-${2##*/}-$tag.txt 2> $R/b-$pass-$1-${2##*/}-$tag.err
      echo "pass $pass N=$1 $tag $(grep -E "^ *$1 f" $R/b-$pass-$1-${2##*/}-$tag.txt | awk '{print $3, $4, $8}') rc=$?"
    done
  done
done
date -u
