#!/usr/bin/env bash
# The shipped policies, run through the whole chain (`pysbx run`), each
# proving what its header promises. Runs as the unprivileged test uid.
set -u
B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
PROBE=${PYSBX_PROBE:?}
PY=/usr/bin/python3
T=$(mktemp -d "$HOME/pol.XXXXXX") || exit 111
chmod 0755 "$HOME" "$T"
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
WS=$T/ws
mkdir -p "$WS/.git/hooks" "$WS/src" "$WS/secrets"
echo "hello" >"$WS/data.txt"
echo "key" >"$WS/src/server.pem"
echo "SECRET=1" >"$WS/.env"
echo "EXAMPLE=1" >"$WS/.env.example"
echo "#!/bin/sh" >"$WS/.git/hooks/pre-commit"
echo "s" >"$WS/secrets/token"
MARK=/tmp/pysbx-policies-marker.$$
echo host >"$MARK"
trap 'rm -f "$MARK"; chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT

. "${PYSBX_TESTDIR:?}/lib.sh"
# run POLICY [-D..]... -- PROG...: the real front door; stdout+stderr in $out, status in $rc.
run() { out=$("$B/pysbx" run -p "$@" 2>&1); rc=$?; }
pyrun() { # pyrun [-D..]... CODE
	local args=()
	while [[ $1 == -D ]]; do args+=("$1" "$2"); shift 2; done
	run "$P/python.policy" -D WORKSPACE="$WS" "${args[@]}" -- $PY -I -S -B -u -X utf8 -c "$1"
}

if [[ ! -x $PY ]]; then echo "1..0 # SKIP $PY is missing"; exit 0; fi
echo "1..32"

# --- python.policy -------------------------------------------------------
pyrun 'import json, re, hashlib, subprocess, getpass, os
print(42, getpass.getuser(), os.getcwd(), open("data.txt").read().strip())'
is "$rc:$out" "0:42 sandbox /workspace hello" "python: prints, imports stdlib, getuser() works, reads /workspace"

pyrun 'import os; print(sorted(os.listdir("/")))'
is "$out" "['bin', 'dev', 'etc', 'lib', 'lib64', 'proc', 'sbin', 'scratch', 'tmp', 'usr', 'workspace']" \
	"python: the root holds only what the policy names"

pyrun 'import os
try: open("/workspace/new", "w")
except OSError as e: print(e.errno)'
is "$out" "30" "python: /workspace is read-only by default (EROFS)"
[[ ! -e $WS/new ]] && ok "python: nothing was written to the host workspace" || not_ok "python: host workspace changed"

pyrun -D WORKSPACE_MOUNT=bind 'open("/workspace/new", "w").write("edit"); print("done")'
is "$rc:$out:$(cat "$WS/new" 2>/dev/null)" "0:done:edit" "python: -D WORKSPACE_MOUNT=bind makes /workspace writable (edit mode)"

mkdir -m 0700 "$T/scr"
pyrun -D SCRATCH_MODE=adopt -D SCRATCH_DIR="$T/scr" 'open("/scratch/out", "w").write("s"); print(open("/scratch/out").read())'
is "$rc:$out:$(cat "$T/scr/out" 2>/dev/null)" "0:s:s" "python: /scratch is writable and reaches the adopted host dir"

