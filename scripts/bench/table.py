"""scripts/bench/table.py JSON WHAT: a hyperfine --export-json result as
a markdown table (median, min-max, ratio to the first command), the one
bench-modes.sh and bench-sigsys.sh print."""
import json
import statistics
import sys

r = json.load(open(sys.argv[1]))["results"]
base = statistics.median(r[0]["times"])
print(f"| {sys.argv[2]} | median ms | min–max ms | ÷ {r[0]['command']} |")
print("|---|---|---|---|")
for x in r:
    m = statistics.median(x["times"])
    print(f"| {x['command']} | {m*1e3:.2f} | {min(x['times'])*1e3:.2f}–{max(x['times'])*1e3:.2f} | {m/base:.2f}× |")
