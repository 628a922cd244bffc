#!/usr/bin/env python3
"""The named-barrier protocol of the warp-specialised tf32 probe (`mirror_tf32_ws.patch`), modelled and checked.

One actor stands for the 128 loading work items, one for the 128 multiplying ones. For group i (buffer b = i mod 2):
the loaders wait on "empty" (barrier 3 + b) from i = 2 on, write b, arrive on "full" (1 + b); the multipliers wait on
"full", read b, arrive on "empty"; after the loop the loaders wait on the last two "empty" phases. A wait counts as an
arrival and returns when the phase has its two arrivals (the kernel's 256 work items). Random interleavings for 0..8
groups must end with no deadlock, every phase completed, no buffer overwritten before it was read and none read before
it was written. `--plant` drops the loaders' wait on "empty", which must fail. Usage: python3 mirror_tf32_ws_barriers.py
"""
import random
import sys

PLANT = '--plant' in sys.argv


def run(n, sched_seed):
    """One random interleaving of n groups: ('ok', arrivals left) or what went wrong."""
    rnd = random.Random(sched_seed)
    # program of each role as a list of ops
    P, C = [], []
    for it in range(n):
        b = it & 1
        if it >= 2 and not PLANT: P.append(('sync', 3 + b))
        P.append(('write', b))
        P.append(('arrive', 1 + b))
        C.append(('sync', 1 + b))
        C.append(('read', b))
        C.append(('arrive', 3 + b))
    for i in range(max(n - 2, 0), n):
        P.append(('sync', 3 + (i & 1)))
    progs = {'P': P, 'C': C}
    pc = {'P': 0, 'C': 0}
    arrived = {i: 0 for i in range(1, 6)}   # arrivals in the current phase
    waiting = {}                             # role -> barrier id it waits on
    written = {0: 0, 1: 0}; read = {0: 0, 1: 0}
    while True:
        runnable = [r for r in 'PC' if pc[r] < len(progs[r]) and r not in waiting]
        if not runnable:
            if all(pc[r] >= len(progs[r]) for r in 'PC') and not waiting:
                return ('ok', arrived)
            return ('deadlock', pc, waiting, arrived)
        r = rnd.choice(runnable)
        op, x = progs[r][pc[r]]
        pc[r] += 1
        if op in ('sync', 'arrive'):
            arrived[x] += 1
            if op == 'sync':
                waiting[r] = x
            if arrived[x] == 2:
                arrived[x] = 0
                for w in [w for w, bid in waiting.items() if bid == x]:
                    del waiting[w]
            elif arrived[x] > 2:
                return ('overflow', x)
        elif op == 'write':
            # the consumer must have read everything previously written into b
            if written[x] != read[x]:
                return ('overwrite before read', x, written, read)
            written[x] += 1
        elif op == 'read':
            if read[x] + 1 != written[x]:
                return ('read before write', x, written, read)
            read[x] += 1


bad = 0
for n in range(0, 9):
    for seed in range(300):
        res = run(n, seed)
        if res[0] != 'ok' or any(res[1].values()):
            bad += 1
            print(f"{n} groups, interleaving {seed}: {res}")
            break
print(f"{'planted: ' if PLANT else ''}{bad} of 9 group counts failed")
sys.exit(1 if bad else 0)
