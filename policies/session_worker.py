# pysbx session worker: the persistent interpreter inside the sandbox.
#
# Run by `pysbx session` as  python3 -I -S -B -u -X utf8 -c BOOT  under the
# session's policy, which must keep fd 3 (keep-fd ${SESSION_FD}): BOOT reads
# this file's build-time compiled code and its source from fd 3 and runs
# the code if it matches the source, else the source (docs/SESSION.md). It
# needs no mount of its own. Standard library only.
#
# fd 3 is a stream socket to the host: frames both ways, each a netstring
# whose payload is netstrings, alternately key and value (docs/SESSION.md).
# fd 1 and 2 are the host's pipes: user code prints straight into them, so
# nothing user code writes can be mistaken for a frame unless it writes to
# fd 3 itself, which the host treats as hostile input anyway (limits,
# checks, and a per-request id the frame must echo).

import os
import sys

FD = 3
REPR_MAX = 8 * 1024
TB_MAX = 16 * 1024
MSG_MAX = 4 * 1024
CO_COROUTINE = 0x80


def netstring(b):
    return b"%d:%s," % (len(b), b)


def send(**fields):
    payload = b"".join(netstring(k.encode()) + netstring(v)
                       for k, v in fields.items())
    data = memoryview(netstring(payload))
    while data:
        data = data[os.write(FD, data):]


class Reader:
    def __init__(self):
        self.buf = b""

    def _fill(self):
        chunk = os.read(FD, 65536)
        if not chunk:
            raise EOFError
        self.buf += chunk

    def _netstring(self, buf, off):
        colon = buf.index(b":", off)
        n = int(buf[off:colon])
        end = colon + 1 + n
        if buf[end:end + 1] != b",":
            raise ValueError("bad netstring")
        return buf[colon + 1:end], end + 1

    def _take(self):
        """A complete frame from the buffer, or None."""
        colon = self.buf.find(b":")
        if colon > 0:
            n = int(self.buf[:colon])
            if len(self.buf) >= colon + n + 2:
                payload, off = self._netstring(self.buf, 0)
                self.buf = self.buf[off:]
                fields, i = {}, 0
                while i < len(payload):
                    k, i = self._netstring(payload, i)
                    v, i = self._netstring(payload, i)
                    fields[k.decode()] = v
                return fields
        return None

    def frame(self):
        while True:
            f = self._take()
            if f is not None:
                return f
            self._fill()

    def ready(self):
        """One read (the channel is readable), then every complete
        frame."""
        self._fill()
        frames = []
        while True:
            f = self._take()
            if f is None:
                return frames
            frames.append(f)


def cut(b, limit):
    """At most limit bytes of b, not splitting a UTF-8 character."""
    if len(b) <= limit:
        return b, b"0"
    return b[:limit].decode("utf-8", "ignore").encode(), b"1"


def text(s):
    return s.encode("utf-8", "backslashreplace")


class PipeEnd:
    """One end of a pipe that looks enough like a socket for asyncio's
    self-pipe (send, recv, fileno, setblocking, close)."""

    def __init__(self, fd):
        self.fd = fd

    def fileno(self):
        return self.fd

    def setblocking(self, flag):
        os.set_blocking(self.fd, flag)

    def send(self, data):
        return os.write(self.fd, data)

    def recv(self, n):
        return os.read(self.fd, n)

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def self_pipe_fallback(cls):
    """asyncio wakes its loop through a socketpair, which a policy may deny
    (python.policy's filter does): make its loops fall back to a pipe."""
    orig = cls._make_self_pipe

    def _make_self_pipe(self):
        try:
            orig(self)
        except OSError:
            r, w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self._ssock, self._csock = PipeEnd(r), PipeEnd(w)
            self._internal_fds += 1
            self._add_reader(r, self._read_from_self)

    cls._make_self_pipe = _make_self_pipe


class AsyncioHook:
    """On the first import of asyncio.selector_events (by the worker or by
    user code), patch it (self_pipe_fallback), so that asyncio.run() works
    too. Nothing is imported before that: a cold start pays nothing."""

    def find_spec(self, name, path=None, target=None):
        if name != "asyncio.selector_events":
            return None
        sys.meta_path.remove(self)
        from importlib.machinery import PathFinder
        spec = PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            self_pipe_fallback(module.BaseSelectorEventLoop)

        spec.loader.exec_module = exec_module
        return spec


