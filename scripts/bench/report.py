#!/usr/bin/env python3
"""scripts/bench/report.py - turn scripts/bench.sh's raw results into
docs/BENCHMARKS.md (Markdown on stdout).

    report.py WORK

WORK holds machine.txt and results/ (see scripts/bench/measure.sh).
Medians, minima and maxima are computed here from hyperfine's per-run
times (seconds, already corrected by hyperfine for the shell's own start).
The hand-written analysis is scripts/bench/analysis.md, appended as is.
"""
import json
import os
import re
import statistics
import sys
from collections import defaultdict

WORK = sys.argv[1]
RES = os.path.join(WORK, "results")
HERE = os.path.dirname(os.path.abspath(__file__))

out = []


def p(line=""):
    out.append(line)


def kv(path):
    d = {}
    if os.path.exists(path):
        for line in open(path, encoding="utf-8", errors="replace"):
            k, _, v = line.rstrip("\n").partition("\t")
            d[k] = v
    return d


def short(s):
    """Replace the temporary paths by the names the report defines."""
    for a, b in [
        (WORK + "/build/bin/", "$BIN/"),
        (WORK + "/build/test/probe/", "$PROBE/"),
        (WORK + "/policies/", "policies/"),
        (WORK + "/derived/", "$DERIVED/"),
        (WORK + "/results/scratch", "$SCRATCH"),
        (WORK + "/results/etc/", "$ETC/"),
        (WORK + "/results/python.bpf", "$FILTER"),
        (WORK + "/ws", "$WS"),
    ]:
        s = s.replace(a, b)
    return s


def load(group):
    """[(name, cmd, stats or None, why)] in the order measured."""
    rows = []
    cmds = os.path.join(RES, group + ".cmds")
    if not os.path.exists(cmds):
        return rows
    times, pooled = {}, {}
    # group.json, and group.rev.json where the group also ran in the
    # opposite order (measure.sh REVERSE=1): the times of both are pooled.
    for js in (os.path.join(RES, group + ".json"), os.path.join(RES, group + ".rev.json")):
        if os.path.exists(js):
            for r in json.load(open(js))["results"]:
                pooled.setdefault(r["command"], []).extend(r["times"])
    for name, t in pooled.items():
        times[name] = {
            "median": statistics.median(t),
            "min": min(t),
            "max": max(t),
            "mean": statistics.mean(t),
            "n": len(t),
        }
    for line in open(cmds, encoding="utf-8", errors="replace"):
        f = line.rstrip("\n").split("\t")
        if f[0].startswith("FAIL "):
            rows.append((f[0][5:], f[1], None, f[2] if len(f) > 2 else "?"))
        else:
            rows.append((f[0], f[1], times.get(f[0]), None if f[0] in times else "not timed"))
    return rows


ALL = {g: load(g) for g in ["startup", "python", "steps", "chain", "loop", "batch"]}


def med(group, name):
    for n, _, st, _ in ALL[group]:
        if n == name and st:
            return st["median"]
    return None


def ms(x, digits=2):
    return "n/a" if x is None else f"{x * 1000:.{digits}f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}×"


def table(group, ref=None, ref_label=None, digits=2):
    rows = ALL[group]
    if not rows:
        p("_Not measured (nothing of this group could run)._")
        p()
        return
    refv = med(group, ref) if ref else None
    head = "| # | what | median ms | min–max ms |"
    sep = "|---|---|---:|---:|"
    if ref:
        head += f" ÷ {ref_label or ref} |"
        sep += "---:|"
    p(head)
    p(sep)
    for i, (n, _, st, why) in enumerate(rows, 1):
        if st:
            line = f"| {i} | {n} | {ms(st['median'], digits)} | {ms(st['min'], digits)}–{ms(st['max'], digits)} |"
            if ref:
                line += f" {ratio(st['median'], refv)} |"
        else:
            line = f"| {i} | {n} | did not run | |" + (" |" if ref else "")
        p(line)
    p()
    p("Commands:")
    p()
    p("```sh")
    for i, (n, c, st, why) in enumerate(rows, 1):
        p(f"# {i}: {n}")
        p(short(c))
    p("```")
    fails = [(n, why) for n, _, st, why in rows if not st]
    if fails:
        p()
        for n, why in fails:
            p(f"- **{n}** did not run: `{short(why)}`")
    p()


M = kv(os.path.join(WORK, "machine.txt"))
sizes = kv(os.path.join(RES, "sizes.txt"))

p("# Benchmarks")
p()
p("Written by `scripts/bench.sh` (do not edit by hand: rerun it). Every")
p("number is from one run of the script on the machine below, pysbx and")
p("bubblewrap measured side by side in that run, as an unprivileged user.")
p("Times are hyperfine's wall-clock times per command (its shell start-up")
p("subtracted), summarised as **median** and **min–max** over the runs;")
p("ratios are of medians. Sections 1 to 5 run twice, the second time in")
p("the opposite order, and pool both runs' times, so that whatever")
p("the machine does between commands (a net namespace's deferred teardown,")
p("a neighbour's burst) does not land on one side only. Absolute times vary")
p("by machine; the targets are ratios.")
p()
# --- the headline: pysbx vs bwrap, pair by pair (scripts/bench/ab.py) --------


def ab_load(name):
    f = os.path.join(RES, name)
    return json.load(open(f)) if os.path.exists(f) else None


def strace_total(name):
    f = os.path.join(RES, name)
    if not os.path.exists(f):
        return None
    for line in open(f):
        if line.rstrip().endswith("total"):
            return int(line.split()[3])
    return None


