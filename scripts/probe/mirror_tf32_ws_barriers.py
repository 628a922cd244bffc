#!/usr/bin/env python3
"""The named-barrier protocol of the warp-specialised tf32 probe (`mirror_tf32_ws.patch`), modelled and checked.

One actor stands for the 128 loading work items, one for the 128 multiplying ones. For group i (buffer b = i mod 2):
the loaders wait on "empty" (barrier 3 + b) from i = 2 on, write b, arrive on "full" (1 + b); the multipliers wait on
"full", read b, arrive on "empty"; after the loop the loaders wait on the "empty" phases left. A wait counts as an
arrival and returns when the phase has its two arrivals (the kernel's 256 work items). With the groups claimed from a
counter (DG_PROBE_WS_DYNAMIC=1) trip i's group sits in slot i mod 4 of local memory, written by the loaders a trip
ahead and read by both; the trip whose claim finds no group sends the multipliers away through "full".
Random interleavings for 0..8 groups must end with no deadlock, every phase completed, no buffer or slot overwritten
before it was read and none read before it was written. `--plant` drops the loaders' wait on "empty", which must fail.
Usage: python3 mirror_tf32_ws_barriers.py [--plant]
"""
import random
import sys

PLANT = '--plant' in sys.argv


def programs(n, dynamic):
    """The two actors' operations for n groups."""
    loaders, multipliers = [], []
    if dynamic:
        loaders.append(('write_slot', 0))
    trips = n + 1 if dynamic else n
    for it in range(trips):
        b = it & 1
        if it >= 2 and not PLANT:
            loaders.append(('sync', 3 + b))
        multipliers.append(('sync', 1 + b))
        if dynamic:
            loaders.append(('read_slot', it & 3))
            multipliers.append(('read_slot', it & 3))
            if it == n:  # no group left: "full" sends the multipliers away
                loaders.append(('arrive', 1 + b))
                break
        loaders.append(('write', b))
        if dynamic:
            loaders.append(('write_slot', (it + 1) & 3))
        loaders.append(('arrive', 1 + b))
        multipliers.append(('read', b))
        multipliers.append(('arrive', 3 + b))
    if dynamic:
        if n >= 1:
            loaders.append(('sync', 3 + ((n - 1) & 1)))
    else:
        for i in range(max(n - 2, 0), n):
            loaders.append(('sync', 3 + (i & 1)))
    return {'L': loaders, 'M': multipliers}


def run(n, seed, dynamic):
    """One random interleaving of n groups: None, or what went wrong."""
    rnd = random.Random(seed)
    progs = programs(n, dynamic)
    pc = {'L': 0, 'M': 0}
    arrived = {i: 0 for i in range(1, 6)}
    waiting = {}
    written, read = {0: 0, 1: 0}, {0: 0, 1: 0}
    # each slot: the version written, and which actors have read that version
    slot_version, slot_readers = {s: 0 for s in range(4)}, {s: {'L', 'M'} for s in range(4)}
    while True:
        runnable = [r for r in 'LM' if pc[r] < len(progs[r]) and r not in waiting]
        if not runnable:
            if all(pc[r] >= len(progs[r]) for r in 'LM') and not waiting:
                return None if not any(arrived.values()) else f"phases left half arrived: {arrived}"
            return f"deadlock at {pc}, waiting {waiting}"
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
        elif op == 'write':
            if written[x] != read[x]:
                return f"buffer {x} overwritten before it was read"
            written[x] += 1
        elif op == 'read':
            if read[x] + 1 != written[x]:
                return f"buffer {x} read before it was written"
            read[x] += 1
        elif op == 'write_slot':
            if slot_version[x] > 0 and slot_readers[x] != {'L', 'M'}:
                return f"slot {x} overwritten before both read it"
            slot_version[x] += 1
            slot_readers[x] = set()
        elif op == 'read_slot':
            if slot_version[x] == 0 or r in slot_readers[x]:
                return f"slot {x} read before it was written"
            slot_readers[x].add(r)


bad = 0
for dynamic in (False, True):
    for n in range(0, 9):
        for seed in range(300):
            why = run(n, seed, dynamic)
            if why:
                bad += 1
                print(f"{'claimed' if dynamic else 'strided'} groups, {n} of them, interleaving {seed}: {why}")
                break
print(f"{'planted: ' if PLANT else ''}{bad} of 18 cases failed")
sys.exit(1 if bad else 0)
