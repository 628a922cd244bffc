#!/usr/bin/env bash
# The f32 tuning list with the tf32 mirror kernel under launch bounds for nine groups (`mmamirrorb9`, mixed, groups of
# 16) on an H100: maxwell2d's right-hand side N = 1..8 f32 and its stage at N = 8 f32 tuned into $DB (exhaustive, each
# candidate verified first, fresh kernel cache); `dg bench maxwell2d --orders 1..8 --precision f32` with them; the
# tuning of N = 8 f32 timed in two processes on empty databases and caches, and once untruncated. $OUT/db and
# $OUT/results.tgz packed after each step.
# Usage: DG=path/to/dg DB=dir OUT=dir bash scripts/probe/tune_tf32_b9.sh
set -u
. "$(dirname "$0")/mirror_probe_lib.sh"
DG=${DG:?}; DB=${DB:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; date -u; } | tee -a "$R/date"
tune_b9_keys