AB = [(x, d) for x, d in (("as it was", ab_load("ab.json")),
                          ("under load", ab_load("ab-load.json"))) if d]
if AB:
    p("## Headline: pysbx against bubblewrap with the same view")
    p()
    p(f"{M.get('date', '?')}, commit {M.get('commit', '?')}. `pysbx run -p")
    p("policies/python.policy` over a static `true` against bubblewrap given")
    p("the same view (row 3 of section 1: the same namespaces, net included,")
    p("/etc, scratch bind, tmpfs size, hostname, environment, working")
    p("directory and compiled filter), run alternately pair by pair, the order")
    p("flipped every pair, by scripts/bench/ab.py. Wall: spawn to exit of the")
    p("command's own process. CPU: user + system time of every process of")
    p("the tree (ab.py is a child subreaper and reaps every orphan, so no")
    p("process escapes the count). Ratios: pysbx ÷ bwrap, of the medians, and")
    p("the min–median–max of the per-pair ratios.")
    p()
    p("| run | load before | pairs | pysbx wall ms (min–median–max) | bwrap wall ms | wall ratio | pair ratios | pysbx CPU ms | bwrap CPU ms | CPU ratio | pair ratios |")
    p("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, d in AB:
        a, b = d["sides"]

        def mmm(st):
            return "{:.2f}–**{:.2f}**–{:.2f}".format(st["min"] * 1e3, st["median"] * 1e3, st["max"] * 1e3)

        def rr(st):
            return "{:.2f}–{:.2f}–{:.2f}".format(st["min"], st["median"], st["max"])
        extra = f", +{d['load']} busy loops" if d.get("load") else ""
        p(f"| {label}{extra} | {' '.join(d['load_before'])} | {d['pairs']} | "
          f"{mmm(a['wall_stats'])} | {mmm(b['wall_stats'])} | **{d['median_ratio']['wall']:.2f}×** | "
          f"{rr(d['pair_ratio']['wall'])} | {mmm(a['cpu_stats'])} | {mmm(b['cpu_stats'])} | "
          f"**{d['median_ratio']['cpu']:.2f}×** | {rr(d['pair_ratio']['cpu'])} |")
    p()
    sp, sb = strace_total("strace-c.txt"), strace_total("strace-c-bwrap-only.txt")
    if sp and sb:
        p(f"System calls per start (`strace -f -c`, every process, waits included):")
        p(f"pysbx {sp}, bwrap {sb}. test/integration/budget.sh holds pysbx's")
        p("count per step to a budget.")
        p()
    try:
        lb = float(AB[0][1]["load_before"][0])
    except (ValueError, IndexError):
        lb = 0
    if lb > int(M.get("nproc", "1")) / 2:
        p(f"The machine was not quiet for the first row (1-minute load {lb:.1f}")
        p(f"on {M.get('nproc', '?')} CPUs, from other jobs): both sides waited for a CPU,")
        p("which inflates the wall times of both and pulls their ratio towards 1;")
        p("the CPU ratio is the steadier figure.")
        p()

p("## Machine")
p()
p("| | |")
p("|---|---|")
for k, label in [("nproc", "CPUs (nproc)"), ("cpu", "model name"), ("kernel", "kernel"),
                 ("os", "distribution"), ("bwrap", "bubblewrap"), ("hyperfine", "hyperfine"),
                 ("python", "python3"), ("user", "measured as"), ("commit", "pysbx commit"),
                 ("date", "date"), ("load_before", "load average before"),
                 ("load_after", "load average after"), ("duration", "duration of the run")]:
    if k in M:
        p(f"| {label} | {M[k]} |")
p()
if "leftover" in M:
    p(f"**Warning:** processes of the bench uid outlived the run: {M['leftover']}.")
    p()
try:
    loads = [float(M[k].split()[0]) for k in ("load_before", "load_after") if k in M]
    ncpu = int(M.get("nproc", "1"))
except ValueError:
    loads, ncpu = [], 1
# Only the load before the run tells of other jobs: the one after counts
# the bench's own 4-wide batch, which ran last.
if loads and loads[0] > ncpu / 2:
    p(f"**This run was made on a busy machine** (1-minute load {loads[0]:.1f}")
    p(f"on {ncpu} CPUs before it started, from other jobs): absolute times are")
    p("several times the quiet-machine figures and the ratios are distorted")
    p("by whichever command met the worst contention. Rerun")
    p("`scripts/bench.sh` on a quiet machine before quoting these numbers.")
    p()
p("The machine is a shared 2-vCPU VM; other work may run on it at the same")
p("time (the load before the run says; the load after includes the bench's")
p("own 4-wide batch), so the minima are the least disturbed figures and the")
p("medians the honest ones.")
p()
p("Names used in the commands: `$BIN` = build/bin, `$PROBE` =")
p("build/test/probe, `$WS` = a read-only directory holding copies of the")
p("probes (mounted at /workspace on both sides), `$SCRATCH` = a directory")
p("bound at /scratch for bwrap (pysbx creates and removes its own per run),")
p("`$ETC` = the /etc files that python.policy writes with `file` (its")
p("`file`, `ro-bind-try` and `symlink` lines below /etc, as `pysbx policy")
p("show` resolves them, are given to bwrap as `--file`, `--ro-bind-try` and")
p("`--symlink` and to the reference program as `-w`, `-b` and `-l`: all")
p("three build the same /etc),")
p("`$FILTER` = `pysbx-seccomp -p policies/python.policy --export` output,")
p("`$DERIVED` = python.policy's two variants made by scripts/bench/derive.sh")
p("at each run (python-nonet.policy: no `net` in `unshare`;")
p("python-host.policy: `chdir ${WORKSPACE}`).")
p("The static `true` is test/probe/bench_true.c; the syscall loop")
p("test/probe/bench_loop.c.")
p()

# --- targets -----------------------------------------------------------------

pys_net = med("startup", "pysbx, net ns")
bw_net = med("startup", "bwrap, net ns")
pys_nn = med("startup", "pysbx, no net ns")
bw_nn = med("startup", "bwrap, no net ns")
true_bare = med("startup", "static true (bare)")
py_bare = med("python", "python3 (bare)")
py_pys = med("python", "pysbx + python3")
py_bw = med("python", "bwrap + python3")
loop_rows = ALL["loop"]
loop_bare = loop_rows[0][2]["median"] if loop_rows and loop_rows[0][2] else None
loop_f = loop_rows[1][2]["median"] if len(loop_rows) > 1 and loop_rows[1][2] else None
b_rows = ALL["batch"]
b_pys = b_rows[0][2]["median"] if b_rows and b_rows[0][2] else None
b_bw = b_rows[1][2]["median"] if len(b_rows) > 1 and b_rows[1][2] else None
b_ref = b_rows[2][2]["median"] if len(b_rows) > 2 and b_rows[2][2] else None
b_true = b_rows[3][2]["median"] if len(b_rows) > 3 and b_rows[3][2] else None
b_true1 = b_rows[4][2]["median"] if len(b_rows) > 4 and b_rows[4][2] else None

st_true = med("steps", "static true (bare)")
ch = {n: st["median"] for n, _, st, _ in ALL["chain"] if st}
steps_alone = {n: st["median"] for n, _, st, _ in ALL["steps"] if st}
ch_min = {n: st["min"] for n, _, st, _ in ALL["chain"] if st}
steps_min = {n: st["min"] for n, _, st, _ in ALL["steps"] if st}


def diff(a, b):
    return None if a is None or b is None else a - b


def step_costs(c, a):
    """step -> (in-chain marginal cost, standalone cost), from the chain
    rows c and the standalone rows a (medians or minima)."""
    full = c.get("clean+mount+exec+seccomp")
    t = a.get("static true (bare)")
    return {
        "pysbx (front door)": (diff(c.get("run: front+clean+mount+exec+seccomp"), full), None),
        "pysbx-clean": (diff(full, c.get("mount+exec+seccomp")), diff(a.get("pysbx-clean alone"), t)),
        "pysbx-mount": (diff(c.get("clean+mount"), a.get("pysbx-clean alone")),
                        diff(a.get("pysbx-mount alone"), t)),
        "pysbx-exec": (diff(full, c.get("clean+mount+seccomp")), diff(a.get("pysbx-exec alone"), t)),
        "pysbx-seccomp": (diff(full, c.get("clean+mount+exec")), diff(a.get("pysbx-seccomp alone"), t)),
    }


own = step_costs(ch, steps_alone)
own_min = step_costs(ch_min, steps_min)

KiB = 1024
bins = {k: int(v) for k, v in sizes.items() if k.startswith("pysbx")}
rss = {}
for line in open(os.path.join(RES, "rss.txt")) if os.path.exists(os.path.join(RES, "rss.txt")) else []:
    f = line.rstrip("\n").split("\t")
    if f[0] in ("guard", "guard_clean", "monitor", "pid1", "target") and len(f) >= 5:
        rss[f[0]] = (f[1], f[2], f[3], f[4], f[5] if len(f) > 5 else "?",
                     f[6] if len(f) > 6 else "?")


def verdict(value, limit, lower_is_better=True, unit="×", fmt="{:.2f}"):
    if value is None:
        return "not measured"
    ok = value <= limit if lower_is_better else value >= limit
    if ok:
        return "**met**"
    if lower_is_better:
        return f"**missed** by {fmt.format(value - limit)}{unit} ({(value / limit - 1) * 100:.0f}% over)"
    return f"**missed** by {fmt.format(limit - value)}{unit} ({(1 - value / limit) * 100:.0f}% under)"


p("## Targets")
p()
p("\"Floor here\" is what the chain's design can reach on this machine at")
p("best: the single program's setup (test/probe/bench_ref.c) behind the")
p("three execs the chain adds, with no work in them, no guard and no")
p("filter (rows \"reference + three exec hops\" below); for a step, one")
p("execve (for pysbx-mount, whose work is the single program's, that")
p("program's own cost); for throughput, the single program's own batch.")
p("\"With duties\" adds what no implementation of the design can skip:")
p("a guard process above the sandbox that makes and removes a fresh")
p("scratch dir per run (test/probe/bench_guard.c) and the filter's load")
p("(rows \"floor with the steps' duties\"; for pysbx-clean, bench_guard")
p("alone, for pysbx-seccomp, test/probe/bench_filter.c: the load and one")
p("execve). A target the floor already misses cannot be met here by tuning")
p("pysbx, only by changing the design (fewer programs) or the machine; one")
p("that only the floor with duties misses, not without dropping a duty")
p("(the per-run scratch dir, the guard, the filter).")
p()
p("| target | measured | floor here | verdict |")
p("|---|---|---|---|")


EDGE = 0.02


def verdict_floor(value, limit, floor, lower_is_better=True, duties=None, **kw):
    """verdict(), and for a missed target whether a floor allows it: a
    floor within EDGE of the limit (either side) is "at the edge", the run
    to run spread being larger than that."""
    v = verdict(value, limit, lower_is_better, **kw)
    if floor is None or not v.startswith("**missed**"):
        return v
    def reach(f):
        over = (f / limit - 1) if lower_is_better else (1 - f / limit)
        return "edge" if abs(over) <= EDGE else "out" if over > 0 else "in"
    if reach(floor) == "out":
        return v + "; **out of reach here** (the floor misses it too)"
    if reach(floor) == "edge":
        return v + f"; **at the edge of reach here** (the floor is within {EDGE:.0%} of it)"
    if duties is not None and reach(duties) == "out":
        return v + "; **out of reach here with the steps' duties** (the bare floor meets it, the floor with them does not)"
    if duties is not None and reach(duties) == "edge":
        return v + f"; **at the edge of reach here with the steps' duties** (their floor is within {EDGE:.0%} of it)"
    return v + "; within reach (the floor" + (" with the steps' duties" if duties is not None else "") + " meets it)"


def floors(bare, duties, base):
    """The floor column: both floors as ratios to base (duties if measured)."""
    return ratio(bare, base) + ("" if duties is None else f"; with duties {ratio(duties, base)}")


def fr(a, b):
    """a / b as a number, None when either is missing (or b is 0)."""
    return a / b if a and b else None


ref_net = med("startup", "reference program, net ns")
ref_nn = med("startup", "reference program, no net ns")
fl_net = med("startup", "reference + three exec hops, net ns")
fl_nn = med("startup", "reference + three exec hops, no net ns")

du_net = med("startup", "floor with the steps' duties, net ns")
du_nn = med("startup", "floor with the steps' duties, no net ns")


def ratio_row(name, pys, base, fl, du, limit):
    p(f"| {name} | {ratio(pys, base)} ({ms(pys)} vs {ms(base)} ms) | {floors(fl, du, base)} | "
      f"{verdict_floor(fr(pys, base), limit, fr(fl, base), duties=fr(du, base))} |")


ratio_row("start-up ≤ 0.6× bwrap (goal 0.5×), net ns", pys_net, bw_net, fl_net, du_net, 0.6)
ratio_row("start-up ≤ 0.6× bwrap, no net ns", pys_nn, bw_nn, fl_nn, du_nn, 0.6)
ratio_row("≤ 1.5× a single static program doing the same setup (test/probe/bench_ref.c), net ns", pys_net, ref_net, fl_net, du_net, 1.5)
ratio_row("≤ 1.5× the same, no net ns", pys_nn, ref_nn, fl_nn, du_nn, 1.5)
hop = diff(steps_alone.get("one exec hop + true"), st_true)
hop4 = diff(steps_alone.get("four exec hops + true"), st_true)
hop_each = hop4 / 4 if hop4 is not None else hop
for step, (inchain, alone) in own.items():
    if step.startswith("pysbx (front"):
        continue
    val = inchain if inchain is not None else alone
    im = own_min[step][0]
    beyond = diff(inchain, hop_each)
    # pysbx-mount's work is the single program's: its floor is that
    # program's own cost (its exec and the whole setup, namespaces and
    # mounts; the chain rows have no net namespace), not one execve.
    duty = None
    if step == "pysbx-mount":
        floor, what = diff(ref_nn, true_bare), "the single program's setup, no net ns"
    else:
        floor, what = hop_each, "one execve"
    if step == "pysbx-clean":
        duty = diff(steps_alone.get("the guard's duties alone (bench_guard)"), st_true)
        duty_what = "bench_guard"
    elif step == "pysbx-seccomp":
        duty = diff(steps_alone.get("the seccomp step's duty alone (bench_filter)"), st_true)
        duty_what = "bench_filter"
    v = verdict_floor(val * 1000 if val is not None else None, 0.5,
                      floor * 1000 if floor is not None else None, unit=' ms',
                      duties=duty * 1000 if duty is not None else None)
    if val is not None and val < 0:
        v = "not measured (a negative difference: noise)"
    col = f"{ms(floor)} ms ({what})" + ("" if duty is None else f"; with duties {ms(duty)} ms ({duty_what})")
    p(f"| {step} ≤ 0.5 ms of its own | {ms(inchain)} ms in the chain (minima: {ms(im)}; beyond one exec: {ms(beyond)}), {ms(alone)} ms alone | {col} | {v} |")
r_py = fr(py_pys, py_bare)
py_fl = med("python", "reference + three exec hops + python3")
py_du = med("python", "floor with the steps' duties + python3")
p(f"| sandboxed `python3 -I -S -c pass` ≤ 1.25× bare | {ratio(py_pys, py_bare)} ({ms(py_pys)} vs {ms(py_bare)} ms; bwrap {ratio(py_bw, py_bare)}) | "
  f"{floors(py_fl, py_du, py_bare)} | {verdict_floor(r_py, 1.25, fr(py_fl, py_bare), duties=fr(py_du, py_bare))} |")
r_loop = fr(loop_f, loop_bare)
p(f"| filter ≤ 1.15× unfiltered on the syscall loop | {ratio(loop_f, loop_bare)} | | {verdict(r_loop, 1.15)} |")
if bins:
    big = max(bins, key=bins.get)
    p(f"| every binary ≤ 200 KiB stripped | largest: {big} {bins[big] / KiB:.1f} KiB | | {verdict(bins[big] / KiB, 200, unit=' KiB', fmt='{:.1f}')} |")
for role, label in [("guard", "guard, as `pysbx run` (front door in-process)"),
                    ("guard_clean", "guard, as `pysbx-clean` in the chain"),
                    ("pid1", "pid 1 (reaper)")]:
    if role in rss and rss[role][2].isdigit():
        v = int(rss[role][2])
        p(f"| {label} ≤ 256 KiB RSS (peak, VmHWM) | {v} KiB (now {rss[role][3]} KiB) | | {verdict(v, 256, unit=' KiB', fmt='{:.0f}')} |")
    else:
        p(f"| {label} ≤ 256 KiB RSS | not measured | | not measured |")
tp = fr(b_bw, b_pys)
tp_fl = fr(b_bw, b_ref)
p(f"| 100-launch throughput ≥ 2× bwrap | {'n/a' if tp is None else f'{tp:.2f}×'} ({ms(b_pys, 0)} vs {ms(b_bw, 0)} ms per batch) | {'n/a' if tp_fl is None else f'{tp_fl:.2f}×'} | {verdict_floor(tp, 2.0, tp_fl, lower_is_better=False)} |")
p()
pys_adopt = med("startup", "pysbx, net ns, scratch adopted")
du_adopt = med("startup", "floor with the steps' duties, scratch adopted, net ns")
if pys_adopt and bw_net:
    p(f"Like for like (pysbx adopting the directory bwrap binds at /scratch,")
    p(f"instead of creating and removing a fresh one per run as python.policy")
    p(f"does by default): {ratio(pys_adopt, bw_net)} bwrap ({ms(pys_adopt)} vs {ms(bw_net)} ms), net ns"
      + ("." if not du_adopt else
         f"; the floor with the steps' duties and the dir adopted: {ratio(du_adopt, bw_net)}"
         f" ({ms(du_adopt)} ms), so {verdict_floor(fr(pys_adopt, bw_net), 0.6, fr(fl_net, bw_net), duties=fr(du_adopt, bw_net))}."))
    p()
if os.path.exists(os.path.join(RES, "nofilter")):
    p("**Note:** `pysbx-seccomp --export` failed, so bwrap ran **without** a")
    p("seccomp filter in this run (see the log); its figures are flattered.")
    p()

def etc_desc():
    """python.policy's /etc as measure.sh gave it to bwrap (etc-bwrap.txt)."""
    try:
        words = open(os.path.join(RES, "etc-bwrap.txt")).read().split()
    except OSError:
        return "the four /etc files"
    files = words.count("--file")
    binds = words.count("--ro-bind-try")
    links = words.count("--symlink")
    return (f"{files} files written, {binds} host files and directories "
            f"bound\nread-only where they exist, {links} links")


# --- groups --------------------------------------------------------------------

p("## 1. Start-up: python.policy over a static `true`")
p()
p("pysbx with policies/python.policy (and a variant without `net` in")
p("`unshare`: $DERIVED/python-nonet.policy) against bubblewrap given the same")
p("namespaces (user, mount, pid, ipc, uts, ±net), hostname, nested user")
p("namespaces disabled, new session, die-with-parent, no capabilities, the")
p("same environment, the same mounts (/usr ro, merged-usr links, proc, dev,")
p("64 MiB tmpfs /tmp, ro workspace, rw scratch, and python.policy's /etc:")
p(f"{etc_desc()}),")
p("the same working directory and the same compiled seccomp filter.")
p()
p("Not equivalent, in bwrap's favour: pysbx also creates and removes a fresh")
p("scratch directory per run, keeps a guard process outside the namespaces")
p("(timeout, cleanup, status), sets six rlimits (bwrap has no option for")
p("them; `prlimit` in front would cost bwrap one more exec) and checks the")
p("policy's trust (owner and modes of the file and its directories).")
p()
table("startup", ref="bwrap, net ns", ref_label="bwrap (net ns)")
if pys_net and pys_nn:
    p(f"The net namespace costs pysbx {ms(pys_net - pys_nn)} ms and bwrap "
      f"{ms(diff(bw_net, bw_nn))} ms per start (median difference).")
    p()

p("## 2. `python3 -I -S -c pass`")
p()
table("python", ref="python3 (bare)", ref_label="bare")

p("## 3. The chain, step by step")
p()
p("Each step alone, over the static `true` (standalone steps read the policy")
p("file themselves; $DERIVED/python-host.policy is python.policy")
p("with `chdir ${WORKSPACE}` so that pysbx-exec can run on the host):")
p()
table("steps", ref="static true (bare)", ref_label="bare true")
p("The chain with steps left out (the guard resolves the policy once and")
p("passes the plan down as a sealed memfd). These rows use")
p("$DERIVED/python-nonet.policy: a net namespace's creation and")
p("asynchronous teardown add milliseconds of variance that would drown the")
p("cost of one execve.")
p()
table("chain", ref="run: front+clean+mount+exec+seccomp", ref_label="full run")
p("Cost of each step, derived from the medians above (in the chain: the")
p("difference between the chain with and without the step; alone: the step")
p("alone minus the bare static `true`):")
p()
p("| step | in the chain, ms (medians) | (minima) | alone, ms (medians) | (minima) | derived from |")
p("|---|---:|---:|---:|---:|---|")
src = {
    "pysbx (front door)": "run − clean+mount+exec+seccomp",
    "pysbx-clean": "clean+mount+exec+seccomp − mount+exec+seccomp",
    "pysbx-mount": "clean+mount − pysbx-clean alone",
    "pysbx-exec": "clean+mount+exec+seccomp − clean+mount+seccomp",
    "pysbx-seccomp": "clean+mount+exec+seccomp − clean+mount+exec",
}
for step, (a, b) in own.items():
    am, bm = own_min[step]
    p(f"| {step} | {ms(a)} | {ms(am)} | {ms(b)} | {ms(bm)} | {src[step]} |")
p()
p("Differences of medians taken on a busy machine can be off by the noise")
p("(even negative); the minima are the least disturbed estimate.")
p()
sc_cost = diff(ch.get("run: front+clean+mount+exec+seccomp"), ch.get("run, scratch adopted (not created)"))
if sc_cost is not None:
    p(f"Creating and removing the per-run scratch directory (`scratch create`,")
    p(f"which bwrap does not do): {ms(sc_cost)} ms (run − run with the scratch")
    p(f"adopted).")
    p()
sc_shm = diff(ch.get("run, scratch created on a tmpfs (/dev/shm)"), ch.get("run: front+clean+mount+exec+seccomp"))
if sc_shm is not None:
    p(f"The same run with the scratch directory created on a tmpfs (`-D")
    p(f"SCRATCH_DIR=/dev/shm`) instead of under /tmp: {ms(sc_shm)} ms per start")
    p(f"({'faster' if sc_shm < 0 else 'slower'}). The difference is the filesystem's: making a")
    p("directory, and evicting it once removed, cost more on a journalled disk")
    p("filesystem (here mounted with online `discard`) than on a tmpfs.")
    p()
p("An execve of a small static binary is the floor of every step: the")
p(f"static `true` alone takes {ms(true_bare)} ms (fork+exec+wait included);")
p(f"one more execve in front of it (test/probe/bench_hop.c, which only execs")
p(f"its arguments) adds {ms(hop)} ms, four of them {ms(hop4)} ms, so one")
p(f"execve costs about {ms(hop_each)} ms on this machine. The chain has four")
p(f"(pysbx-mount, pysbx-exec, pysbx-seccomp, the target) after `pysbx run`")
p(f"itself, bwrap one.")
p()

p("## 4. Syscall overhead of python.policy's filter")
p()
n_loop = None
if loop_rows:
    m = re.search(r"bench_loop (\d+)", loop_rows[0][0])
    n_loop = int(m.group(1)) if m else None
p(f"bench_loop makes N getppid() and N read(fd, buf, 0) calls (N = {n_loop});")
p("filtered, it runs under pysbx-seccomp standalone, whose own start-up")
p("(section 3) is included but negligible next to the loop.")
p()
table("loop", ref=loop_rows[0][0] if loop_rows else None, ref_label="no filter")
if loop_bare and loop_f and n_loop:
    p(f"Per system call: {loop_bare / (2 * n_loop) * 1e9:.0f} ns unfiltered, "
      f"{loop_f / (2 * n_loop) * 1e9:.0f} ns filtered "
      f"(+{(loop_f - loop_bare) / (2 * n_loop) * 1e9:.0f} ns).")
    p()

p("## 5. Throughput: 100 sandboxes, 4 at a time")
p()
p("Wall time of the whole batch (`xargs -P4`), each launch through `sh -c`")
p("on both sides (bwrap needs the shell for its fds). The reference")
p("program's batch is the best a launcher doing this setup in one program")
p("reaches here; the static `true` batches, what launching four at a time")
p("costs this machine for any process at all.")
p()
table("batch", ref=b_rows[1][0] if len(b_rows) > 1 else None, ref_label="bwrap", digits=0)
if b_pys and b_bw:
    p(f"Launches per second: pysbx {100 / b_pys:.0f}, bwrap {100 / b_bw:.0f}.")
    p()
if b_true and b_true1:
    p(f"A bare static `true` through `sh -c`: {ms(b_true1 / 100)} ms per launch one at")
    p(f"a time, {ms(b_true / 100)} ms four at a time: a speed-up of {b_true1 / b_true:.2f}×")
    p(f"on {M.get('nproc', '?')} CPUs (the ideal would be {M.get('nproc', '?')}×). What the batch")
    p("measures here is mostly what process creation costs this machine under")
    p("load (see \"Reading the figures\"), for every launcher alike.")
    p()

p("## 6. Sizes and memory")
p()
p("| binary | bytes | KiB |")
p("|---|---:|---:|")
for k, v in sizes.items():
    p(f"| {k} | {v} | {int(v) / KiB:.1f} |")
p()
p("(bwrap is dynamically linked: its size excludes libc, libselinux and")
p("libcap.)")
p()
rcmd = kv(os.path.join(RES, "rss.txt")).get("cmd")
if rss:
    p("Resident memory while the target sleeps (`/proc/PID/status` one second")
    p("into the run; VmHWM is the peak):")
    p()
    p(f"```sh\n{short(rcmd or '?')}\n```")
    p()
    p("| process | comm | VmHWM KiB | VmRSS KiB | of which anonymous | of which file (shared text, rodata) |")
    p("|---|---|---:|---:|---:|---:|")
    for role, label in [("guard", "guard (`pysbx run`, front door in-process)"),
                        ("monitor", "monitor (pysbx-mount, outside the pid ns)"),
                        ("pid1", "pid 1 (pysbx-mount reaper)"), ("target", "target"),
                        ("guard_clean", "guard as `pysbx-clean` (second run, below)")]:
        if role in rss:
            r = rss[role]
            p(f"| {label} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} |")
    p()
    ccmd = kv(os.path.join(RES, "rss.txt")).get("cmd_clean")
    if ccmd:
        p(f"The second run:\n\n```sh\n{short(ccmd)}\n```\n")
    p("The file-backed part is the program's text and read-only data, mapped")
    p("whole by the kernel's fault-around and shared by every sandbox running")
    p("at the same time; the anonymous part is each process's own.")
    p()
else:
    p("_RSS not measured: pysbx-clean or pysbx-mount was not built._")
    p()

# --- pysbx session (issue 24) ----------------------------------------------------

sj = os.path.join(RES, "session.json")
if os.path.exists(sj):
    s = json.load(open(sj))
    w = s["warm_ms"]
    cr, rr = s["cold_ms"] / s["bare_ms"], s["run_ms"] / s["bare_ms"]
    p("## 7. pysbx session (issue 24)")
    p()
    p("scripts/bench/session.py, run by bench.sh as the same user, talks to")
    p("`pysbx session` (python.policy, `--workspace $WS`) from a Python")
    p("client as a tool would: the round trip of")
    p("`{\"action\":\"execute\",\"code\":\"pass\"}` on a warm session")
    p(f"(request written to response read, {s['warm_runs']} runs); the first")
    p("execute of a new session (spawn to first response: session start,")
    p("policy check, chain, interpreter, worker, execute) against a bare")
    p("`python3 -I -S -c pass` and `pysbx run -p python.policy -- python3 -I")
    p(f"-S -c pass`, started the same way ({s['runs']} alternating runs each);")
    p("the session's VmRSS/VmHWM; its CPU ticks over 10 s idle.")
    p()
    p("```sh\npython3 scripts/bench/session.py $BIN $WS\n```")
    p()
    p("| what | measured | target | verdict |")
    p("|---|---:|---|---|")
    p(f"| warm `pass` round trip, median (min, p90) | {w['median']:.3f} ms "
      f"({w['min']:.3f}, {w['p90']:.3f}) | ≤ 1 ms | "
      f"{'met' if w['median'] <= 1 else '**missed**'} |")
    p(f"| cold first execute / bare python3 | {cr:.2f}× ({s['cold_ms']:.2f} "
      f"vs {s['bare_ms']:.2f} ms) | ≤ 1.3× | "
      f"{'met' if cr <= 1.3 else '**missed**'} |")
    p(f"| `pysbx run` python3 / bare (the floor of the line above) | "
      f"{rr:.2f}× ({s['run_ms']:.2f} ms) | | |")
    p(f"| session above `pysbx run` | {s['cold_ms'] - s['run_ms']:+.2f} ms "
      f"| | |")
    rk, bk = s["rss_kb"], s["rss_big_kb"]
    p(f"| session VmRSS / VmHWM, warm | {rk[0]} / {rk[1]} kB | ≤ 1 MiB | "
      f"{'met' if rk[0] <= 1024 else '**missed**'} |")
    p(f"| the same after a 1 MB output | {bk[0]} / {bk[1]} kB | | |")
    p(f"| CPU over 10 s idle | {s['idle_ticks']} ticks (of {s['hz']}/s) | 0 "
      f"| {'met' if s['idle_ticks'] == 0 else '**missed**'} |")
    p()
    p(f"Load average at the end of the session runs: {s['load_end']:.1f}.")
    p("The cold first execute cannot be below `pysbx run` of the same")
    p("interpreter (its floor here); docs/SESSION.md says what the session")
    p("adds above it.")
    p()

# --- where the time goes -----------------------------------------------------------

p("## Where the time goes")
p()
sc = os.path.join(RES, "strace-c.txt")
st = os.path.join(RES, "strace-T.txt")
scb = os.path.join(RES, "strace-c-bwrap.txt")
cmdf = os.path.join(RES, "strace-cmd.txt")
if os.path.exists(sc):
    p("One run under strace, as the same unprivileged user (strace slows every")
    p("syscall down; read the proportions, not the absolute times):")
    p()
    p("```sh")
    c = short(open(cmdf).read().strip()) if os.path.exists(cmdf) else "?"
    p(f"strace -f -c -S time {c}")
    p(f"strace -f -T -tt {c}")
    p("```")
    p()
    p("`strace -f -c`, the 15 most expensive syscalls (all processes):")
    p()
    p("```")
    lines = open(sc).read().splitlines()
    hdr = [l for l in lines[:2]]
    body = [l for l in lines[2:] if l and not l.startswith("---") and not l.strip().startswith("100.00") and "total" not in l]
    tot = [l for l in lines if "total" in l]
    for l in hdr + body[:15] + tot:
        p(l)
    p("```")
    p()
    if os.path.exists(scb):
        bl = open(scb).read().splitlines()
        bt = [l for l in bl if "total" in l]
        if bt and tot:
            p(f"For comparison, bwrap's total under `strace -f -c`: {bt[0].split()[3]} syscalls "
              f"(pysbx: {tot[0].split()[3]}). `wait4` and `ppoll` are the processes waiting for their")
            p("children, not work.")
            p()
if os.path.exists(st):
    # Timeline: which program each pid runs, when it exec'd and exited.
    prog = {}
    agg = defaultdict(lambda: defaultdict(lambda: [0, 0.0]))
    pending = {}
    forked = []
    last_forker = None
    events = []
    t0 = None
    rx = re.compile(r"^(\d+)\s+(\d\d):(\d\d):(\d\d\.\d+)\s+(.*)$")
    for line in open(st, encoding="utf-8", errors="replace"):
        m = rx.match(line)
        if not m:
            continue
        pid, hh, mm, ss, rest = m.groups()
        t = int(hh) * 3600 + int(mm) * 60 + float(ss)
        if t0 is None:
            t0 = t
        rel = (t - t0) * 1000
        me = re.match(r'execve\("([^"]*)"', rest)
        path = None
        if me and "<unfinished" in rest:
            pending[pid] = me.group(1)
        elif me and re.search(r"\) = 0( <|$)", rest):
            path = me.group(1)
        elif rest.startswith("<... execve resumed>") and re.search(r"\) = 0( <|$)", rest):
            path = pending.pop(pid, "?")
        if pid not in prog and last_forker is not None:
            prog[pid] = prog.get(last_forker, "?")
        if path:
            events.append((rel, pid, prog.get(pid, "(caller)"), f"execve {os.path.basename(path)}"))
            prog[pid] = os.path.basename(path)
        elif rest.startswith("+++ exited") or rest.startswith("+++ killed"):
            events.append((rel, pid, prog.get(pid, "?"), rest.strip("+ ")))
        mt = re.search(r"<(\d+\.\d+)>$", rest.rstrip())
        if mt:
            name = re.match(r"([a-z_0-9]+)\(", rest)
            if name and name.group(1) not in ("wait4", "ppoll", "poll", "read", "waitid", "rt_sigtimedwait", "pselect6") or \
                    (name and name.group(1) == "read" and "unfinished" not in rest and "resumed" not in rest):
                agg[prog.get(pid, "?")][name.group(1)][0] += 1
                agg[prog.get(pid, "?")][name.group(1)][1] += float(mt.group(1)) * 1000
        ms_ = (re.search(r"^(clone3?|fork|vfork)\(.*\)\s+=\s+(\d+)", rest) or
               re.search(r"^<\.\.\. (clone3?|fork|vfork) resumed>.*\)\s+=\s+(\d+)", rest))
        if ms_:
            events.append((rel, pid, prog.get(pid, "?"), f"{ms_.group(1)} -> {ms_.group(2)}"))
            # A child forked without exec runs its parent's program; the
            # number is the pid as the parent's pid namespace sees it.
            prog.setdefault(ms_.group(2), prog.get(pid, "?"))
            forked.append(ms_.group(2))
            last_forker = pid
    p("`strace -f -T -tt`: the timeline (ms since the first syscall; each pid")
    p("named by the program it runs):")
    p()
    p("| ms | pid | program | event |")
    p("|---:|---|---|---|")
    for rel, pid, pr, ev in events:
        if pr == "?" and forked:
            pr = "(forked, no exec)"
        p(f"| {rel:.2f} | {pid} | {pr} | {ev} |")
    p()
    p("(A pid in a `fork ->` line is as the forking process sees it: inside")
    p("the new pid namespace pid 1's child is pid 2. The reaper is pysbx-mount")
    p("code forked without an exec.)")
    p()
    p("Syscalls by program (count, and the three costliest kinds by summed")
    p("`-T` time; waits for children left out):")
    p()
    p("| program | syscalls | ms in syscalls | costliest |")
    p("|---|---:|---:|---|")
    for pr, d in agg.items():
        n = sum(v[0] for v in d.values())
        t = sum(v[1] for v in d.values())
        top = sorted(d.items(), key=lambda kv_: -kv_[1][1])[:3]
        tops = ", ".join(f"{k} ×{v[0]} {v[1]:.2f} ms" for k, v in top)
        p(f"| {pr} | {n} | {t:.2f} | {tops} |")
    p()

SIDES = (("pysbx", "pysbx"), ("bwrap", "bwrap"),
         ("bench_guard", "floor with the steps' duties"))


def phase_summary(side):
    """[runs, front, setup, target, back, total] from phases.py --summary."""
    f = os.path.join(RES, f"phases-{side}.tsv")
    try:
        v = open(f).read().split()
        return [int(v[0])] + [float(x) for x in v[1:6]]
    except (OSError, ValueError, IndexError):
        return None


ph = {side: os.path.join(RES, f"phases-{side}.md") for side, _ in SIDES}
spans = {side: phase_summary(side) for side, _ in SIDES}
if any(os.path.exists(f) or spans[side] for side, f in ph.items()):
    p("## Where the time goes: one start, phase by phase")
    p()
    p("Scheduler events (exec, fork, exit) of every process of a start,")
    p("recorded system-wide with `perf record -e sched:sched_process_exec")
    p("-e sched:sched_process_fork -e sched:sched_process_exit -a` while the")
    p("\"net ns\" commands of section 1 ran in a loop (scripts/bench/phases.py")
    p("splits them per process tree). An exec event is logged when the new")
    p("program is loaded, so the time of an execve itself falls in the phase")
    p("that ends with it. perf's tracing adds a little to every phase.")
    p()
    if any(spans.values()):
        p("The same spans for each side (medians, ms): the first program's")
        p("own work before its first fork (pysbx: the front door and the")
        p("guard; the floor: bench_guard making the scratch dir), from there to")
        p("the target's exec (namespaces, mounts, the steps), the target, and")
        p("the way back from the target's exit to the first program's (pid 1,")
        p("the monitor, the guard removing the scratch dir).")
        p()
        p("| side | runs | front | to the target's exec | target | way back | total |")
        p("|---|---:|---:|---:|---:|---:|---:|")
        for side, label in SIDES:
            r = spans[side]
            if r:
                p(f"| {label} | {r[0]} | " + " | ".join(f"{x:.3f}" for x in r[1:]) + " |")
        pys, fl = spans["pysbx"], spans["bench_guard"]
        if pys and fl:
            d = [a - b for a, b in zip(pys[1:], fl[1:])]
            p(f"| pysbx − floor | | {d[0]:+.3f} | {d[1]:+.3f} | {d[2]:+.3f} | {d[3]:+.3f} | {d[4]:+.3f} |")
        p()
    for side, label in SIDES:
        f = ph[side]
        if os.path.exists(f):
            p(f"### {label}")
            p()
            p(open(f).read().rstrip())
            p()

an = os.path.join(HERE, "analysis.md")
if os.path.exists(an):
    p(open(an).read().rstrip())
    p()
print("\n".join(out))
