#!/usr/bin/env python3
"""scripts/bench/ab.py - two start-up commands side by side, pair by pair.

    ab.py [--pairs N] [--warmup W] [--load K] --json OUT NAME_A CMD_A NAME_B CMD_B

Runs A and B alternately, the order flipped every pair (A B, B A, A B,
...), so that whatever the machine does meanwhile (a neighbour's burst,
the deferred teardown of the previous run's namespaces) lands on both
sides alike. Per run it records:

  wall  from the spawn to the exit of the command's own process (what a
        caller waits for);
  cpu   user + system time of every process of the command's tree. This
        script is a child subreaper (PR_SET_CHILD_SUBREAPER): a
        descendant orphaned on the way is reparented here and reaped
        here, so its time is counted too, and each parent's wait adds
        its children's times to its own (wait4's rusage). A parent's
        getrusage alone misses what it never reaped; this does not.

CMD is a word list (shlex); trailing words "N<FILE" open FILE read-only
as fd N of the command (bwrap's --seccomp and --file fds), without a
shell in between: neither side pays for a shell. stdin, stdout and
stderr are /dev/null. A run that exits non-zero stops the script (exit
1): a failed start is not a fast one.

--load K runs K busy loops (nice 0) for the whole measurement: the
"under load" figure of a machine that is otherwise quiet.

Writes OUT (JSON): per side its wall and cpu samples (seconds), per pair
the ratios A/B, and the load average before and after.
"""
import argparse
import ctypes
import json
import os
import shlex
import shutil
import signal
import statistics
import sys
import time

PR_SET_CHILD_SUBREAPER = 36


def parse_cmd(text):
    words = shlex.split(text)
    fds = []
    while words and "<" in words[-1] and words[-1].split("<", 1)[0].isdigit():
        fd, path = words.pop().split("<", 1)
        fds.insert(0, (int(fd), path))
    prog = shutil.which(words[0]) or words[0]
    return prog, words, fds


def run(cmd):
    """(wall s, cpu s) of one run of cmd."""
    prog, argv, fds = cmd
    acts = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
            (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
            (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    acts += [(os.POSIX_SPAWN_OPEN, fd, path, os.O_RDONLY, 0)
             for fd, path in fds]
    t0 = time.perf_counter()
    pid = os.posix_spawn(prog, argv, os.environ, file_actions=acts)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    cpu = ru.ru_utime + ru.ru_stime
    # Orphans of the tree, reparented to us: wait for each.
    while True:
        try:
            _, _, ru = os.wait4(-1, 0)
        except ChildProcessError:
            break
        cpu += ru.ru_utime + ru.ru_stime
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status):
        sys.exit("ab.py: %s failed (wait status %d)" % (argv[0], status))
    return wall, cpu


def stats(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}


def busy():
    os.nice(0)
    while True:
        pass


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=int, default=40)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--load", type=int, default=0)
    ap.add_argument("--json", required=True)
    ap.add_argument("name_a")
    ap.add_argument("cmd_a")
    ap.add_argument("name_b")
    ap.add_argument("cmd_b")
    a = ap.parse_args()
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("ab.py: prctl(PR_SET_CHILD_SUBREAPER) failed")
    cmds = [parse_cmd(a.cmd_a), parse_cmd(a.cmd_b)]
    loaders = []
    for _ in range(a.load):
        pid = os.fork()
        if pid == 0:
            busy()
        loaders.append(pid)
    load_before = open("/proc/loadavg").read().split()[:3]
    try:
        for _ in range(a.warmup):
            run(cmds[0])
            run(cmds[1])
        wall = [[], []]
        cpu = [[], []]
        for i in range(a.pairs):
            order = (0, 1) if i % 2 == 0 else (1, 0)
            for k in order:
                w, c = run(cmds[k])
                wall[k].append(w)
                cpu[k].append(c)
    finally:
        for pid in loaders:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    load_after = open("/proc/loadavg").read().split()[:3]
    out = {
        "pairs": a.pairs, "load": a.load,
        "load_before": load_before, "load_after": load_after,
        "sides": [
            {"name": n, "cmd": c, "wall": wall[k], "cpu": cpu[k],
             "wall_stats": stats(wall[k]), "cpu_stats": stats(cpu[k])}
            for k, (n, c) in enumerate(((a.name_a, a.cmd_a),
                                        (a.name_b, a.cmd_b)))],
        "pair_ratio": {
            "wall": stats([x / y for x, y in zip(wall[0], wall[1])]),
            "cpu": stats([x / y for x, y in zip(cpu[0], cpu[1]) if y > 0]),
        },
        "median_ratio": {
            "wall": statistics.median(wall[0]) / statistics.median(wall[1]),
            "cpu": statistics.median(cpu[0]) / statistics.median(cpu[1]),
        },
    }
    with open(a.json, "w") as f:
        json.dump(out, f, indent=1)
    r = out["median_ratio"]
    print("ab.py: %s / %s: wall %.2fx, cpu %.2fx (medians of %d pairs, "
          "load %s)" % (a.name_a, a.name_b, r["wall"], r["cpu"], a.pairs,
                        " ".join(load_before)), file=sys.stderr)


if __name__ == "__main__":
    main()
