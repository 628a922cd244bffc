#!/usr/bin/env python3
"""Whether two dg restart files hold the same state: position (step, t), the stepper's counters and every array
bit for bit (the command lines may differ). Exit 0 and one line when they do, 1 with the difference otherwise.
usage: restart_same.py A.restart B.restart"""
import json, struct, sys

MAGIC = b"dg-restart\n"


def load(path):
    data = open(path, "rb").read()
    if not data.startswith(MAGIC):
        sys.exit(f"{path}: not a dg restart file")
    at = len(MAGIC) + 4
    (n,) = struct.unpack_from("<Q", data, at)
    at += 8
    header = json.loads(data[at:at + n])
    at += n
    values = data[at:len(data) - 32]
    return header, values


(a, va), (b, vb) = load(sys.argv[1]), load(sys.argv[2])
same = (a["position"]["step"] == b["position"]["step"] and a["position"]["t"] == b["position"]["t"]
        and a["stepper"] == b["stepper"] and a["arrays"] == b["arrays"] and va == vb)
print(("same" if same else "DIFFERENT"), "step", a["position"]["step"], b["position"]["step"],
      "values", len(va) // 8, "equal bytes" if va == vb else "differ")
sys.exit(0 if same else 1)
