#!/usr/bin/env python3
"""Summaries of A/B tuner logs (ab-old.err, ab-new.err of scripts/probe/elem_face_regs.sh or elem_vector_loads.sh),
per (order, precision):
  seq2 DIR PREFIX      best candidate of each binary; of the new binary's list the best seq2 and best seq1 candidate
                       of one partition kind (PREFIX: elem or tile), and new / old of the seq2 ones both timed
  groups DIR...        of the new binary's list the best tile candidate in groups of 64 and of 32 elements (one line
                       per directory and key, the directory's last name first)
  changed DIR [KIND]   best candidate old -> new, and new / old of the changed kernels against the rest (unchanged
                       kernels); KIND merged (default: the merged element-per-thread candidates, N = 1..4) or
                       matrix-local (the element-per-thread candidates with the operator in local memory,
                       scripts/probe/elem_pair_loads.sh)
usage: ab_summary.py MODE DIR [PREFIX | KIND | DIR...]"""
import os
import statistics
import sys

sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read


def logs(d):
    return read(f"{d}/ab-old.err"), read(f"{d}/ab-new.err")


def per_key(times, key):
    return {s: v for (k, s), v in times.items() if k == key}


def seq2(d, prefix):
    old, new = logs(d)
    for key in sorted({k for k, _ in new}):
        ours, theirs = per_key(new, key), per_key(old, key)
        s2 = sorted((v, s) for s, v in ours.items() if s.startswith(prefix) and "/seq2/" in s)
        s1 = sorted((v, s) for s, v in ours.items() if s.startswith(prefix) and "/seq1/" in s)
        both = [ours[s] / theirs[s] for _, s in s2 if s in theirs]
        line = f"N={key[0]} {key[1]}: best old {min(theirs.values()):.4f}, best new {min(ours.values()):.4f}"
        if s2 and s1:
            line += f"; {prefix} seq2 best {s2[0][0]:.4f} ({s2[0][1]}), {prefix} seq1 best {s1[0][0]:.4f}"
        if both:
            line += f"; seq2 timed by both: new/old {min(both):.3f}..{max(both):.3f} ({len(both)})"
        print(line)


def groups(dirs):
    for d in dirs:
        label = "stage" if os.path.basename(os.path.normpath(d)).startswith("stage") else "unit"
        _, new = logs(d)
        for key in sorted({k for k, _ in new}):
            ours = per_key(new, key)
            best = min((v, s) for s, v in ours.items())
            w64 = min((v, s) for s, v in ours.items() if s.startswith("tile") and "/wg64/" in s)
            w32 = min((v, s) for s, v in ours.items() if s.startswith("tile") and "/wg32/" in s)
            print(f"{label} N={key[0]} {key[1]}: best {best[0]:.4f} {best[1]}; tile wg64 best {w64[0]:.4f} {w64[1]}; "
                  f"tile wg32 best {w32[0]:.4f}")


def changed(d, kind="merged"):
    old, new = logs(d)
    if kind == "merged":
        print("maxwell2d right-hand side, N = 1..4: best candidate old -> new, and new/old of the merged element-per-thread "
              "candidates (changed) and of the rest (unchanged kernels)")
        elem = lambda s: s.startswith("elem") and "/merged/" in s
    else:
        print("maxwell2d right-hand side: best candidate old -> new, and new/old of the element-per-thread candidates "
              "with the operator in local memory (changed) and of the rest (unchanged kernels)")
        elem = lambda s: s.startswith("elem") and "/matrix-local/" in s
    for key in sorted({k for k, _ in new}):
        ours, theirs = per_key(new, key), per_key(old, key)
        r = [ours[s] / theirs[s] for s in ours if s in theirs and elem(s)]
        o = [ours[s] / theirs[s] for s in ours if s in theirs and not elem(s)]
        bo, bn = min((v, s) for s, v in theirs.items()), min((v, s) for s, v in ours.items())
        print(f"N={key[0]} {key[1]}: best {bo[0]:.4f} -> {bn[0]:.4f} ({bn[0] / bo[0]:.3f}, {bn[1]}); {kind} elem median "
              f"{statistics.median(r):.3f} [{min(r):.3f}..{max(r):.3f}] of {len(r)}; others median {statistics.median(o):.3f}")


mode, args = sys.argv[1], sys.argv[2:]
{"seq2": lambda: seq2(*args), "groups": lambda: groups(args), "changed": lambda: changed(*args)}[mode]()
