"""The session's tool bridge (docs/SESSION.md, "Tool bridge"), driven as
a client drives it: declared tools, tool_call events answered with
tool_result, and calls forged by user code on the worker's channel,
which the host must refuse before the client sees them. Prints TAP.
"""

import json
import os
import select
import subprocess
import sys
import tempfile
import time

BIN = os.environ["PYSBX_BIN"]
PYSBX = os.path.join(BIN, "pysbx")

n = 0
failed = 0
T = tempfile.mkdtemp(prefix="bridge-test.", dir=os.environ.get("HOME"))
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


class S:
    def __init__(self):
        self.p = subprocess.Popen(
            [PYSBX, "session", "--workspace", WS, "--scratch-parent",
             PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.buf = b""

    def send(self, o):
        self.p.stdin.write((json.dumps(o) + "\n").encode())
        self.p.stdin.flush()

    def recv(self, secs=120):
        end = time.monotonic() + secs
        while b"\n" not in self.buf:
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if r:
                c = os.read(self.p.stdout.fileno(), 1 << 20)
                if not c:
                    return None
                self.buf += c
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def run(self, code, answer=None, **kw):
        """Execute code; answer(event) -> dict for each tool_call (None:
        leave it). Returns (response, events)."""
        self.send({"id": "x", "code": code, **kw})
        events = []
        while True:
            m = self.recv()
            if m is None or "event" not in m:
                return m, events
            events.append(m)
            if answer:
                a = answer(m)
                if a is not None:
                    self.send({"action": "tool_result",
                               "callId": m["callId"], **a})

    def close(self):
        self.p.stdin.close()
        return self.p.wait(60)


# A frame of the worker channel, written by user code itself (a forgery:
# the worker is the sandbox's, the host trusts none of it).
FORGE = r'''
import os
def ns(b): return b'%d:%s,' % (len(b), b)
def call(name, cid, args=b'{}', id_=None):
    pl = (ns(b't') + ns(b'call') + ns(b'id') + ns(id_ or CUR) +
          ns(b'cid') + ns(b'%d' % cid) + ns(b'name') + ns(name) +
          ns(b'args') + ns(args))
    os.write(3, ns(pl))
import gc
CUR = [o for o in gc.get_objects() if type(o).__name__ == 'Bridge'][0].id
def ret():
    buf = b''
    while buf.count(b',,') < 1:
        buf += os.read(3, 65536)
    return buf
'''


def echo(m):
    return {"content": json.dumps(m["arguments"])}


s = S()
s.send({"id": 1, "action": "tools", "tools": [
    {"name": "search-issues", "description": "Search the issues",
     "inputSchema": {"type": "object",
                     "properties": {"query": {"type": "string"}},
                     "required": ["query"]}},
    {"name": "class"}, {"name": "1st.tool"}, {"name": "big"},
    {"name": "fail"}, {"name": "slow"}]})
r = s.recv()
ok(r and r["ok"] and [t["pythonName"] for t in r["tools"]] ==
   ["search_issues", "class_", "_1st_tool", "big", "fail", "slow"],
   "tools: declared, with normalised Python names", r)

for bad, why in [
        ([{"name": "a-b"}, {"name": "a_b"}], "same Python name"),
        ([{"name": "a b"}], "tool name"),
        ([{"name": "x", "inputSchema": [1]}], "inputSchema"),
        ([{"name": "x", "extra": 1}], "nothing else"),
        ([{"name": "t%d" % i} for i in range(65)], "more than 64"),
        ([{"name": "available_tools"}], "available_tools")]:
    s.send({"action": "tools", "tools": bad})
    r = s.recv()
    ok(r and not r["ok"] and r["error"]["code"] == "bad_field" and
       why in r["error"]["message"], f"tools refused: {why}", r)
s.send({"action": "tools", "tools": {}})
r = s.recv()
ok(r and not r["ok"], "tools not an array: refused", r)

r, ev = s.run("print(available_tools())\n"
              "r = await search_issues(query='q1')\n"
              "type(r).__name__, isinstance(r, str), r.json()['query']",
              echo)
ok(r and r["status"] == "ok" and
   r["value"] == "('ToolResult', True, 'q1')" and
   "async def search_issues(query: string) -> str" in r["stdout"],
   "a bridged call returns a str subclass with json(); available_tools() "
   "lists the signatures", r)
ok(len(ev) == 1 and ev[0]["event"] == "tool_call" and ev[0]["id"] == "x" and
   ev[0]["name"] == "search-issues" and
   ev[0]["arguments"] == {"query": "q1"} and
   ev[0]["callId"].startswith("call-"),
   "the client gets one tool_call event: id, callId, name, arguments", ev)
nc = r["nestedCalls"] if r else []
ok(len(nc) == 1 and nc[0]["status"] == "ok" and
   nc[0]["name"] == "search-issues" and nc[0]["inputBytes"] == 15 and
   nc[0]["callId"] == ev[0]["callId"] and "startedAt" in nc[0],
   "nestedCalls records it", nc)

r, ev = s.run("try:\n    await fail()\nexcept RuntimeError as e:\n"
              "    print('caught', e)", lambda m: {"error": "no such issue"})
ok(r and "caught no such issue" in r["stdout"] and
   r["nestedCalls"][0]["status"] == "error",
   "an error answer raises RuntimeError with its text", r)

r, ev = s.run("await big()", lambda m: {"content": "é" * 5000})
nc = r["nestedCalls"][0] if r else {}
ok(nc.get("resultBytes") == 10000 and
   len(nc.get("result", "").encode()) <= 4096 and nc.get("resultTruncated"),
   "previews are at most 4 KiB, with exact byte counts", nc)

# 20 calls at once: the client sees at most 16 before it answers one.
pending = []


def hold(m):
    pending.append(m)
    return None


s.send({"id": "g", "code": "import asyncio\n"
        "rs = await asyncio.gather(*[slow(i=i) for i in range(20)])\n"
        "[r.json()['i'] for r in rs] == list(range(20))"})
seen = 0
first_wave = None
while True:
    m = s.recv()
    if m is None or "event" not in m:
        break
    seen += 1
    pending.append(m)
    if len(pending) == 16 and first_wave is None:
        first_wave = seen
        time.sleep(0.5)
    if first_wave is not None:
        for p in pending:
            s.send({"action": "tool_result", "callId": p["callId"],
                    "content": json.dumps(p["arguments"])})
        pending.clear()
ok(m and m["value"] == "True" and seen == 20 and first_wave == 16,
   "asyncio.gather: 20 calls, at most 16 in flight, all answered in order",
   m, seen, first_wave)

# Forgeries: user code writes call frames to the channel itself.
r, ev = s.run(FORGE + "call(b'rm', 9001)\nret()")
ok(r and "no tool named 'rm'" in (r["value"] or ""),
   "a forged call for an undeclared tool: refused inside Python", r)
ok(not ev, "... and the client never sees it", ev)
r, ev = s.run(FORGE + "call(b'big', 9002, id_=b'0' * 16)\nret()")
ok(r and "outside the running execute" in (r["value"] or "") and not ev,
   "a forged call with another execute's id: refused, unseen", r, ev)
r, ev = s.run(FORGE + "call(b'big', 9003, args=b'not json')\nret()")
ok(r and "not a JSON object" in (r["value"] or "") and not ev,
   "a forged call with arguments that are not JSON: refused, unseen", r, ev)
r, ev = s.run(FORGE + "for i in range(17): call(b'big', 9100 + i)\nret()")
ok(r and "more than 16 bridged calls in flight" in (r["value"] or "") and
   len(ev) == 16,
   "a flood of 17 forged calls: 16 reach the client, the 17th is refused",
   r, len(ev))

# The deadline applies to a call the client never answers.
r, ev = s.run("await slow(x=1)", None, timeoutSeconds=1)
ok(r and r["status"] == "timeout" and len(ev) == 1 and
   r["nestedCalls"][0]["status"] == "timeout",
   "the execute's deadline ends a call in flight (status timeout)", r)
s.send({"action": "tool_result", "callId": ev[0]["callId"] if ev else "x",
        "content": "late"})
r, ev = s.run("1 + 1")
ok(r and r["value"] == "2" and "dropped" in r.get("notice", ""),
   "a late tool_result gets no response line, is dropped and said so", r)
s.close()

# A request sent while a call waits is answered after the execute.
s = S()
s.send({"action": "tools", "tools": [{"name": "slow"}]})
s.recv()
s.send({"id": "e", "code": "await slow()"})
m = s.recv()
s.send({"id": "st", "action": "status"})
s.send({"action": "tool_result", "callId": m["callId"], "content": "done"})
a = s.recv()
b = s.recv()
ok(m.get("event") == "tool_call" and a and a["id"] == "e" and
   a["status"] == "ok" and b and b["id"] == "st",
   "another request during an execute waits for its end", m, a, b)
rc = s.close()
ok(rc == 0, "the session ends cleanly", rc)

subprocess.run(["rm", "-rf", T])
print(f"1..{n}")
sys.exit(1 if failed else 0)
