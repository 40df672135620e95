#!/usr/bin/env python3
"""Measure `pysbx session` (docs/BENCHMARKS.md, "pysbx session").

    python3 scripts/bench/session.py [--json FILE] [BIN_DIR] [WORKSPACE]

scripts/bench.sh runs it (--json into its results; report.py writes the
"pysbx session" section of docs/BENCHMARKS.md from that). Prints four
numbers, each a median over alternating runs:
- warm: the round trip of execute {"code": "pass"} on a warm session
  (request written to response read, by this client);
- cold: spawning `pysbx session` and getting the answer of its first
  execute (sandbox + interpreter start), against a bare
  `python3 -I -S -c pass` started the same way;
- rss: the session process's VmRSS and VmHWM after the warm runs, and
  after a 1 MiB output;
- idle: the CPU ticks (utime + stime) the session used over 10 s idle.
Not a test: nothing here is asserted.
"""

import json
import os
import statistics
import subprocess
import sys
import time

ARGS = sys.argv[1:]
JSON = None
if ARGS[:1] == ["--json"] and len(ARGS) > 1:
    JSON, ARGS = ARGS[1], ARGS[2:]
BIN = os.path.abspath(ARGS[0] if ARGS else "build/bin")
WS = ARGS[1] if len(ARGS) > 1 else os.getcwd()
RUNS = 20
PYSBX = os.path.join(BIN, "pysbx")
EXEC_PASS = b'{"action":"execute","code":"pass"}\n'
POLICY = os.path.join(os.path.dirname(BIN.rstrip("/")), "..", "policies",
                      "python.policy")


def spawn():
    return subprocess.Popen([PYSBX, "session", "--workspace", WS],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def ask(p, line):
    p.stdin.write(line)
    p.stdin.flush()
    return json.loads(p.stdout.readline())


def status(pid):
    with open(f"/proc/{pid}/status") as f:
        return {k: v.strip() for k, v in
                (ln.split(":", 1) for ln in f if ":" in ln)}


def ticks(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def main():
    cold, bare, run = [], [], []
    for _ in range(RUNS):
        t = time.perf_counter()
        p = spawn()
        r = ask(p, EXEC_PASS)
        cold.append((time.perf_counter() - t) * 1000)
        assert r["status"] == "ok", r
        p.stdin.close()
        p.wait()
        t = time.perf_counter()
        subprocess.run(["/usr/bin/python3", "-I", "-S", "-c", "pass"],
                       check=True)
        bare.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        subprocess.run([PYSBX, "run", "-p", POLICY, "-D", f"WORKSPACE={WS}",
                        "--", "/usr/bin/python3", "-I", "-S", "-c", "pass"],
                       check=True)
        run.append((time.perf_counter() - t) * 1000)

    p = spawn()
    ask(p, EXEC_PASS)
    warm = []
    for _ in range(1000):
        t = time.perf_counter()
        ask(p, EXEC_PASS)
        warm.append((time.perf_counter() - t) * 1000)
    st = status(p.pid)
    rss = (st["VmRSS"], st["VmHWM"])
    ask(p, b'{"code":"print(\'x\' * 1000000)"}\n')
    ask(p, EXEC_PASS)
    st = status(p.pid)
    rss_big = (st["VmRSS"], st["VmHWM"])
    a = ticks(p.pid)
    time.sleep(10)
    idle = ticks(p.pid) - a
    p.stdin.close()
    p.wait()

    cm, bm = statistics.median(cold), statistics.median(bare)
    rm = statistics.median(run)
    if JSON:
        with open(JSON, "w") as f:
            json.dump({
                "runs": RUNS, "warm_runs": len(warm),
                "warm_ms": {"median": statistics.median(warm),
                            "min": min(warm),
                            "p90": statistics.quantiles(warm, n=10)[-1]},
                "cold_ms": cm, "bare_ms": bm, "run_ms": rm,
                "cold_min_ms": min(cold), "bare_min_ms": min(bare),
                "run_min_ms": min(run),
                "rss_kb": [int(x.split()[0]) for x in rss],
                "rss_big_kb": [int(x.split()[0]) for x in rss_big],
                "idle_ticks": idle, "hz": os.sysconf("SC_CLK_TCK"),
                "load_end": os.getloadavg()[0],
                "cmd": f"python3 scripts/bench/session.py {BIN} {WS}",
            }, f, indent=1)
    print(f"warm execute 'pass' round trip: median {statistics.median(warm):.3f}"
          f" ms (min {min(warm):.3f}, p90 "
          f"{statistics.quantiles(warm, n=10)[-1]:.3f}), 1000 runs")
    print(f"cold first execute: median {cm:.1f} ms; bare python3 -I -S -c "
          f"pass: {bm:.1f} ms; ratio {cm / bm:.2f}x; pysbx run -p "
          f"python.policy python3 -I -S -c pass: {rm:.1f} ms, "
          f"{rm / bm:.2f}x (20 alternating runs)")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    print(f"session RSS after the warm runs: VmRSS {rss[0]}, VmHWM {rss[1]}; "
          f"after a 1 MB output: VmRSS {rss_big[0]}, VmHWM {rss_big[1]}")
    print(f"idle CPU over 10 s: {idle} ticks "
          f"(of {os.sysconf('SC_CLK_TCK')} per s)")


main()
