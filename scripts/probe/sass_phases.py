#!/usr/bin/env python3
"""Where a kernel's warps wait, phase by phase: Nsight Compute's per-instruction source page (`ncu -i REP --page
source --csv --print-source sass`, gzipped or not) split at each barrier (BAR.SYNC), with each phase's share of the
warp-stall samples, of them the long-scoreboard ones (waiting on global or local memory), and the global loads'
L2 sectors against the ideal count (coalescing).
usage: scripts/probe/sass_phases.py FILE.csv[.gz] [...]
"""
import csv
import gzip
import sys


def rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as fh:
        table = list(csv.reader(fh))
    header = table[1]
    return [dict(zip(header, r)) for r in table[2:]]


def number(value):
    try:
        return int(value)
    except ValueError:
        return 0


if len(sys.argv) < 2:
    sys.exit(__doc__)
for path in sys.argv[1:]:
    data = rows(path)
    total = sum(number(r["Warp Stall Sampling (All Samples)"]) for r in data)
    print(f"{path}: {len(data)} instructions, {total} samples")
    print(f"{'phase':<6} {'instrs':>7} {'samples':>8} {'share':>7} {'long sb':>8} {'L2 sectors':>12} {'ideal':>11}")
    phase, acc = 0, [0, 0, 0, 0, 0]

    def flush():
        if acc[0]:
            share = 100.0 * acc[1] / total if total else 0.0
            print(f"{phase:<6} {acc[0]:>7} {acc[1]:>8} {share:>6.1f}% {acc[2]:>8} {acc[3]:>12} {acc[4]:>11}")

    for r in data:
        acc[0] += 1
        acc[1] += number(r["Warp Stall Sampling (All Samples)"])
        acc[2] += number(r.get("stall_long_sb", "0"))
        acc[3] += number(r["L2 Theoretical Sectors Global"])
        acc[4] += number(r["L2 Theoretical Sectors Global Ideal"])
        if "BAR.SYNC" in r["Source"]:
            flush()
            phase, acc = phase + 1, [0, 0, 0, 0, 0]
    flush()