pyrun 'import os
print(os.path.exists("'"$HOME"'/pol-probe"), os.path.exists("'"$MARK"'"), "'"${MARK##*/}"'" in os.listdir("/tmp"))'
is "$out" "False False False" "python: the host home and the host /tmp are invisible"

pyrun 'import socket
for fam in (socket.AF_INET, socket.AF_UNIX, socket.AF_INET6):
    try: socket.socket(fam); print("open")
    except OSError as e: print(e.errno, end=" ")'
is "$out" "1 1 1 " "python: no socket of any family (EPERM)"

pyrun 'try:
    b = bytearray(1 << 30); print("allocated")
except MemoryError: print("MemoryError")'
is "$out" "MemoryError" "python: cannot allocate 1 GiB (RLIMIT_AS 512M)"

pyrun 'import os, time
n = 0
try:
    for i in range(2000):
        if os.fork() == 0:
            time.sleep(5); os._exit(0)
        n += 1
except BlockingIOError: pass
print("stopped" if n < 300 else "unbounded", n < 300)'
is "$rc:$out" "0:stopped True" "python: a fork bomb stops at the process limit and the sandbox survives"

pyrun 'import os; print(sorted(os.environ.items()))'
is "$out" "[('HOME', '/scratch'), ('LANG', 'C.UTF-8'), ('MALLOC_ARENA_MAX', '2'), ('PATH', '/usr/bin:/bin'), ('TMPDIR', '/tmp')]" \
	"python: the environment is exactly PATH, HOME, TMPDIR, LANG and the policy's MALLOC_ARENA_MAX"

pyrun 'import sys; print(repr(sys.stdin.read()))' <<<"from the caller"
is "$out" "''" "python: stdin is /dev/null"

pyrun 'import os
caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith("Cap")]
print(os.getsid(0) == os.getpid(), len(caps), set(caps))'
is "$out" "True 5 {'0000000000000000'}" "python: own session, all five capability sets empty"

mkdir -m 0700 "$T/scr2"
start=$(date +%s%N)
pyrun -D TIMEOUT=1s -D SCRATCH_MODE=adopt -D SCRATCH_DIR="$T/scr2" 'import subprocess, time
subprocess.Popen(["/bin/sh", "-c", "while :; do echo x >> /scratch/tick; sleep 0.05; done"], start_new_session=True)
time.sleep(60)'
is "$rc" 124 "python: -D TIMEOUT=1s stops the run with 124"
s1=$(stat -c %s "$T/scr2/tick" 2>/dev/null || echo 0)
sleep 0.5
s2=$(stat -c %s "$T/scr2/tick" 2>/dev/null || echo 0)
[[ $s1 -gt 0 && $s1 == "$s2" ]] && ok "python: the setsid'd child died with it (file stopped growing at $s1 bytes)" ||
	not_ok "python: the setsid'd child died with it" "sizes $s1 then $s2"

# Read roots must lie outside /tmp (the sandbox's own): use /var/tmp.
RR=$(mktemp -d /var/tmp/pysbx-rr.XXXXXX) && chmod 0755 "$RR" && mkdir "$RR/a" "$RR/b" &&
	echo granted >"$RR/a/f" && echo also >"$RR/b/g"
pyrun -D READ_ROOTS="$RR/a:$RR/b:$WS/src" 'import os
print(open("'"$RR/a/f"'").read().strip(), open("'"$RR/b/g"'").read().strip(), os.path.exists("'"$WS"'"))
try: open("'"$RR/a/new"'", "w")
except OSError as e: print(e.errno)'
is "$rc:$(echo $out)" "0:granted also False 30" "python: read roots are readable at their host paths, read-only; one inside the project is skipped"
pyrun -D READ_ROOTS="/usr/share" 'print(1)'
[[ $rc == 100 && $out == *"read root '/usr/share' collides with the sandbox path '/usr'"* ]] &&
	ok "python: a read root colliding with /usr is refused with the reason (100)" ||
	not_ok "python: a read root colliding with /usr is refused" "$rc $out"
rm -rf "$RR"

# --- workspace-write.policy and read-only.policy ------------------------
run "$P/workspace-write.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo w > ww.txt && cat ww.txt; touch /usr/x 2>&1 | grep -c "Read-only"; ls /run | wc -l'
is "$rc:$(echo $out)" "0:w 1 0" "workspace-write: workspace writable, /usr read-only, /run masked empty"
run "$P/workspace-write.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import socket
s = socket.socket(socket.AF_UNIX); print("unix ok")
try: socket.socket(socket.AF_INET)
except OSError as e: print(e.errno)'
is "$(echo $out)" "unix ok 1" "workspace-write: AF_UNIX sockets for local IPC, no AF_INET"
# The test uid's HOME lies under /tmp, which the policy replaces: use a home
# inside the workspace so that the mask, not the private /tmp, hides it.
mkdir -p "$WS/home/.ssh" && echo k >"$WS/home/.ssh/id_test"
run "$P/workspace-write.policy" -D WORKSPACE="$WS" -D HOME="$WS/home" -- /bin/sh -c "ls -A $WS/home/.ssh | wc -l; cat $WS/home/.ssh/id_test"
is "$rc:$(echo $out)" "1:0 cat: $WS/home/.ssh/id_test: No such file or directory" "workspace-write: ~/.ssh is masked"
run "$P/read-only.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo r > ro.txt'
[[ $rc != 0 && $out == *"Read-only file system"* && ! -e $WS/ro.txt ]] && ok "read-only: the workspace cannot be written" ||
	not_ok "read-only: the workspace cannot be written" "$rc $out"

# --- agent-shell.policy ---------------------------------------------------
run "$P/agent-shell.policy" -D WORKSPACE="$WS" -- /bin/sh -c '
for f in data.txt .env.example .env .git/hooks/pre-commit src/server.pem secrets/token; do
	(echo x >> $f) 2>/dev/null && echo "w:$f" || echo "ro:$f"; done
touch .git/hooks/new 2>/dev/null && echo w:hooks || echo ro:hooks'
is "$(echo $out)" "w:data.txt w:.env.example ro:.env ro:.git/hooks/pre-commit ro:src/server.pem ro:secrets/token ro:hooks" \
	"agent-shell: ordinary files writable; .env, git hooks, *.pem, secrets/ read-only"
[[ $(cat "$WS/.env") == "SECRET=1" ]] && ok "agent-shell: the protected host files are unchanged" || not_ok "agent-shell: .env changed"
run "$P/agent-shell.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import socket
for fam in (socket.AF_UNIX, socket.AF_INET):
    try: socket.socket(fam); print("open")
    except OSError as e: print(e.errno)'
is "$(echo $out)" "1 1" "agent-shell: unix and inet sockets are refused"

# --- ci.policy ------------------------------------------------------------
run "$P/ci.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo $(hostname) $(id -u) $TZ $LANG $(umask) $SOURCE_DATE_EPOCH; echo c > ci.txt && cat ci.txt'
is "$rc:$(echo $out)" "0:ci 1000 UTC C.UTF-8 0022 c" "ci: fixed hostname, uid, TZ, LANG, umask; workspace writable"
out=$(SOURCE_DATE_EPOCH=1700000000 "$B/pysbx" run -p "$P/ci.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo $SOURCE_DATE_EPOCH' 2>&1)
is "$out" "1700000000" "ci: SOURCE_DATE_EPOCH is passed through"
run "$P/ci.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import socket; print([n for i, n in socket.if_nameindex()])'
is "$out" "['lo']" "ci: no network interface but lo"

# --- minimal.policy -------------------------------------------------------
cp "$PROBE/mount_probe" "$T/prog" 2>/dev/null || cp /bin/true "$T/prog"
run "$P/minimal.policy" -D PROG="$PROBE/exec_probe" -- /prog env
is "$rc:$out" "0:PATH=/" "minimal: one static program runs with PATH=/ only"
run "$P/minimal.policy" -D PROG="$PROBE/mount_probe" -- /prog ls /
case $out in
*dev*proc*prog*tmp*) [[ $out != *usr* ]] && ok "minimal: the root holds /prog, /proc, /dev, /tmp and no /usr" || not_ok "minimal root" "$out" ;;
*) not_ok "minimal: the root holds /prog, /proc, /dev, /tmp and no /usr" "$out" ;;
esac