def new_loop():
    """The worker's event loop for top-level await."""
    import asyncio
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    return loop


class ToolResult(str):
    """A bridged tool's result: its text, and json() to parse it."""

    tool = "a tool"

    def json(self):
        import json
        try:
            return json.loads(self)
        except ValueError as e:
            raise ValueError("the result of %s is not JSON (%s): %r"
                             % (self.tool, e, self[:200])) from None


class Bridge:
    """The client's tools as async functions (docs/SESSION.md, "Tool
    bridge"). A call is a frame to the host; its answer comes back as a
    frame on the same channel, read by the event loop while the execute
    awaits. The host checks every call; this side only keeps the worker
    polite (at most MAX in flight, calls only during an execute)."""

    MAX = 16

    def __init__(self, reader):
        self.reader = reader
        self.tools = []
        self.pending = {}
        self.waiting = []
        self.serial = 0
        self.id = None
        self.loop = None

    def install(self, ns, spec):
        import json
        for t in self.tools:
            if ns.get(t["py"]) is t.get("fn"):
                ns.pop(t["py"], None)
        self.tools = json.loads(spec)
        for t in self.tools:
            t["fn"] = self.callable(t)
            ns[t["py"]] = t["fn"]
        ns["available_tools"] = self.available

    def callable(self, t):
        name = t["name"]

        async def call(**kwargs):
            return await self.call(name, kwargs)
        call.__name__ = call.__qualname__ = t["py"]
        call.__doc__ = t.get("description")
        return call

    def available(self):
        """The declared tools' signatures, one a line."""
        out = []
        for t in self.tools:
            props = (t.get("inputSchema") or {}).get("properties") or {}
            req = set((t.get("inputSchema") or {}).get("required") or ())
            args = []
            for k, v in props.items():
                ty = v.get("type", "any") if isinstance(v, dict) else "any"
                args.append("%s: %s%s" % (k, ty, "" if k in req else " = ..."))
            line = "async def %s(%s) -> str" % (t["py"], ", ".join(args))
            if t.get("description"):
                line += "  # " + t["description"].splitlines()[0][:200]
            out.append(line)
        return "\n".join(out)

    async def call(self, name, kwargs):
        import asyncio
        import json
        if self.id is None:
            raise RuntimeError("bridged tools can be called only while an "
                               "execute runs")
        args = json.dumps(kwargs, ensure_ascii=False).encode()
        loop = asyncio.get_running_loop()
        while len(self.pending) >= self.MAX:
            w = loop.create_future()
            self.waiting.append(w)
            await w
        self.serial += 1
        cid = b"%d" % self.serial
        fut = loop.create_future()
        self.pending[cid] = (fut, name)
        if self.loop is not loop:
            if self.loop is not None:
                self.loop.remove_reader(FD)
            loop.add_reader(FD, self.readable)
            self.loop = loop
        try:
            send(t=b"call", id=self.id, cid=cid, name=name.encode(),
                 args=args)
            return await fut
        finally:
            self.pending.pop(cid, None)
            while self.waiting and len(self.pending) < self.MAX:
                w = self.waiting.pop(0)
                if not w.done():
                    w.set_result(None)

    def readable(self):
        try:
            frames = self.reader.ready()
        except EOFError:
            os._exit(0)
        for f in frames:
            cid = f.get("cid")
            entry = self.pending.get(cid)
            if f.get("t") != b"ret" or entry is None:
                continue
            fut, name = entry
            if fut.done():
                continue
            if "ok" in f:
                r = ToolResult(f["ok"].decode("utf-8", "replace"))
                r.tool = name
                fut.set_result(r)
            else:
                fut.set_exception(RuntimeError(
                    f.get("err", b"").decode("utf-8", "replace")))

    def end(self):
        """The execute is over: waiting calls fail, the reader goes."""
        self.id = None
        for fut, _ in list(self.pending.values()):
            if not fut.done() and not fut.get_loop().is_closed():
                fut.set_exception(RuntimeError(
                    "the execute ended before the tool answered"))
        self.pending.clear()
        if self.loop is not None:
            try:
                self.loop.remove_reader(FD)
            except Exception:
                pass
            self.loop = None


