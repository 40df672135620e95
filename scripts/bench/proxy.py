#!/usr/bin/env python3
"""The egress proxy's costs, side by side in one run (scripts/bench-proxy.sh).

  proxy.py BIN_DIR WORK_DIR

1. throughput: 256 MiB from a server on the host's 127.0.0.1, read by the
   same client directly (host loopback) and from inside a net-proxy
   sandbox through the proxy (CONNECT); alternating runs, best of each.
2. connect latency: connect + request + 1-byte answer, directly and
   through the proxy (connect to the proxy, CONNECT, 200, request,
   answer); medians; the difference is what the proxy adds.
3. start-up: `pysbx run -p P -- /bin/true` for the same policy with and
   without net-proxy, alternating; medians.
4. the first connect of a fresh client process, directly and from a
   fresh sandbox (where the proxy starts at that connection); medians.
Prints a Markdown table.
"""
import os
import socket
import statistics
import subprocess
import sys
import threading
import time

BIN, WORK = sys.argv[1], sys.argv[2]
SIZE = 256 << 20
LAT_N = int(os.environ.get("BENCH_LAT_N", "300"))
START_N = int(os.environ.get("BENCH_START_N", "60"))
TPUT_N = int(os.environ.get("BENCH_TPUT_N", "3"))
FIRST_N = int(os.environ.get("BENCH_FIRST_N", "20"))

CHUNK = b"x" * (4 << 20)


def serve(ls):
    def one(c):
        with c:
            f = c.makefile("rb")
            n = int(f.readline())
            while n > 0:
                k = min(n, len(CHUNK))
                c.sendall(memoryview(CHUNK)[:k])
                n -= k
    while True:
        c, _ = ls.accept()
        threading.Thread(target=one, args=(c,), daemon=True).start()


ls = socket.socket()
ls.bind(("127.0.0.1", 0))
ls.listen(128)
PORT = ls.getsockname()[1]
threading.Thread(target=serve, args=(ls,), daemon=True).start()

CLIENT = r'''
import socket, statistics, sys, time
mode, port, what, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
def conn():
    if mode == "direct":
        return socket.create_connection(("127.0.0.1", port))
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT bench.test:%d HTTP/1.1\r\n\r\n" % port)
    got = b""
    while not got.endswith(b"\r\n\r\n"):
        b = s.recv(1)
        if not b: raise SystemExit("proxy closed")
        got += b
    if b" 200 " not in got.split(b"\r\n")[0]: raise SystemExit(got)
    return s
if what == "tput":
    buf = bytearray(1 << 20)
    t0 = time.perf_counter()
    s = conn()
    s.sendall(b"%d\n" % n)
    left = n
    while left:
        k = s.recv_into(buf)
        if not k: raise SystemExit("short")
        left -= k
    print(n / (time.perf_counter() - t0) / 1e6)
else:
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        s = conn()
        s.sendall(b"1\n")
        s.recv(1)
        ts.append(time.perf_counter() - t0)
        s.close()
    print(statistics.median(ts) * 1000)
'''
client = os.path.join(WORK, "client.py")
with open(client, "w") as f:
    f.write(CLIENT)
os.chmod(client, 0o644)
base = """unshare user mount pid ipc uts net
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
symlink usr/lib64 /lib64
proc /proc
dev /dev
tmpfs /tmp
ro-bind %s /bench
env PATH=/usr/bin:/bin
""" % WORK
plain = os.path.join(WORK, "plain.policy")
proxy = os.path.join(WORK, "proxy.policy")
with open(plain, "w") as f:
    f.write(base)
with open(proxy, "w") as f:
    f.write(base + "net-proxy\nnet-resolve bench.test=127.0.0.1\n"
            "net-allow bench.test:%d\n" % PORT)
for p in (plain, proxy):
    os.chmod(p, 0o644)
PY = "/usr/bin/python3"


def direct(what, n):
    return float(subprocess.check_output(
        [PY, client, "direct", str(PORT), what, str(n)]))


def proxied(what, n):
    return float(subprocess.check_output(
        [BIN + "/pysbx", "run", "-p", proxy, "--", PY, "/bench/client.py",
         "proxy", str(PORT), what, str(n)]))


d_t, p_t = [], []
for _ in range(TPUT_N):
    d_t.append(direct("tput", SIZE))
    p_t.append(proxied("tput", SIZE))
d_l = direct("lat", LAT_N)
p_l = proxied("lat", LAT_N)
d_l = min(d_l, direct("lat", LAT_N))
p_l = min(p_l, proxied("lat", LAT_N))


def start(p):
    t0 = time.perf_counter()
    subprocess.run([BIN + "/pysbx", "run", "-p", p, "--", "/bin/true"],
                   check=True)
    return time.perf_counter() - t0


s_plain, s_proxy = [], []
for _ in range(3):
    start(plain), start(proxy)
for _ in range(START_N):
    s_plain.append(start(plain))
    s_proxy.append(start(proxy))
mp, mx = statistics.median(s_plain) * 1000, statistics.median(s_proxy) * 1000

# 4. The first connection of a fresh process (direct) and of a fresh
# sandbox (proxy): there the proxy does its own start (plan, name files,
# the host's addresses, confinement), deferred from the sandbox's start.
f_d, f_p = [], []
for _ in range(FIRST_N):
    f_d.append(direct("lat", 1))
    f_p.append(proxied("lat", 1))
fd_m, fp_m = statistics.median(f_d), statistics.median(f_p)

print("| measure | direct / plain | through the proxy | ratio or difference | goal |")
print("|---|---|---|---|---|")
print("| throughput, 256 MiB over loopback (best of %d) | %.0f MB/s | %.0f MB/s | %.0f%% | >= 50%% |"
      % (TPUT_N, max(d_t), max(p_t), 100 * max(p_t) / max(d_t)))
print("| connect + 1-byte answer (median of %d) | %.3f ms | %.3f ms | +%.3f ms | <= +1 ms |"
      % (LAT_N, d_l, p_l, p_l - d_l))
print("| start-up, `pysbx run -- /bin/true` (median of %d) | %.2f ms | %.2f ms | %+.1f%% | within 10%% |"
      % (START_N, mp, mx, 100 * (mx - mp) / mp))
print("| first connect of a fresh process / sandbox, the proxy's own start included (median of %d) | %.3f ms | %.3f ms | %+.3f ms | |"
      % (FIRST_N, fd_m, fp_m, fp_m - fd_m))
