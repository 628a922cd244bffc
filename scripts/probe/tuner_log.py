"""Per-candidate times from `dg autotune`'s stderr, for the probe scripts' A/B tables."""
import re


def candidate_times(path):
    """{((order, precision), variant): median ms} of every candidate a maxwell2d tuning log lists."""
    times, key = {}, None
    for line in open(path):
        m = re.match(r"maxwell2d N=(\d) (F\d\d)", line)
        if m:
            key = (int(m.group(1)), m.group(2).lower())
        m = re.match(r"\s+\[.*\] (\S+): ([0-9.]+) ms", line)
        if m and key:
            times[(key, m.group(1))] = float(m.group(2))
    return times
