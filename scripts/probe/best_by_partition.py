#!/usr/bin/env python3
"""The best candidate of each partition (the SPEC's first part: mma16, mma, tile4, elem, gemm, ...) per nodal-triangle
entry of a tuning-database file, ms per right-hand side (the candidate's median), from the candidate lists the tuner
stored; the winner first.
usage: scripts/probe/best_by_partition.py [--precision f32|f64] FILE.json [FILE.json ...]"""
import json
import sys

args = sys.argv[1:]
precision = None
if args[:1] == ["--precision"]:
    precision, args = args[1], args[2:]
if not args:
    sys.exit(__doc__)
rows = []
for key, entry in (kv for path in args for kv in json.load(open(path))["entries"].items()):
    parts = key.split("|")
    if "nodal-strong|tri" not in key or (precision and parts[5] != precision):
        continue
    best = {}
    for c in entry["candidates"]:
        if c["verified"] and c["median_s"]:
            p = c["variant"].split("/")[0]
            if p not in best or c["median_s"] < best[p]["median_s"]:
                best[p] = c
    rows.append((int(parts[4][1:]), parts[5], entry["winner"], sorted(best.items(), key=lambda kv: kv[1]["median_s"])))
for n, p, winner, best in sorted(rows, key=lambda r: (r[0], r[1])):
    print(f"N={n} {p} winner {winner}")
    print("    " + "  ".join(f"{name} {c['median_s'] * 1e3:.4f}" for name, c in best))
