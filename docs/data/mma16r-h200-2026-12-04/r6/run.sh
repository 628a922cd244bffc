#!/usr/bin/env bash
# the committed binary: compiled-in database, empty kernel cache, every winner verified and timed again
set -u
mkdir -p /tmp/b && tar -C /tmp/b -xJf gpu/r6.tar.xz; DG=/tmp/b/dg; R=$OUT; D="--device cuda:0"
nvidia-smi -L; date -u +%FT%TZ | tee $R/date
export DG_CACHE_DIR=$(mktemp -d)
timeout 200 $DG bench maxwell2d --orders 1..8 --precision both $D > $R/bench.txt 2> $R/bench.err; echo "bench rc=$?"; cat $R/bench.txt
timeout 200 $DG bench maxwell2d --orders 5..8 --precision f64 --operation stage $D > $R/bench-stage.txt 2> $R/bench-stage.err; echo "bench stage rc=$?"; cat $R/bench-stage.txt
grep -ci "tun" $R/bench.err | head -2