class Worker:
    def __init__(self):
        import builtins
        self.ns = {"__name__": "__main__", "__builtins__": builtins}
        self.loop = None
        self.std = (sys.stdin, sys.stdout, sys.stderr)

    def compile(self, code):
        # _ast, not ast: the same node classes and flags, without ast.py's
        # imports (enum, contextlib, functools), the largest part of a
        # cold first execute.
        import _ast as ast
        flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
        tree = compile(code, "<session>", "exec", ast.PyCF_ONLY_AST | flags)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            node = tree.body[-1]
            # A ';' right after the final expression hides its value, as
            # in IPython. Offsets are in UTF-8 bytes.
            lines = code.encode().splitlines(keepends=True)
            rest = lines[node.end_lineno - 1][node.end_col_offset:]
            rest += b"".join(lines[node.end_lineno:])
            if not rest.lstrip(b" \t\r\n\f\\").startswith(b";"):
                last = tree.body.pop()
        body = compile(tree, "<session>", "exec", flags)
        expr = None
        if last is not None:
            expr = compile(ast.Expression(last.value), "<session>", "eval",
                           flags)
        return body, expr

    def call(self, code):
        value = eval(code, self.ns)
        if code.co_flags & CO_COROUTINE:
            if self.loop is None:
                self.loop = new_loop()
            value = self.loop.run_until_complete(value)
        return value

    def error(self, e):
        import traceback
        tb = e.__traceback__
        # Drop the worker's own frames: the traceback starts in user code.
        while tb is not None and tb.tb_frame.f_code.co_filename != "<session>":
            tb = tb.tb_next
        lines = traceback.format_exception(type(e), e, tb)
        tb_text = text("".join(lines))
        if len(tb_text) > TB_MAX:
            # The end says most: where it failed and why.
            tb_text = b"...\n" + tb_text[-(TB_MAX - 4):].decode(
                "utf-8", "ignore").encode()
            tb_trunc = b"1"
        else:
            tb_trunc = b"0"
        try:
            msg = text(str(e))
        except BaseException:
            msg = b"<str() of the exception failed>"
        # A few bytes over the host's limit: the host cuts and says so.
        etype, _ = cut(text(type(e).__qualname__), MSG_MAX + 4)
        emsg, _ = cut(msg, MSG_MAX + 4)
        return {"status": b"error", "etype": etype, "emsg": emsg,
                "tb": tb_text, "tbtrunc": tb_trunc}

    def execute(self, code):
        res = {"status": b"ok"}
        try:
            body, expr = self.compile(code)
            self.call(body)
            if expr is not None:
                value = self.call(expr)
                if value is not None:
                    self.ns["_"] = value
                    r, trunc = cut(text(repr(value)), REPR_MAX)
                    res.update(repr=r, reprtrunc=trunc)
        except BaseException as e:  # SystemExit too: it ends the run only
            res = self.error(e)
        finally:
            for f in (sys.stdout, sys.stderr):
                try:
                    f.flush()
                except BaseException:
                    pass
            sys.stdin, sys.stdout, sys.stderr = self.std
            for f in self.std[1:]:
                try:
                    f.flush()
                except BaseException:
                    pass
        return res


def main():
    try:
        os.fstat(FD)
    except OSError:
        sys.stderr.write("pysbx session worker: fd 3 is not open: the "
                         "policy must keep it (keep-fd ${SESSION_FD})\n")
        os._exit(3)
    # Subprocesses of user code never get the channel.
    os.set_inheritable(FD, False)
    sys.meta_path.insert(0, AsyncioHook())
    reader = Reader()
    worker = Worker()
    bridge = Bridge(reader)
    send(t=b"ready", pid=b"%d" % os.getpid(),
         py=sys.version.split()[0].encode())
    while True:
        try:
            req = reader.frame()
        except EOFError:
            os._exit(0)
        t = req.get("t")
        if t == b"tools":
            bridge.install(worker.ns, req["json"])
            continue
        if t == b"ret":
            # The answer to a call of an execute that has ended.
            continue
        if t != b"exec":
            os._exit(4)
        bridge.id = req["id"]
        try:
            res = worker.execute(
                req["code"].decode("utf-8", "surrogateescape"))
        finally:
            bridge.end()
        send(t=b"result", id=req["id"], **res)


main()
