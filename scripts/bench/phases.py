#!/usr/bin/env python3
"""scripts/bench/phases.py - where a sandbox start spends its time.

    phases.py [--summary] ROOT TRACE

TRACE is `perf script -F comm,pid,time,event,trace` of the scheduler
events sched_process_exec, sched_process_fork and sched_process_exit,
recorded system-wide while a loop ran one sandbox after another. A run
starts at the exec of a program whose path ends in /ROOT (pysbx, bwrap)
and holds every process forked from it (other programs running at the
same time are left out). Prints, for the sequence of events most runs
share, the median time between consecutive events, as a Markdown table.

--summary prints instead one tab-separated line of medians in ms, the
same four spans for any launcher, so that pysbx, bwrap and the floor
line up: the first program's own work before its first fork ("front"),
from there to the target's exec ("setup"), the target ("target"), from
its exit to the first program's ("back"), and the whole start ("total").
"""
import collections
import re
import sys

LINE = re.compile(r"\s*(.+?)\s+(\d+)\s+([\d.]+):\s+sched:(\w+):\s*(.*)")


def events(path):
    out = []
    for line in open(path, errors="replace"):
        m = LINE.match(line)
        if m:
            comm, pid, t, ev, rest = m.groups()
            out.append((float(t) * 1000, int(pid), comm, ev, rest))
    out.sort(key=lambda e: e[0])
    return out


def runs(evs, root):
    done, live = [], {}          # pid -> the run it belongs to
    for t, pid, comm, ev, rest in evs:
        if ev == "sched_process_exec":
            name = rest.split()[0].split("=", 1)[-1]
            if name.endswith("/" + root) and pid not in live:
                run = [(t, "exec " + root)]
                done.append(run)
                live[pid] = run
                continue
            if pid in live:
                live[pid].append((t, "exec " + name.rsplit("/", 1)[-1]))
        elif ev == "sched_process_fork" and pid in live:
            m = re.search(r"child_pid=(\d+)", rest)
            if m:
                live[int(m.group(1))] = live[pid]
                live[pid].append((t, f"fork by {comm}"))
        elif ev == "sched_process_exit" and pid in live:
            live.pop(pid).append((t, f"exit {comm}"))
    return done


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def summary(seq, good):
    """front, setup, target, back, total (medians, ms), or None when the
    usual sequence lacks a fork or an exit."""
    forks = [i for i, n in enumerate(seq) if n.startswith("fork ")]
    exits = [i for i, n in enumerate(seq) if n.startswith("exit ")]
    if not forks or not exits:
        return None
    t_exit = exits[0]                       # the target ends first
    t_exec = max(i for i in range(t_exit) if seq[i].startswith("exec "))
    marks = [0, forks[0], t_exec, t_exit, len(seq) - 1]
    spans = [median(r[b][0] - r[a][0] for r in good)
             for a, b in zip(marks, marks[1:])]
    return spans + [median(r[-1][0] - r[0][0] for r in good)]


def main():
    args = sys.argv[1:]
    brief = args[:1] == ["--summary"]
    if brief:
        args = args[1:]
    root, path = args[0], args[1]
    all_runs = runs(events(path), root)
    if not all_runs:
        if not brief:
            print(f"(no run of {root} in the trace)")
        return
    seqs = collections.Counter(tuple(n for _, n in r) for r in all_runs)
    seq = seqs.most_common(1)[0][0]
    good = [r for r in all_runs if tuple(n for _, n in r) == seq]
    if brief:
        spans = summary(seq, good)
        if spans:
            print("\t".join([str(len(good))] + [f"{x:.3f}" for x in spans]))
        return
    print(f"{len(good)} of {len(all_runs)} runs of {root} had the usual "
          "sequence of events; medians:")
    print()
    print("| from | to | median ms |")
    print("|---|---|---:|")
    for i in range(1, len(seq)):
        d = median(r[i][0] - r[i - 1][0] for r in good)
        print(f"| {seq[i - 1]} | {seq[i]} | {d:.3f} |")
    d = median(r[-1][0] - r[0][0] for r in good)
    print(f"| **{seq[0]}** | **{seq[-1]}** | **{d:.3f}** |")


if __name__ == "__main__":
    main()
