#!/usr/bin/env python3
# plateau_rules.py — replays discovery logs (one process each, as
# `heisenfuzz bench --plateau --keep-logs DIR` keeps them) under variants
# of the plateau rule (fuzz/discovery/estimate.c): for each growth factor and minimum
# of executions, in how many campaigns it fired, in how many before 95% of
# TRUTH behaviours (the ground truth's count) were found, the least share
# found when it fired, the most executions from a firing to the campaign's
# last new behaviour and Chao1's mean there.  The logs must hold no
# behaviour outside the ground truth (bench --plateau counts those).  How README's "Why this rule" chose its
# parameters.
#
#   python3 tests/plateau_rules.py TRUTH LOG...
import sys


def points(path):
    """The stats lines of a log: executions, logical ns, behaviours, f1, f2."""
    pts = []
    for line in open(path):
        f = line.split()
        if not f or f[0] != "stats":
            continue
        sec, frac = f[4].split(".")
        pts.append((int(f[3]), int(sec) * 10**9 + int(frac), int(f[5]), int(f[6]), int(f[7])))
    return pts


def chao1(s, f1, f2):
    return s + f1 * f1 / (2.0 * f2) if f2 else s + f1 * (f1 - 1) / 2.0


def first_firing(pts, growth, min_executions):
    """(executions, behaviours, chao1, executions to the last new behaviour
    after it) where the rule first holds, or None."""
    since = None
    for i, (n, ns, s, f1, f2) in enumerate(pts):
        if since is None or s != since[2]:
            since = (n, ns, s)
        quiet = since[0] <= n // growth and since[1] <= ns // growth
        expected_new = f1 * (growth - 1) / growth
        if n >= min_executions and s > 0 and quiet and expected_new < 1.0:
            last_new = max([pts[j][0] for j in range(i + 1, len(pts)) if pts[j][2] > pts[j - 1][2]] or [n])
            return n, s, chao1(s, f1, f2), last_new - n
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: plateau_rules.py TRUTH LOG...")
    truth = int(sys.argv[1])
    logs = [points(p) for p in sys.argv[2:]]
    for growth in (1.5, 3, 4, 5, 6, 10, 20):
        for minimum in (1000, 10000, 30000, 100000):
            fired = [r for r in (first_firing(p, growth, minimum) for p in logs) if r]
            shares = [r[1] / truth for r in fired]
            early = sum(share < 0.95 for share in shares)
            print("growth %4.1fx  min %6d: fired %2d/%d, before 95%%: %2d, least share %5.1f%%, "
                  "to the last new at most %d, chao1 mean %.1f" % (
                      growth, minimum, len(fired), len(logs), early, 100 * min(shares) if shares else 0,
                      max([r[3] for r in fired] or [0]),
                      sum(r[2] for r in fired) / len(fired) if fired else 0))


main()
