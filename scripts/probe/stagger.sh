#!/usr/bin/env bash
# Do the groups of a multiprocessor run their phases in lockstep? A binary built with scripts/probe/stagger.patch
# (applies to 1f6ebb9) renders the mirror tiles under DG_PROBE_STAGGER=ns:slots:wave with a start delay for the
# first wave's groups (GROUP_ID < wave): each group takes a slot from a per-multiprocessor counter (modulo slots) and
# sleeps slot × ns (__nanosleep) before its first load, so that the resident groups' load and product phases are
# offset from then on. Job lines: ORDER SPEC-HEAD PRECISION [STAGGER] (the SPEC's tail
# seq1/matrix-local/merged/tiled/<precision>/mixed; no STAGGER: the kernel unchanged); `dg bench maxwell2d --variant`
# at 16M DOF, each process verifying first.
# usage: EXP=path/to/dg-with-the-patch OUT=dir JOBS="…" bash scripts/probe/stagger.sh
set -u
EXP=${EXP:?}; OUT=${OUT:?}; JOBS=${JOBS:?}; R=$OUT/r; mkdir -p "$R"; D="--device cuda:0"
. "$(dirname "$0")/bench_variant_lib.sh"
nvidia-smi -L; date -u +%FT%TZ | tee -a "$R/date"
echo "$JOBS" | while read -r o v p st; do
  if [ -n "${st:-}" ]; then b "$o" "$v/seq1/matrix-local/merged/tiled/$p/mixed" DG_PROBE_STAGGER="$st"
  else b "$o" "$v/seq1/matrix-local/merged/tiled/$p/mixed"; fi
done | tee "$R/stagger.txt"
date -u +%FT%TZ | tee -a "$R/date"; (cd "$OUT" && tar -czf results.tgz r)
