#!/usr/bin/env python3
"""A minimal client of `pysbx session` (docs/SESSION.md): copy it.

    from session_client import Session

    with Session(workspace="/path/to/project") as s:
        print(s.execute("x = 21")["status"])        # ok
        print(s.execute("x * 2")["value"])          # 42
        print(s.status()["ready"])                  # True
        s.reset()                                   # state gone, /scratch kept

One process, one request at a time, one JSON line each way. The session
ends (sandbox killed, scratch directory removed) when stdin closes.
Standard library only.
"""

import json
import subprocess


class SessionError(Exception):
    """The session refused a request ("ok": false) or went away."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class Session:
    def __init__(self, pysbx="pysbx", policy=None, workspace=None,
                 fresh=False, extra_args=()):
        argv = [pysbx, "session"]
        if policy:
            argv += ["-p", policy]
        if workspace:
            argv += ["--workspace", workspace]
        if fresh:
            argv.append("--fresh")
        argv += list(extra_args)
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.next_id = 0

    def request(self, action, **fields):
        """Send one request, return its response (a dict)."""
        self.next_id += 1
        req = dict(fields, action=action, id=self.next_id)
        return self.raw(json.dumps(req).encode() + b"\n")

    def raw(self, line):
        """Send one line as given (bytes), return the response."""
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        out = self.proc.stdout.readline()
        if not out:
            raise SessionError("gone", "the session ended")
        resp = json.loads(out)
        if not resp.get("ok"):
            raise SessionError(resp["error"]["code"],
                               resp["error"]["message"])
        return resp

    def execute(self, code, timeout=None, fresh=None):
        fields = {"code": code}
        if timeout is not None:
            fields["timeoutSeconds"] = timeout
        if fresh is not None:
            fields["fresh"] = fresh
        return self.request("execute", **fields)

    def reset(self):
        return self.request("reset")

    def status(self):
        return self.request("status")

    def mounts(self, workspace_writable=None, read_roots=None):
        fields = {}
        if workspace_writable is not None:
            fields["workspaceWritable"] = workspace_writable
        if read_roots is not None:
            fields["readRoots"] = list(read_roots)
        return self.request("mounts", **fields)

    def close(self):
        """End the session: the sandbox is killed, /scratch removed."""
        if self.proc.stdin:
            self.proc.stdin.close()
        return self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


if __name__ == "__main__":
    import sys

    with Session(*sys.argv[1:2]) as s:
        for code in ("x = 21", "print('hello'); x * 2", "1/0"):
            r = s.execute(code)
            print(json.dumps({k: r[k] for k in ("status", "stdout", "value",
                                                 "exception")}))
