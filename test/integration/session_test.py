"""pysbx session driven as a tool drives it (run by session.sh, prints TAP).

Every check talks to a real `pysbx session` (python.policy, the real
sandbox) through scripts/session_client.py, and checks what matters on the
host side: processes, the scratch directory, the exact response fields.
No check is about how long something took.
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.environ["PYSBX_ROOT"]
BIN = os.environ["PYSBX_BIN"]
PYSBX = os.path.join(BIN, "pysbx")
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from session_client import Session, SessionError  # noqa: E402

n = 0
failed = 0
T = tempfile.mkdtemp(prefix="session-test.", dir=os.environ.get("HOME"))
os.chmod(T, 0o700)
WS = os.path.join(T, "ws")
PARENT = os.path.join(T, "scratch")
os.mkdir(WS)
os.mkdir(PARENT, 0o700)


def ok(cond, desc, *detail):
    global n, failed
    n += 1
    if cond:
        print(f"ok {n} - {desc}")
    else:
        failed += 1
        print(f"not ok {n} - {desc}")
        for d in detail:
            for line in str(d).splitlines() or [""]:
                print(f"#   {line}")
    sys.stdout.flush()
    return cond


def session(*args, **kw):
    return Session(PYSBX, workspace=WS,
                   extra_args=["--scratch-parent", PARENT] + list(args),
                   **kw)


def wait_for(pred, secs=10.0):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def my_procs(marker):
    """Pids of this uid whose command line holds marker."""
    out = []
    me = os.getpid()
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == me:
            continue
        try:
            with open(f"/proc/{p}/status") as f:
                uid = [ln.split()[1] for ln in f if ln.startswith("Uid:")][0]
            with open(f"/proc/{p}/cmdline", "rb") as f:
                cmd = f.read()
        except (OSError, IndexError):
            continue
        if int(uid) == os.getuid() and marker.encode() in cmd:
            out.append(int(p))
    return out


def workers():
    return my_procs("pysbx session worker")


def value_of(s, code):
    return s.execute(code).get("value")


# --- status, lazy start ------------------------------------------------

s = session()
st = s.status()
ok(st["ready"] is False and st["generation"] == 0,
   "status before any execute: not ready, generation 0", st)
ok(not workers(), "status starts nothing (no worker process)", workers())
lim = st["limits"]
ok(lim["sourceBytes"] == 65536 and lim["outputBytes"] == 1048576 and
   lim["reprBytes"] == 8192 and lim["frameBytes"] == 131072 and
   lim["timeoutSecondsDefault"] == 30 and lim["timeoutSecondsMax"] == 120,
   "status reports the limits", lim)
scratch = st["paths"]["scratch"]
ok(os.path.isdir(scratch) and os.path.dirname(scratch) == PARENT and
   st["paths"]["sandboxScratch"] == "/scratch" and
   st["paths"]["workspace"] == WS,
   "status reports the sandbox paths (host scratch under the parent)", st)

# --- state ---------------------------------------------------------------

r1 = s.execute("a = [1]")
r2 = s.execute("a.append(2)")
r3 = s.execute("a.append(3); a")
ok(r1["workerStarted"] and not r2["workerStarted"] and
   r3["value"] == "[1, 2, 3]" and r3["generation"] == 1,
   "state persists across three executes", r1, r3)
st = s.status()
ok(st["ready"] and st["generation"] == 1 and st["python"],
   "status after an execute: ready, generation 1", st)

r = s.execute("b = 1\nb = 2\n1/0\nb = 3")
ok(r["status"] == "error" and r["exception"]["type"] == "ZeroDivisionError"
   and "line 3" in r["exception"]["traceback"] and not r["stateLost"],
   "an exception is reported with type and traceback", r)
ok(value_of(s, "b") == "2", "an exception keeps the earlier mutations")

r = s.execute("import sys\nprint('out')\nprint('err', file=sys.stderr)\n7")
ok(r["stdout"] == "out\n" and r["stderr"] == "err\n" and r["value"] == "7"
   and r["stdoutBytes"] == 4 and r["stderrBytes"] == 4,
   "stdout, stderr and the value come back separately", r)

r = s.execute("import subprocess\nsubprocess.run(['echo', 'child'])\n"
              "subprocess.run(['sh', '-c', 'echo e >&2'])\nNone")
ok(r["stdout"] == "child\n" and r["stderr"] == "e\n" and r["value"] is None,
   "a subprocess's output is captured with its execute", r)

# --- display -------------------------------------------------------------

ok(value_of(s, "1 + 1") == "2", "a final expression is displayed (repr)")
ok(value_of(s, "'a' + 'b'") == "'ab'", "a string is displayed as its repr")
ok(value_of(s, "1 + 1;") is None, "a trailing ';' suppresses the value")
ok(value_of(s, "1 + 1;  # comment") is None,
   "a trailing ';' before a comment suppresses the value")
ok(value_of(s, "x = '; not this'\nx") == "'; not this'",
   "a ';' inside the expression does not")
ok(value_of(s, "None") is None, "None displays nothing")
r = s.execute("print('p')")
ok(r["value"] is None and r["stdout"] == "p\n",
   "a final print() displays nothing more", r)
r = s.execute("'x' * 20000")
ok(r["valueTruncated"] is True and len(r["value"].encode()) <= 8192,
   "a repr over 8 KiB is cut and reported", len(r["value"] or ""))

# --- await, input, exit ----------------------------------------------------

r = s.execute("import asyncio\nasync def f(v):\n    await asyncio.sleep(0)\n"
              "    return v\nawait f(41) + 1")
ok(r["status"] == "ok" and r["value"] == "42", "top-level await works", r)
ok(value_of(s, "await asyncio.gather(f(1), f(2))") == "[1, 2]",
   "top-level await works again in the next execute")
r = s.execute("async def g():\n    await asyncio.sleep(0)\n    return 'ran'\n"
              "asyncio.run(g())")
ok(r["status"] == "ok" and r["value"] == "'ran'",
   "asyncio.run() works too (python.policy denies socketpair)", r)
r = s.execute("input()")
ok(r["status"] == "error" and r["exception"]["type"] == "EOFError",
   "input() meets EOF", r)
r = s.execute("import sys\nkeep = 'kept'\nsys.exit(3)")
ok(r["status"] == "error" and r["exception"]["type"] == "SystemExit" and
   not r["stateLost"] and value_of(s, "keep") == "'kept'",
   "sys.exit() ends the execute only, state kept", r)

# --- output ----------------------------------------------------------------

r = s.execute("import os\nos.write(1, b'\\xff\\xfeok')")
ok(r["stdout"] == "\ufffd\ufffdok" and r["stdoutBytes"] == 4,
   "invalid UTF-8 output arrives as U+FFFD, counted in bytes", r)
r = s.execute("import sys\nsys.stdout.write('y' * 500000)\n"
              "sys.stderr.write('z' * 500000)\nNone")
ok(r["status"] == "ok" and r["stdoutBytes"] == 500000 and
   r["stderrBytes"] == 500000 and r["stdout"] == "y" * 500000 and
   not r["outputTruncated"],
   "output under the limit (1,000,000 bytes) arrives whole", r["status"])
s.execute("mark = 'before overflow'")
r = s.execute("print('a' * (2 * 1024 * 1024))")
ok(r["status"] == "output_limit" and r["outputTruncated"] and
   r["stdoutBytes"] + r["stderrBytes"] == 1048576 and
   r["stdout"] == "a" * r["stdoutBytes"] and r["stateLost"] and
   r["stateLostReason"] == "output_limit",
   "a 2 MiB print is cut at 1 MiB and reported, state loss reported",
   {k: v for k, v in r.items() if k not in ("stdout", "stderr")})
r = s.execute("mark")
ok(r["exception"] and r["exception"]["type"] == "NameError" and
   r["workerStarted"], "after the overflow the next execute is fresh", r)

# --- timeout ---------------------------------------------------------------

s.execute("t = 5")
r = s.execute("import time\nprint('before', flush=True)\ntime.sleep(100)",
              timeout=1)
ok(r["status"] == "timeout" and r["stdout"] == "before\n" and
   r["stateLost"] and r["stateLostReason"] == "timeout",
   "a timeout returns the partial output and reports the state loss", r)
gen = r["generation"]
r = s.execute("t")
ok(r["exception"] and r["exception"]["type"] == "NameError" and
   r["workerStarted"] and r["generation"] == gen + 1,
   "after a timeout the next execute sees fresh state (code not replayed)",
   r)

# A setsid daemon, writing to /scratch, must be gone after the timeout.
daemon = os.path.join(scratch, "daemon.out")
r = s.execute(
    "import subprocess, time\n"
    "subprocess.Popen(['sh', '-c', 'while :; do echo x >> /scratch/daemon.out;"
    " sleep 0.05; done', 'daemon-marker-1'], start_new_session=True,"
    " stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "time.sleep(100)", timeout=2)
ok(r["status"] == "timeout", "the daemon's execute timed out", r)
# Right after the answer, not after a pause: the session answers only once
# the whole tree is gone (it is their subreaper and waits for them).
ok(not my_procs("daemon-marker-1") and not workers(),
   "no process of the sandbox is left when a timeout is answered",
   my_procs("daemon-marker-1"), workers())


def uid_procs():
    """Pids of this uid but this process: exiting ones too (their
    command line is gone once their memory is, their status is not)."""
    out = set()
    for p in os.listdir("/proc"):
        if not p.isdigit() or int(p) == os.getpid():
            continue
        try:
            with open(f"/proc/{p}/status") as f:
                uid = [ln.split()[1] for ln in f if ln.startswith("Uid:")][0]
        except (OSError, IndexError):
            continue
        if int(uid) == os.getuid():
            out.add(int(p))
    return out


# The same for a sandbox that is slow to die: a worker holding 300 MB
# takes tens of ms to give its memory back after SIGKILL, long after the
# guard (the host's only child until the kill) is gone. Only a host that
# is the sandbox's subreaper waits for it before answering.
before = uid_procs()
h = session()
r = h.execute("big = b'x' * (300 << 20)\nimport time\ntime.sleep(100)",
              timeout=1)
left = uid_procs() - before - {h.proc.pid}
ok(r["status"] == "timeout" and not left,
   "a worker slow to die (300 MB to free) is gone when its timeout is "
   "answered", r["status"], sorted(left))
h.close()


def stopped():
    a = os.path.getsize(daemon) if os.path.exists(daemon) else -1
    time.sleep(0.4)
    return a == (os.path.getsize(daemon) if os.path.exists(daemon) else -1)


ok(os.path.exists(daemon) and stopped(),
   "a setsid daemon started by user code stops writing after a timeout")

# --- reset -----------------------------------------------------------------

s.execute("open('/scratch/kept.txt', 'w').write('hi'); gone = 1")
r = s.reset()
ok(r["killed"] is True and not workers(), "reset kills the worker", r)
ok(s.status()["ready"] is False, "after a reset, status: not ready")
ok(value_of(s, "open('/scratch/kept.txt').read()") == "'hi'",
   "reset keeps /scratch files")
r = s.execute("gone")
ok(r["exception"] and r["exception"]["type"] == "NameError",
   "reset discards the interpreter state", r)

# --- worker death --------------------------------------------------------------

s.execute("d = 1")
r = s.execute("import os\nprint('last words', flush=True)\nos._exit(7)")
ok(r["status"] == "worker_died" and r["stdout"] == "last words\n" and
   r["stateLost"] and "exit code 7" in r["message"],
   "the worker's death is reported with its exit status and output", r)
r = s.execute("d")
ok(r["workerStarted"] and r["exception"]["type"] == "NameError",
   "after the worker's death the next execute starts a fresh worker", r)

# --- malformed requests ------------------------------------------------------

gen = s.execute("keep2 = 'still here'")["generation"]


def raw(line):
    s.proc.stdin.write(line)
    s.proc.stdin.flush()
    return json.loads(s.proc.stdout.readline())


r = raw(b"this is not json\n")
ok(r["ok"] is False and r["error"]["code"] == "bad_request",
   "a malformed line gets a structured error (bad_request)", r)
r = raw(b'{"action":"fly","id":"q"}\n')
ok(r["ok"] is False and r["error"]["code"] == "unknown_action" and
   r["id"] == "q", "an unknown action gets unknown_action, with its id", r)
r = raw(b'{"action":"execute","code":"1","timeoutSeconds":121}\n')
ok(r["ok"] is False and r["error"]["code"] == "bad_field",
   "timeoutSeconds 121 is refused (bad_field)", r)
r = raw(b'{"action":"execute","code":"1","timeoutSeconds":0.5}\n')
ok(r["ok"] is False and r["error"]["code"] == "bad_field",
   "timeoutSeconds 0.5 is refused (bad_field)", r)
r = raw(b'{"action":"execute","code":"1","bogus":1}\n')
ok(r["ok"] is False and r["error"]["code"] == "bad_field",
   "an unknown field is refused (bad_field)", r)
r = raw(json.dumps({"action": "execute", "code": "#" * 65537}).encode()
        + b"\n")
ok(r["ok"] is False and r["error"]["code"] == "code_too_large",
   "code over 64 KiB is refused (code_too_large)", r)
r = raw(b'{"action":"execute","code":"' + b"x" * (200 * 1024) + b'"}\n')
ok(r["ok"] is False and r["error"]["code"] == "frame_too_large",
   "a line over 128 KiB is refused (frame_too_large)", r)
r = raw(b'{"action":"execute","code":"1"}{"x":1}\n')
ok(r["ok"] is False and r["error"]["code"] == "bad_request",
   "two objects on a line are refused", r)
r = s.execute("keep2")
ok(r["value"] == "'still here'" and r["generation"] == gen and
   not r["workerStarted"],
   "after malformed and oversized requests the session keeps working, "
   "state intact")

# --- forged frames from user code ----------------------------------------------


def forged(desc, code, statuses, timeout=5, lost=True):
    s.execute("forge = 1")
    r = s.execute(code, timeout=timeout)
    ok(r["status"] in statuses and (r["stateLost"] or not lost) and
       r["stdoutBytes"] + r["stderrBytes"] <= 1048576 and
       (r["value"] is None or len(r["value"].encode()) <= 8192),
       f"forged frame ({desc}): " + (
           "structured error, state loss reported" if lost else
           "at most a misreported result of its own execute, limits hold"),
       {k: v for k, v in r.items() if k not in ("stdout", "stderr")})
    r = s.execute("'forge' in globals(), 6 * 7")
    ok(r["status"] == "ok" and
       r["value"] == ("(False, 42)" if lost else "(True, 42)") and
       r["workerStarted"] == lost,
       f"forged frame ({desc}): the next execute is framed correctly", r)
    return r


forged("garbage", "import os\nos.write(3, b'garbage!')", ["protocol_error"])
forged("huge length", "import os\nos.write(3, b'99999999999:')",
       ["protocol_error"])
forged("length over the limit", "import os\nos.write(3, b'131073:')",
       ["protocol_error"])
FAKE = (
    "import os\n"
    "def ns(b): return b'%d:%s,' % (len(b), b)\n"
    "def frame(**f): return ns(b''.join(ns(k.encode()) + ns(v) "
    "for k, v in f.items()))\n")
forged("a fake result with a wrong id",
       FAKE + "os.write(3, frame(t=b'result', id=b'0' * 16, status=b'ok',"
       " repr=b'fake'))", ["protocol_error"])
forged("a fake result split across writes, wrong id",
       FAKE + "import time\nf = frame(t=b'result', id=b'1' * 16, "
       "status=b'ok', repr=b'fake')\nos.write(3, f[:7])\ntime.sleep(0.3)\n"
       "os.write(3, f[7:])", ["protocol_error"])
forged("half a frame left behind",
       FAKE + "os.write(3, frame(t=b'result', id=b'2' * 16)[:20])",
       ["protocol_error", "timeout"], timeout=2)
# With the real id (stolen from the worker's frame): at most a misreported
# result of this very execute, with the host's limits still holding.
STEAL = (
    FAKE + "import sys\n"
    "fr = sys._getframe()\n"
    "while 'req' not in fr.f_locals:\n"
    "    fr = fr.f_back\n"
    "nonce = fr.f_locals['req']['id']\n")
# The worker's own result comes after the forged one: dropped once (the
# next execute says so), the worker and its state stay. A sleep makes the
# two frames arrive apart (together in one read they are a protocol
# error, checked by the unknown-field case below).
r = forged("a fake result with the stolen id and a 100 KiB repr",
           STEAL + "os.write(3, frame(t=b'result', id=nonce, status=b'ok', "
           "repr=b'r' * 100000, reprtrunc=b'0'))\nimport time\n"
           "time.sleep(0.3)", ["ok"], lost=False)
ok("forged" in r.get("notice", ""),
   "the worker's late own result is reported in the next execute", r)
r = s.execute(STEAL + "os.write(3, frame(t=b'result', id=nonce, "
              "status=b'ok', repr=b'r' * 100000))\nimport time\n"
              "time.sleep(0.3)")
ok(r["value"] == "r" * 8192 and r["valueTruncated"],
   "a forged repr over 8 KiB is cut at 8 KiB by the host and reported",
   len(r["value"] or ""))
forged("a fake result with the stolen id, bytes after it in one write",
       STEAL + "os.write(3, frame(t=b'result', id=nonce, status=b'ok', "
       "repr=b'fake') + b'junk')", ["ok"])
forged("a fake frame with an unknown field and the stolen id",
       STEAL + "os.write(3, frame(t=b'result', id=nonce, status=b'ok', "
       "evil=b'1'))", ["protocol_error"])
forged("a frame with the length past the payload",
       "import os\nos.write(3, b'5:ab,')", ["protocol_error", "timeout"],
       timeout=2)
forged("bytes written to the channel by a thread during the execute",
       "import os, threading, time\n"
       "threading.Thread(target=lambda: (time.sleep(0.2), "
       "os.write(3, b'x'))).start()\ntime.sleep(0.5)\nos.write(3, b'x')",
       ["protocol_error"])
s.execute("idle = 1")
s.execute("import os, threading, time\nthreading.Thread(target=lambda: "
          "(time.sleep(0.3), os.write(3, b'junk'))).start()")
time.sleep(1)
r = s.execute("'idle' in globals()")
ok(r["workerStarted"] and r["value"] == "False" and "notice" in r and
   "protocol error" in r["notice"],
   "a write to the channel between executes kills the worker; the next "
   "execute says so", r)
s.close()
ok(not workers() and not os.path.exists(scratch),
   "the end of the session kills the sandbox and removes /scratch",
   workers(), os.listdir(PARENT))

# --- fresh mode --------------------------------------------------------------

f = session("--fresh")
r1 = f.execute("x = 1\nopen('/scratch/f', 'w').write('f')")
r2 = f.execute("x")
r3 = f.execute("open('/scratch/f').read()")
ok(r1["workerStarted"] and r2["workerStarted"] and r2["exception"] and
   r2["exception"]["type"] == "NameError" and r3["value"] == "'f'" and
   r3["fresh"] and not workers(),
   "--fresh: every execute in a new sandbox, /scratch shared", r2)
f.close()
p = session()
p.execute("y = 1")
r = p.execute("y", fresh=True)
ok(r["workerStarted"] and r["exception"]["type"] == "NameError",
   "execute with fresh: true runs in a new sandbox", r)
p.close()

# --- mounts between executes ---------------------------------------------------

m = session()
r = m.execute("m = 1\nopen('/workspace/ro.txt', 'w')")
ok(r["exception"] and r["exception"]["type"] == "OSError" and
   "Read-only" in r["exception"]["message"],
   "the workspace is read-only by default", r)
root1 = "/var"  # outside /tmp, where the test's HOME may lie
r = m.mounts(workspace_writable=True,
             read_roots=[root1, "/usr", "/tmp", os.path.join(WS, "sub"),
                         "relative"])
skipped = {x["path"]: x["reason"] for x in r["skipped"]}
ok(r["changed"] and r["killed"] and r["readRoots"] == root1 and
   "collides" in skipped.get("/usr", "") and
   "collides" in skipped.get("/tmp", "") and
   "already mounts" in skipped.get(os.path.join(WS, "sub"), "") and
   "absolute" in skipped.get("relative", ""),
   "mounts: reserved, redundant and relative roots are skipped with the "
   "reason; the running sandbox is killed", r)
r = m.execute("import os\nopen('/workspace/rw.txt', 'w').write('rw')\n"
              f"sorted(os.listdir('{root1}'))")
ok(r["value"] == repr(sorted(os.listdir(root1))) and
   os.path.exists(os.path.join(WS, "rw.txt")) and r["workerStarted"] and
   "mounts changed" in r.get("notice", "") and
   "state is lost" in r.get("notice", ""),
   "the next execute runs with the new mounts and says so", r)
st = m.status()
ok(st["mounts"] == {"workspaceWritable": True, "readRoots": root1},
   "status reports the mounts", st)
r = m.mounts(workspace_writable=False)
r = m.execute("open('/workspace/rw2.txt', 'w')")
ok(r["exception"] and "Read-only" in r["exception"]["message"] and
   not os.path.exists(os.path.join(WS, "rw2.txt")),
   "the workspace goes back to read-only", r)
r = m.mounts(workspace_writable=False)
ok(r["changed"] is False and r["killed"] is False,
   "unchanged mounts keep the sandbox", r)
m.close()

# --- the host killed ---------------------------------------------------------

k = session()
k.execute("import subprocess\nsubprocess.Popen(['sh', '-c', 'while :; do "
          "sleep 0.05; done', 'daemon-marker-2'], start_new_session=True)")
ks = k.status()["paths"]["scratch"]
ok(my_procs("daemon-marker-2") and os.path.isdir(ks),
   "a session with a daemon and a scratch dir runs")
k.proc.kill()
k.proc.wait()
ok(wait_for(lambda: not my_procs("daemon-marker-2") and not workers()),
   "SIGKILL of the host leaves no sandbox process",
   my_procs("daemon-marker-2"), workers())
sweep = subprocess.run([os.path.join(BIN, "pysbx-clean"), "--sweep", PARENT],
                       capture_output=True, text=True)
ok(sweep.returncode == 0 and not os.path.exists(ks),
   "after a sweep, no scratch directory is left", sweep.stdout, sweep.stderr,
   os.listdir(PARENT))

# --- a policy that does not keep the channel ------------------------------------

pol = os.path.join(T, "nokeep.policy")
with open(os.path.join(os.environ["PYSBX_POLICIES"], "python.policy")) as fi:
    text = fi.read().replace("keep-fd ${SESSION_FD:-}", "")
with open(pol, "w") as fo:
    fo.write(text)
# python.policy includes its network part from its own directory.
for inc in ("network-none.inc", "network-pypi.inc", "network-proxy.inc"):
    with open(os.path.join(os.environ["PYSBX_POLICIES"], inc)) as fi, \
            open(os.path.join(T, inc), "w") as fo:
        fo.write(fi.read())
b = subprocess.run([PYSBX, "session", "-p", pol, "--workspace", WS,
                    "--scratch-parent", PARENT], input=b"", capture_output=True)
ok(b.returncode == 100 and b"keep-fd ${SESSION_FD:-}" in b.stderr and
   not os.listdir(PARENT),
   "a policy without ${SESSION_FD} is refused before serving (100, "
   "naming keep-fd), leaving no scratch", b.returncode, b.stderr)
r = subprocess.run([PYSBX, "session", "--workspace", WS, "-D", "NOPE=1",
                    "--scratch-parent", PARENT], input=b"", capture_output=True)
ok(r.returncode == 100 and b"NOPE" in r.stderr,
   "a policy that does not parse with the session's -D is refused before "
   "serving (100)", r.returncode, r.stderr)
r = subprocess.run([PYSBX, "session", "--workspace", WS,
                    "--scratch-parent", PARENT],
                   input=b'{"code":"raise ValueError(\'m\' * 9000)"}\n',
                   capture_output=True)
x = json.loads(r.stdout)["exception"]
ok(x["type"] == "ValueError" and len(x["message"]) == 4096 and
   x["messageTruncated"] is True,
   "an exception message over 4 KiB is cut and reported", x)

r = subprocess.run([PYSBX, "session", "-p", "python", "--workspace", WS,
                    "--scratch-parent", PARENT],
                   input=b'{"action":"status"}\n', capture_output=True)
ok(json.loads(r.stdout)["paths"]["policy"].endswith("/python.policy"),
   "-p python names the shipped policy", r.stdout, r.stderr)

# --- a worker that never gets ready ---------------------------------------------

flood = os.path.join(T, "flood.py")
with open(flood, "w") as fo:
    fo.write("import os\nwhile True:\n    os.write(1, b'y' * 65536)\n")
y = session("--worker", flood)
r = y.execute("1")
ok(r["status"] == "startup_failed" and "within 10 s" in r["message"] and
   r["stdout"] == "" and not workers(),
   "a worker that floods stdout and never gets ready: startup_failed at "
   "the deadline, nothing of it returned or left running", r)
y.close()
f = session("--python", "/bin/false")
r = f.execute("1")
ok(r["status"] == "startup_failed" and "exit code 1" in r["message"],
   "a worker that exits at once: startup_failed with its exit status", r)
r = f.status()
ok(r["ready"] is False, "after a failed start, status: not ready", r)
f.close()

# --- a worker others can change -----------------------------------------------
# It would run with every session's workspace and /scratch: refused like
# a policy others can write.

gw = os.path.join(T, "gw.py")
with open(os.path.join(os.environ["PYSBX_POLICIES"], "session_worker.py")) as fi, \
        open(gw, "w") as fo:
    fo.write(fi.read())
os.chmod(gw, 0o664)
r = subprocess.run([PYSBX, "session", "--workspace", WS, "--scratch-parent",
                    PARENT, "--worker", gw],
                   input=b'{"action":"status"}\n', capture_output=True)
ok(r.returncode == 100 and r.stderr.decode().startswith(
    f"pysbx: fatal: refusing session worker {gw}: it is writable by its "
    "group") and not r.stdout,
   "a worker its group can write is refused (100), nothing served",
   r.returncode, r.stderr)
r = subprocess.run([PYSBX, "session", "--workspace", WS, "--scratch-parent",
                    PARENT, "--worker", gw, "--allow-untrusted"],
                   input=b'{"action":"execute","code":"6*7"}\n',
                   capture_output=True)
ok(r.returncode == 0 and json.loads(r.stdout)["value"] == "42",
   "... unless --allow-untrusted", r.returncode, r.stdout, r.stderr)

# --- the precompiled worker ------------------------------------------------
# The build compiles the shipped worker once (build/policies, installed
# beside the policies); the session hands that code to python3, which runs
# it only if it was compiled from the very source it is given (the hash in
# the .pyc's header) by this interpreter (the magic number). An installed
# layout in T/inst, with a .pyc whose code says "pyc" as the python
# version: with the real source's hash it is run, with another's it is not.

def make_pyc(path, header_src, code_src):
    import importlib.util
    import marshal
    h = importlib.util.source_hash(header_src)
    code = compile(code_src, "session_worker.py", "exec")
    with open(path, "wb") as fo:
        fo.write(importlib.util.MAGIC_NUMBER + b"\x01\0\0\0" + h +
                 marshal.dumps(code))


built = os.path.join(ROOT, "build", "policies", "session_worker.pyc")
ok(os.path.isfile(built), "the build made the worker's .pyc", built)
INST = os.path.join(T, "inst")
os.makedirs(os.path.join(INST, "bin"))
os.makedirs(os.path.join(INST, "share", "pysbx", "policies"))
for prog in os.listdir(BIN):
    subprocess.run(["cp", os.path.join(BIN, prog),
                    os.path.join(INST, "bin", prog)], check=True)
POL = os.path.join(INST, "share", "pysbx", "policies")
for f in ("python.policy", "network-none.inc", "session_worker.py"):
    subprocess.run(["cp", os.path.join(os.environ["PYSBX_POLICIES"], f),
                    POL], check=True)
with open(os.path.join(POL, "session_worker.py"), "rb") as fi:
    real = fi.read()
marked = real.replace(b"py=sys.version.split()[0].encode()", b'py=b"pyc"')
ok(marked != real, "the worker's ready frame names the python version")


def inst_python(pyc_header_src):
    make_pyc(os.path.join(POL, "session_worker.pyc"), pyc_header_src,
             marked)
    s = Session(os.path.join(INST, "bin", "pysbx"), workspace=WS,
                extra_args=["--scratch-parent", PARENT])
    r = s.execute("6 * 7")
    st = s.status()
    s.close()
    return r, st


r, st = inst_python(real)
ok(r["status"] == "ok" and r["value"] == "42" and st["python"] == "pyc",
   "a .pyc of the shipped worker's source is what the worker runs", r, st)
r, st = inst_python(marked)
ok(r["status"] == "ok" and r["value"] == "42" and
   st["python"] == sys.version.split()[0],
   "a .pyc of another source is not run: the source is compiled", r, st)
with open(os.path.join(POL, "session_worker.pyc"), "wb") as fo:
    fo.write(b"\0" * 40)
s = Session(os.path.join(INST, "bin", "pysbx"), workspace=WS,
            extra_args=["--scratch-parent", PARENT])
r = s.execute("6 * 7")
ok(r["status"] == "ok" and r["value"] == "42",
   "a .pyc that is not one (another interpreter's) is not run either", r)
s.close()

subprocess.run(["rm", "-rf", T])
print(f"1..{n}")
sys.exit(1 if failed else 0)