# --- the front door -------------------------------------------------------
# A target that happens to be named like a step gets neither the plan nor
# the report fd (it could forge status records): only a later step does.
cp "$PROBE/exec_probe" "$WS/pysbx-exec"
run "$P/python.policy" -D WORKSPACE="$WS" -- /workspace/pysbx-exec fds
is "$rc:$(echo "$out" | awk '{printf "%s %s ", $1, $2}')" "0:fd 0 fd 1 fd 2 " "run: a target named pysbx-exec gets no --plan-fd/--report-fd, only fds 0-2"
rm -f "$WS/pysbx-exec"
# A target argument named like a step never makes its host directory
# visible (pysbx-mount binds only the directories of the later steps).
mkdir "$T/decoy" && cp "$PROBE/exec_probe" "$T/decoy/pysbx-exec"
out=$(PATH="$T/decoy:/usr/bin:/bin" "$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" -- \
	$PY -I -S -c 'import os, sys; print(os.path.exists(sys.argv[1]))' "$T/decoy" pysbx-exec 2>&1)
is "$out" "False" "run: a target argument named pysbx-exec binds no host directory into the sandbox"

run "$P/python.policy" -D WORKSPACE="$WS" -- --bind
is "$rc" 127 "run: a target named --bind is the program's (127 not found), never our option"
