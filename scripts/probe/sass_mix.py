#!/usr/bin/env python3
"""Counts a cuobjdump -sass listing's instructions by opcode (the mnemonic without its modifiers) and by class
(FMA pipe arithmetic, shared loads and stores, global loads and stores, integer and address arithmetic, control),
kernel by kernel. usage: scripts/probe/sass_mix.py FILE.sass"""
import re
import sys
from collections import Counter

CLASSES = [
    ("ffma/fmul/fadd", re.compile(r"^(FFMA|FMUL|FADD|FMNMX|FSEL|FSETP)$")),
    ("dfma/dmul/dadd", re.compile(r"^(DFMA|DMUL|DADD|DSETP)$")),
    ("tensor", re.compile(r"^(HMMA|DMMA|IMMA)$")),
    ("shared ld", re.compile(r"^LDS$")),
    ("shared st", re.compile(r"^STS$")),
    ("global ld", re.compile(r"^(LDG|LD|LDC|ULDC)$")),
    ("global st", re.compile(r"^(STG|ST)$")),
    ("int/addr", re.compile(r"^(IMAD|IADD3|LEA|SHF|LOP3|IABS|IMNMX|ISETP|SEL|MOV|PRMT|I2F|F2I|UMOV|UIADD3|ULEA|USHF|UIMAD|ULOP3|USEL|S2R|S2UR|CS2R|P2R|R2P|VIADD|VIMNMX|IMUL|I2FP|F2FP)$")),
    ("control", re.compile(r"^(BRA|EXIT|BAR|BSSY|BSYNC|WARPSYNC|NOP|CALL|RET|DEPBAR|YIELD|BPT|MEMBAR)$")),
]
kernel, counts = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"Function : (\S+)", line)
    if m:
        kernel = m.group(1)
        counts[kernel] = Counter()
        continue
    m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P\w+\s+)?([A-Z0-9_]+)", line)
    if m and kernel:
        counts[kernel][m.group(2).split(".")[0]] += 1
for kernel, c in counts.items():
    total = sum(c.values())
    if total == 0:
        continue
    by_class = Counter()
    for op, n in c.items():
        name = next((cls for cls, rx in CLASSES if rx.match(op)), "other")
        by_class[name] += n
    print(f"{kernel}: {total} instructions")
    print("  " + ", ".join(f"{k} {v}" for k, v in by_class.most_common()))
    print("  " + ", ".join(f"{k} {v}" for k, v in c.most_common(24)))
