#!/usr/bin/env bash
# Partition `stream` (element per work item, the next element's data copied into local memory by cp.async while
# the current one is computed; scripts/probe/stream_partition.patch and stream_lean.patch, measured and not kept):
# the A/B of scripts/probe/family_ab.sh on the stream candidates. $NEW is a binary built with the patch applied,
# $OLD one without it (every other kernel byte-identical, scripts/same_kernels.sh).
# usage: OLD=gpu/dg-old NEW=gpu/dg OUT=dir PARTS="ab" bash scripts/probe/stream_ab.sh
FOCUS='^stream/' exec bash "$(dirname "$0")/family_ab.sh"
