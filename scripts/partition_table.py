#!/usr/bin/env python3
"""The table of `scripts/gpu_mpi_scaling.sh partition`: for each run over ranks (hex2-*, hex4-*, tri2-*, tri4-*), how
the mesh was split, the busiest rank's own and halo elements, and the slowest rank's seconds per right-hand side in each
NCCL schedule (the run's own trials) with the weak-scaling efficiency against the one-GPU run of its family (hex-1gpu,
tri-1gpu: its best trial) per element of an even share of the mesh.

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
    for family in ["hex", "tri"]:
        base_path = os.path.join(directory, f"{family}-1gpu.json")
        if not os.path.exists(base_path):
            continue
        base = load(base_path)
        t1 = min(trials(base).values()) / base["elements"]
        print(f"\n{family}: one GPU {min(trials(base).values()) * 1e3:.4f} ms per right-hand side, {base['elements']} elements")
        print("| run | GPUs | partition | busiest rank: own + halo | nccl sync | nccl async | nccl eager |")
        print("|---|---|---|---|---|---|---|")
        for path in sorted(glob.glob(os.path.join(directory, f"{family}[24]-*.json"))):
            name = os.path.basename(path)[:-5]
            try:
                r = load(path)
            except (OSError, ValueError) as e:
                print(f"| {name} | — | no report ({e}) | | | | |")
                continue
            ranks = r["ranks"]
            p = r["partition"]
            how = "METIS" if p["kind"] == "metis" else "blocks " + "×".join(str(g) for g in p["grid"])
            own = max(x["elements"] for x in ranks)
            halo = max(x["halo_elements"] for x in ranks)
            cells = []
            for s in ["sync", "async", "eager"]:
                t = trials(r).get(("nccl", s))
                # weak-scaling efficiency: one GPU's time per element against the slowest rank's per element of the
                # busiest rank (an even share of the mesh: what a perfect split would give every rank)
                share = r["elements"] / len(ranks)
                cells.append("—" if t is None else f"{t * 1e3:.4f} ms ({t1 * share / t * 100:.1f}%)")
            print(f"| {name} | {len(ranks)} | {how} | {own} + {halo} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
