"""pysbx mcp spoken to as a client speaks MCP (run by mcp.sh, prints TAP).

A raw newline-delimited JSON-RPC client: every malformed input the
protocol knows, and what the python tool does, checked on the host side
(responses, processes). The official SDK and the Inspector are in
mcp_sdk.sh. No check is about how long something took.
"""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time

BIN = os.environ["PYSBX_BIN"]
PYSBX = os.path.join(BIN, "pysbx")

n = 0
failed = 0
T = tempfile.mkdtemp(prefix="mcp-test.", dir=os.environ.get("HOME"))
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
            for line in str(d)[:3000].splitlines() or [""]:
                print(f"#   {line}")
    sys.stdout.flush()
    return cond


def wait_for(pred, secs=20.0):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def my_procs(marker):
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


class Server:
    def __init__(self, *args):
        self.p = subprocess.Popen(
            [PYSBX, "mcp", "--workspace", WS, "--scratch-parent", PARENT,
             *args],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=WS)
        self.buf = b""
        self.next_id = 100
        self.notes = []

    def send(self, obj):
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def recv(self, secs=150):
        end = time.monotonic() + secs
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                continue
            chunk = os.read(self.p.stdout.fileno(), 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def wait_id(self, id_, secs=150):
        while True:
            m = self.recv(secs)
            if m is None or m.get("id") == id_:
                return m
            self.notes.append(m)

    def request(self, method, params=None, id_=None):
        if id_ is None:
            self.next_id += 1
            id_ = self.next_id
        msg = {"jsonrpc": "2.0", "id": id_, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.wait_id(id_)

    def init(self, version="2025-11-25"):
        r = self.request("initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "mcp_test", "version": "0"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return r

    def py(self, **args):
        r = self.request("tools/call", {"name": "python",
                                        "arguments": args})
        return r.get("result") if r else None

    def alive(self):
        r = self.request("ping")
        return r is not None and r.get("result") == {}

    def close(self):
        try:
            self.p.stdin.close()
        except OSError:
            pass
        try:
            return self.p.wait(60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return self.p.wait()


def text(res):
    return "".join(c.get("text", "") for c in res.get("content", [])
                   if c.get("type") == "text")


def err_code(r):
    return r and r.get("error", {}).get("code")


# --- before initialize ---------------------------------------------------

s = Server()
r = s.request("tools/list")
ok(err_code(r) == -32600 and "not initialized" in r["error"]["message"],
   "a request before initialize is refused (-32600)", r)
r = s.request("tools/call", {"name": "python", "arguments": {"code": "1"}})
ok(err_code(r) == -32600, "a call before initialize is refused", r)
ok(s.alive(), "ping works before initialize")
r = s.request("initialize", {"capabilities": {}})
ok(err_code(r) == -32602, "initialize without protocolVersion: -32602", r)
r = s.init("2025-06-18")
ok(r and r["result"]["protocolVersion"] == "2025-06-18" and
   r["result"]["serverInfo"]["name"] == "pysbx" and
   "tools" in r["result"]["capabilities"],
   "initialize with 2025-06-18 negotiates it", r)
r = s.request("initialize", {"protocolVersion": "2025-06-18",
                             "capabilities": {}, "clientInfo": {}})
ok(err_code(r) == -32600, "a second initialize is refused", r)
ok(s.close() == 0, "stdin closed while idle: exit 0")

s = Server()
r = s.init("1999-01-01")
ok(r and r["result"]["protocolVersion"] == "2025-11-25",
   "an unknown revision is answered with the newest, 2025-11-25", r)

# --- malformed input -------------------------------------------------------

s.send(b"this is not json")
r = s.recv()
ok(r and r.get("id") is None and err_code(r) == -32700,
   "not JSON: -32700 with id null", r)
s.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"')
r = s.recv()
ok(err_code(r) == -32700, "a truncated object: -32700", r)
s.send(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff"}')
r = s.recv()
ok(err_code(r) == -32700, "invalid UTF-8: -32700", r)
s.send(b'"just a string"')
r = s.recv()
ok(err_code(r) == -32600, "not an object: -32600", r)
s.send(b'{"id":7,"method":"ping"}')
r = s.recv()
ok(err_code(r) == -32600 and r.get("id") == 7,
   "no jsonrpc member: -32600, with the request's id", r)
s.send(b'{"jsonrpc":"2.0","id":null,"method":"ping"}')
r = s.recv()
ok(err_code(r) == -32600, "id null: -32600", r)
s.send(b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}')
r = s.recv()
ok(err_code(r) == -32600, "id an object: -32600", r)
s.send(b'{"jsonrpc":"2.0","id":8,"method":5}')
r = s.recv()
ok(err_code(r) == -32600 and r.get("id") == 8, "method not a string: -32600",
   r)
s.send(b'[{"jsonrpc":"2.0","id":9,"method":"ping"}]')
r = s.recv()
ok(err_code(r) == -32600 and "batch" in r["error"]["message"],
   "a batch: -32600 (2025-11-25 has none)", r)
r = s.request("resources/list")
ok(err_code(r) == -32601, "unknown method: -32601", r)
r = s.request("tools/call", {"arguments": {}})
ok(err_code(r) == -32602, "tools/call without a name: -32602", r)
r = s.request("tools/call", {"name": "python", "arguments": [1]})
ok(err_code(r) == -32602, "arguments not an object: -32602", r)
r = s.request("tools/call", [1, 2])
ok(err_code(r) == -32602, "params an array: -32602", r)
r = s.request("tools/call", {"name": "shell", "arguments": {}})
ok(err_code(r) == -32602 and "unknown tool" in r["error"]["message"],
   "unknown tool: -32602", r)
s.send(b'{"jsonrpc":"2.0","id":10,"id":11,"method":"ping"}')
r = s.recv()
ok(err_code(r) == -32600, "a member twice: -32600", r)
s.send(b'{"jsonrpc":"2.0","method":"no/such/notification"}')
s.send(b'{"jsonrpc":"2.0","method":"tools/list","params":5}')
s.send(b'{"jsonrpc":"2.0","id":"r1","result":{}}')
ok(s.alive(), "unknown notifications, bad ones and stray responses get no "
   "answer (the next answer is the ping's)")
s.send(b"[" * 100000 + b"]" * 100000)
r = s.recv()
ok(err_code(r) == -32600, "nesting past the limit: -32600", r)
big = b'{"jsonrpc":"2.0","id":12,"method":"ping","x":"' + \
    b"a" * (1024 * 1024) + b'"}'
s.send(big)
r = s.recv()
ok(err_code(r) == -32600 and "frame limit" in r["error"]["message"] and
   r.get("id") is None, "a message over 1 MiB: -32600, skipped", r)
ok(s.alive(), "the server keeps working after every malformed message")

# --- the python tool -----------------------------------------------------------

r = s.request("tools/list")
tools = r["result"]["tools"]
py = tools[0] if tools else {}
ok(len(tools) == 1 and py["name"] == "python" and
   py["inputSchema"]["properties"]["action"]["enum"] ==
   ["execute", "reset", "status"] and
   py["inputSchema"]["properties"]["timeoutSeconds"]["maximum"] == 120 and
   py["outputSchema"]["type"] == "object" and
   py["annotations"]["openWorldHint"] is False,
   "tools/list: python with inputSchema, outputSchema, annotations", tools)
res = s.py(code="x = 21\nprint('hi')")
ok(res and not res["isError"] and text(res).startswith("hi") and
   res["structuredContent"]["status"] == "ok" and
   res["structuredContent"]["stdout"] == "hi\n" and
   res["structuredContent"]["session"] == "default",
   "execute: stdout in the text, the session's result in "
   "structuredContent", res)
res = s.py(code="x += 1")
res = s.py(code="x * 2")
ok(res and res["structuredContent"]["value"] == "44" and "44" in text(res),
   "state survives three calls", res)
res = s.py(code="x", session="other")
ok(res and res["isError"] and
   res["structuredContent"]["exception"]["type"] == "NameError" and
   "NameError" in text(res),
   "a named session is a separate interpreter (NameError there)", res)
res = s.py(code="import os; os.getpid(), open('/scratch/f','w').write('a')",
           session="other")
res2 = s.py(code="import os; os.path.exists('/scratch/f')")
ok(res2 and res2["structuredContent"]["value"] == "False",
   "named sessions have separate scratch directories", res, res2)
res = s.py(code="1/0")
ok(res and res["isError"] and "ZeroDivisionError" in text(res) and
   res["structuredContent"]["status"] == "error",
   "an exception: isError, a short traceback", res)
res = s.py(code="x")
ok(res and res["structuredContent"]["value"] == "22",
   "an exception keeps the state", res)
res = s.py(code="1", timeoutSeconds=500)
ok(res and res["isError"] and "timeoutSeconds" in text(res),
   "timeoutSeconds 500: a tool error from the session's own check", res)
res = s.py(code="1", bogus=1)
ok(res and res["isError"] and "unknown argument" in text(res),
   "an unknown argument: a tool error", res)
res = s.py(action="mounts")
ok(res and res["isError"], "the mounts action is the user's, not the "
   "model's: refused", res)
res = s.py(action="status", code="1")
ok(res and res["isError"] and "code" in text(res),
   "status with code: the session's bad_field as a tool error", res)
res = s.py(session="a b", code="1")
ok(res and res["isError"] and "session" in text(res),
   "a bad session name: a tool error", res)
res = s.py(code="print('x' * 300000)\nfor i in range(100000): print(i)")
t = text(res) if res else ""
ok(res and len(t.encode()) <= 50 * 1024 and t.count("\n") < 2000 and
   "omitted" in t and t.rstrip().endswith("99999"),
   "a large output: the text stays within 50 KiB and 2000 lines, head "
   "and tail", len(t.encode()), t.count("\n"), t[-300:])
res = s.py(action="status")
ok(res and not res["isError"] and
   res["structuredContent"]["ready"] is True and "ready" in text(res),
   "status", res)
res = s.py(code="import time\nprint('tick', flush=True)\ntime.sleep(60)",
           timeoutSeconds=1)
ok(res and res["isError"] and
   res["structuredContent"]["status"] == "timeout" and
   "tick" in text(res) and "state" in text(res),
   "a timeout: isError, the partial output, a line about the state", res)
res = s.py(action="reset")
ok(res and not res["isError"] and "reset" in text(res), "reset", res)
res = s.py(code="x")
ok(res and res["isError"] and "NameError" in text(res),
   "after reset the state is gone", res)

# --- cancel, queueing ---------------------------------------------------------

s.next_id += 1
cid = s.next_id
s.send({"jsonrpc": "2.0", "id": cid, "method": "tools/call",
        "params": {"name": "python", "arguments": {
            "code": "import time\nwhile True: time.sleep(0.1)",
            "session": "c"}}})
s.next_id += 1
qid = s.next_id
s.send({"jsonrpc": "2.0", "id": qid, "method": "tools/call",
        "params": {"name": "python", "arguments": {
            "code": "print('queued')", "session": "c"}}})
ok(wait_for(lambda: len(my_procs("sleep(0.1)")) > 0 or
            len(my_procs("pysbx session worker")) > 0, 60),
   "a long execute runs")
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": qid, "reason": "test"}})
s.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": cid, "reason": "test"}})
ok(s.alive(), "cancelled: the server answers a ping")
res = s.py(code="print('after')", session="c")
seen = [m.get("id") for m in s.notes]
ok(res and "after" in text(res) and cid not in seen and qid not in seen,
   "the cancelled calls get no answer; the session serves the next call",
   res, seen)

# --- the session cap ---------------------------------------------------------
s.close()
s = Server("--max-sessions", "2")
s.init()
a = s.py(code="1", session="one")
b = s.py(code="1", session="two")
ok(a and b and b["isError"] and "at most 2 sessions" in text(b) and
   not a["isError"],
   "--max-sessions 2: the default and one more; a third is refused", a, b)

# --- stdin closing mid-call ----------------------------------------------------
s.next_id += 1
s.send({"jsonrpc": "2.0", "id": s.next_id, "method": "tools/call",
        "params": {"name": "python", "arguments": {
            "code": "import time\nprint('start', flush=True)\n"
                    "time.sleep(100)"}}})
wait_for(lambda: len(my_procs("pysbx session worker")) > 0, 60)
rc = s.close()
ok(rc == 0, "stdin closed during an execute: exit 0", rc)
ok(wait_for(lambda: not my_procs("pysbx session worker"), 30),
   "... and no worker is left", my_procs("pysbx session worker"))
ok(wait_for(lambda: not os.listdir(PARENT), 30),
   "... and the scratch directories are removed", os.listdir(PARENT))

# --- SIGTERM, bad options ---------------------------------------------------------
s = Server()
s.init()
s.py(code="1")
s.p.send_signal(signal.SIGTERM)
rc = s.p.wait(60)
ok(rc == 128 + signal.SIGTERM, "SIGTERM: exit 143", rc)
ok(wait_for(lambda: not my_procs("pysbx session worker"), 30) and
   wait_for(lambda: not os.listdir(PARENT), 30),
   "... its sessions are gone", os.listdir(PARENT))
p = subprocess.run([PYSBX, "mcp", "-p", os.path.join(T, "nope.policy")],
                   stdin=subprocess.DEVNULL, capture_output=True)
ok(p.returncode == 100 and b"nope.policy" in p.stderr,
   "a bad session option: the session's diagnostic and exit 100",
   p.returncode, p.stderr)
p = subprocess.run([PYSBX, "mcp", "--max-sessions", "0"],
                   stdin=subprocess.DEVNULL, capture_output=True)
ok(p.returncode == 100, "--max-sessions 0: exit 100", p.stderr)

subprocess.run(["rm", "-rf", T])
print(f"1..{n}")
sys.exit(1 if failed else 0)
