#!/usr/bin/env python3
"""Per (order, precision) of an A/B tuner pair (ab-old.err, ab-new.err of scripts/probe/elem_face_regs.sh): the best
candidate of each binary, and of the new binary's list the best seq2 and the best seq1 candidate of one partition
kind (PREFIX: elem or tile), with the ratio of the seq2 candidates the old binary timed too (new / old).
usage: seq2_summary.py DIR PREFIX"""
import sys

sys.path.insert(0, "scripts/probe")
from tuner_log import candidate_times as read

d, prefix = sys.argv[1], sys.argv[2]
old, new = read(f"{d}/ab-old.err"), read(f"{d}/ab-new.err")
for key in sorted({k for k, _ in new}):
    ours = {s: v for (k, s), v in new.items() if k == key}
    theirs = {s: v for (k, s), v in old.items() if k == key}
    s2 = sorted((v, s) for s, v in ours.items() if s.startswith(prefix) and "/seq2/" in s)
    s1 = sorted((v, s) for s, v in ours.items() if s.startswith(prefix) and "/seq1/" in s)
    both = [ours[s] / theirs[s] for _, s in s2 if s in theirs]
    line = f"N={key[0]} {key[1]}: best old {min(theirs.values()):.4f}, best new {min(ours.values()):.4f}"
    if s2 and s1:
        line += f"; {prefix} seq2 best {s2[0][0]:.4f} ({s2[0][1]}), {prefix} seq1 best {s1[0][0]:.4f}"
    if both:
        line += f"; seq2 timed by both: new/old {min(both):.3f}..{max(both):.3f} ({len(both)})"
    print(line)
