#!/usr/bin/env python3
"""The tables of scripts/gpu_hdg.sh's reports: the stage breakdown per mesh and degree (device kernels and wall
clock, the native CPU path beside), the local generation's candidates (generated Cholesky against cuBLAS's batched
LU) and GFLOP/s beside cuBLAS's batched DGEMM on the same shapes, the preconditioners' iterations.
usage: python3 scripts/hdg_table.py DIR"""
import glob
import json
import os
import sys

d = sys.argv[1]


def load(name):
    path = os.path.join(d, name + ".json")
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None


dated = sorted(glob.glob(os.path.join(d, "date*")))
date = open(dated[0]).read().strip() if dated else "?"
first = next((r for r in (load(f"gpu-n{n}-p{p}") for n in (20, 40, 80, 320) for p in (1, 3, 5, 7, 9)) if r), None)
print(f"Measured {date} on {first['device'] if first else '?'}, `scripts/gpu_hdg.sh`.\n")
checked = bool(first) and "local_solve" in first["device_run"]
setup = ("uploads, the CPU's element solves the candidates are checked against) + the stages' wall clock (the local "
         "stage's includes timing and checking every candidate;" if checked else
         "uploads) + the stages' wall clock (the local stage's includes timing the three widths;")
print("Kernel seconds per stage (device events); end to end = the host's set-up (tables, edge lists, loads and boundary "
      f"data, compilation or the kernel cache, {setup} the recovery's includes the host's error norms); the native CPU path's four stages on the same "
      "machine (its local stage computes the loads).\n")
print("| mesh | P | trace unknowns | L2 error | local | assembly | CG (iterations) | recovery | kernels | end to end | "
      "local GFLOP/s | CPU end to end | speed-up | CPU L2 |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for n in (20, 40, 80, 320):
    for p in (1, 3, 5, 7, 9):
        g, c = load(f"gpu-n{n}-p{p}"), load(f"cpu-n{n}-p{p}")
        if not g:
            print(f"| {n}² | {p} | (no report) |")
            continue
        k = g["device_run"]["kernel_seconds"]
        ms = lambda s: f"{1e3 * s:.3f} ms"
        dev_total = k["local"] + k["assembly"] + k["solve"] + k["recovery"]
        end = g["device_run"]["setup_seconds"] + g["total_seconds"]
        cpu = f"{c['total_seconds']:.3f} s" if c else "—"
        speedup = f"{c['total_seconds'] / end:.1f}×" if c else "—"
        cpu_l2 = f"{c['l2_error']:.3e}" if c else "—"
        print(f"| {n}² | {p} | {g['trace_unknowns']} | {g['l2_error']:.3e} | {ms(k['local'])} | {ms(k['assembly'])} | "
              f"{ms(k['solve'])} ({g['device_run']['iterations']}) | {ms(k['recovery'])} | {ms(dev_total)} | "
              f"{end:.3f} s | {g['device_run']['local_gflops']:.0f} | {cpu} | {speedup} | {cpu_l2} |")
print("\nLocal generation candidates (device seconds of the whole local stage, the fastest width of each element "
      "solve; each candidate's largest difference from the CPU's Kᵉ on 24 elements in brackets). GFLOP/s count the "
      "generated kernel's operations (`dg_hdg::device::local_flops`) for both; cuBLAS's batched DGEMM multiplies every "
      "element's N × N matrix by its N × (3(P + 1) + 1) right-hand sides (2N²(3P + 4) per element).\n")
print("| mesh | P | generated | cublas-lu | kept | local GFLOP/s (generated) | cuBLAS batched DGEMM GFLOP/s | "
      "generated ÷ DGEMM |")
print("|---|---|---|---|---|---|---|---|")
for n in (20, 40, 80, 320):
    for p in (1, 3, 5, 7, 9):
        g = load(f"gpu-n{n}-p{p}")
        if not g or "local_solve" not in g["device_run"]:
            continue
        dr = g["device_run"]
        best = {}
        for t in dr["local_trials"]:
            if t["solve"] not in best or t["seconds"] < best[t["solve"]]["seconds"]:
                best[t["solve"]] = t
        cell = lambda t: f"{1e3 * t['seconds']:.3f} ms (w{t['width']}, {t['error']:.0e})" if t else "—"
        gen, lib = best.get("generated"), best.get("cublas-lu")
        # the rate of the generated candidate from the kept one's (same operation count)
        kept = dr["local_gflops"] * dr["kernel_seconds"]["local"]
        gen_rate = kept / gen["seconds"] if gen else float("nan")
        ref = dr.get("gemm_reference")
        ref_rate = f"{ref['gflops']:.0f}" if ref else "—"
        ratio = f"{gen_rate / ref['gflops']:.2f}" if ref else "—"
        print(f"| {n}² | {p} | {cell(gen)} | {cell(lib)} | {dr['local_solve']} w{dr['local_width']} | {gen_rate:.0f} | "
              f"{ref_rate} | {ratio} |")
print("\nSeed 004's Table 1 on the device (40², L∞ / L2; the paper's GPU column beside):\n")
paper = {1: (1.59334e-02, 3.95318e-03), 2: (4.95546e-04, 8.04917e-05), 3: (1.10739e-05, 1.3446e-06),
         4: (1.93802e-07, 1.88309e-08), 5: (5.71909e-09, 1.07007e-09), 6: (1.40495e-08, 4.63559e-09),
         9: (1.17087e-07, 2.92382e-08)}
print("| P | L∞ | L2 | paper L∞ | paper L2 | CPU path L2 |")
print("|---|---|---|---|---|---|")
for p in range(1, 10):
    g, c = load(f"gpu-n40-p{p}"), load(f"cpu-n40-p{p}")
    if not g:
        continue
    pl = paper.get(p)
    linf, l2 = (f"{pl[0]:.3e}", f"{pl[1]:.3e}") if pl else ("—", "—")
    cpu = f"{c['l2_error']:.3e}" if c else "—"
    print(f"| {p} | {g['max_error']:.3e} | {g['l2_error']:.3e} | {linf} | {l2} | {cpu} |")
print("\n| mesh | P | block Jacobi: iterations, CG | Jacobi: iterations, CG |")
print("|---|---|---|---|")
for n in (80, 320):
    for p in (1, 3, 5, 7, 9):
        b, j = load(f"gpu-n{n}-p{p}"), load(f"jacobi-n{n}-p{p}")
        cell = lambda r: (f"{r['device_run']['iterations']}, {1e3 * r['device_run']['kernel_seconds']['solve']:.2f} ms"
                          if r else "—")
        print(f"| {n}² | {p} | {cell(b)} | {cell(j)} |")
db = [(n, load(f"db1-n{n}-p9"), load(f"db2-n{n}-p9")) for n in (80, 320)]
if any(a and b for _, a, b in db):
    print("\nThe tuning database (P = 9, block Jacobi): the first run times and checks every local candidate and "
          "stores the winner; the second takes it from the database and runs and checks it alone.\n")
    print("| mesh | run | chosen | candidates run | local stage, wall | end to end | L2 error |")
    print("|---|---|---|---|---|---|---|")
    for n, a, b in db:
        for label, r in (("first", a), ("second", b)):
            if not r:
                continue
            d = r["device_run"]
            end = d["setup_seconds"] + r["total_seconds"]
            print(f"| {n}² | {label} | {d['local_choice']['source']}: {d['local_choice']['variant']} | "
                  f"{len(d['local_trials'])} | {1e3 * r['seconds']['local']:.1f} ms | {end:.3f} s | {r['l2_error']:.3e} |")
