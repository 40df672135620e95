#!/usr/bin/env python3
"""scripts/bench/phases.py - where a sandbox start spends its time.

    phases.py ROOT TRACE

TRACE is `perf script -F comm,pid,time,event,trace` of the scheduler
events sched_process_exec, sched_process_fork and sched_process_exit,
recorded system-wide while a loop ran one sandbox after another. A run
starts at the exec of a program whose path ends in /ROOT (pysbx, bwrap)
and holds every process forked from it (other programs running at the
same time are left out). Prints, for the sequence of events most runs
share, the median time between consecutive events, as a Markdown table.
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


def main():
    root, path = sys.argv[1], sys.argv[2]
    all_runs = runs(events(path), root)
    if not all_runs:
        print(f"(no run of {root} in the trace)")
        return
    seqs = collections.Counter(tuple(n for _, n in r) for r in all_runs)
    seq = seqs.most_common(1)[0][0]
    good = [r for r in all_runs if tuple(n for _, n in r) == seq]
    print(f"{len(good)} of {len(all_runs)} runs of {root} had the usual "
          "sequence of events; medians:")
    print()
    print("| from | to | median ms |")
    print("|---|---|---:|")
    for i in range(1, len(seq)):
        d = sorted(r[i][0] - r[i - 1][0] for r in good)
        print(f"| {seq[i - 1]} | {seq[i]} | {d[len(d) // 2]:.3f} |")
    d = sorted(r[-1][0] - r[0][0] for r in good)
    print(f"| **{seq[0]}** | **{seq[-1]}** | **{d[len(d) // 2]:.3f}** |")


if __name__ == "__main__":
    main()
