#!/usr/bin/env python3
"""The table of `scripts/gpu_mpi_scaling.sh partition`: for each hexahedral run over ranks (hex2-*, hex4-*), how the
mesh was split, the busiest rank's halo cells, and the slowest rank's seconds per right-hand side in each NCCL schedule
(the run's own trials) with the weak-scaling efficiency against the one-GPU run (hex-1gpu: its best trial, per cell).

usage: python3 scripts/partition_table.py DIR
"""
import glob
import json
import os
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def trials(report):
    return {(t["exchange"], t["schedule"]): t["seconds_per_rhs"] for t in report["device"]["schedule"]["trials"]}


def main():
    directory = sys.argv[1]
    base = load(os.path.join(directory, "hex-1gpu.json"))
    t1 = min(trials(base).values()) / base["elements"]
    print(f"one GPU: {min(trials(base).values()) * 1e3:.4f} ms per right-hand side, {base['elements']} cells")
    print("| run | GPUs | partition | busiest halo | nccl sync | nccl async | nccl eager |")
    print("|---|---|---|---|---|---|---|")
    for path in sorted(glob.glob(os.path.join(directory, "hex[24]-*.json"))):
        name = os.path.basename(path)[:-5]
        try:
            r = load(path)
        except (OSError, ValueError) as e:
            print(f"| {name} | — | no report ({e}) | | | | |")
            continue
        ranks = r["ranks"]
        p = r["partition"]
        how = "METIS" if p["kind"] == "metis" else "blocks " + "×".join(str(g) for g in p["grid"])
        halo = max(x["halo_elements"] for x in ranks)
        per_gpu = r["elements"] / len(ranks)
        cells = []
        for s in ["sync", "async", "eager"]:
            t = trials(r).get(("nccl", s))
            cells.append("—" if t is None else f"{t * 1e3:.4f} ms ({t1 * per_gpu / t * 100:.1f}%)")
        print(f"| {name} | {len(ranks)} | {how} | {halo} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
