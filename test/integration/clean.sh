#!/usr/bin/env bash
# pysbx-clean, the lifecycle guard: exit status, timeout (TERM, grace,
# KILL), signal forwarding, tree kill, scratch directories, sweep, JSON
# status records. Standalone over plain programs; the chain tests at the
# end need build/bin/pysbx-mount (and its siblings) and SKIP without them.
#
# No assertion is about how long something took: waits poll for an
# outcome with a generous bound, and "stops growing" compares a file's
# size across a pause.
set -u

BIN=${PYSBX_BIN:?}
CLEAN=$BIN/pysbx-clean
T=$(mktemp -d "${HOME:-/tmp}/clean-test.XXXXXX") || exit 111
chmod 0700 "$T"
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT

. "${PYSBX_TESTDIR:?}/lib.sh"
grows() {
	local a
	a=$(size "$1")
	wait_for test "$(size "$1")" -gt "$a"
}
gone() { ! kill -0 "$1" 2>/dev/null; }
# json FILE EXPR: evaluate a python expression over the list of records
# in FILE (r = the list; ex = the exit record); prints the value.
json() {
	python3 -c '
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
ex = [x for x in r if x.get("event") == "exit"]
ex = ex[-1] if ex else {}
print(eval(sys.argv[2]))' "$1" "$2" 2>&1
}
# record_is FILE EXPR WANT: json FILE EXPR prints WANT (lib.sh's `is` compares
# two strings; this one evaluates a status record).
record_is() {
	local got
	got=$(json "$1" "$2")
	[[ $got == "$3" ]] || { echo "# $2: got '$got', want '$3'" >&2; return 1; }
}

# A daemon that leaves the target's session and process group and
# appends to $1 forever.
# code_and_stopped RC WANT FILE: RC is WANT and FILE stopped growing.
code_and_stopped() { [[ $1 == "$2" ]] && stopped_growing "$3"; }
DAEMON='setsid bash -c "while :; do echo x >>\"\$0\"; sleep 0.05; done" "$1" </dev/null >/dev/null 2>&1 &'

echo "1..72"

# --- exit status -------------------------------------------------------

"$CLEAN" bash -c 'exit 7'
check "the target's exit code is the guard's (7)" test $? = 7

"$CLEAN" bash -c 'kill -USR1 $$'
check "a target killed by SIGUSR1 gives 128+10" test $? = 138

"$CLEAN" "$T/no-such-program" 2>"$T/err"
rc=$?
check "a missing program gives 127" test $rc = 127
check "... with the message naming it" \
	grep -qx "pysbx-clean: fatal: unable to find $T/no-such-program: No such file or directory" "$T/err"

"$CLEAN" -t 5 true 2>"$T/err"
rc=$?
check "-t without a unit is a usage error (100)" test $rc = 100
check "... that says which units" grep -q "pysbx-clean: fatal: -t '5' is not a duration (use e.g. 500ms, 30s, 5m, 1h or none)" "$T/err"

"$CLEAN" 2>/dev/null
check "no program is a usage error (100)" test $? = 100

# --- timeout -------------------------------------------------------------

"$CLEAN" --status-fd 3 -t 300ms -k 200ms \
	bash -c 'trap "" TERM; while :; do sleep 0.05; done' 3>"$T/st"
check "a target ignoring SIGTERM is killed after the grace period (124)" test $? = 124
check "... status record: timeout true, SIGKILL, stage target" \
	record_is "$T/st" '(ex["timeout"], ex["signal"], ex["stage"], ex["code"])' \
	"(True, 9, 'target', 124)"

"$CLEAN" -t 300ms -k 200ms bash -c 'kill -STOP $$; exit 3'
check "a target that stopped itself is still ended by the timeout (124)" test $? = 124

"$CLEAN" --status-fd 3 -t 300ms bash -c 'trap "exit 0" TERM; while :; do sleep 0.05; done' 3>"$T/st" 2>/dev/null
check "a timeout is 124 even when the target exits 0 on SIGTERM" test $? = 124
check "... and the status record says SIGTERM was not fatal (signal 0)" \
	record_is "$T/st" '(ex["timeout"], ex["signal"])' "(True, 0)"

"$CLEAN" -t none bash -c 'exit 0'
check "-t none runs without a deadline" test $? = 0

# --- the tree kill -------------------------------------------------------

f=$T/daemon-exit
"$CLEAN" bash -c "$DAEMON"' sleep 0.3; exit 0' x "$f"
check "a setsid'd daemon stops writing when the target exits" stopped_growing "$f"

f=$T/daemon-timeout
"$CLEAN" -t 500ms bash -c "$DAEMON"' while :; do sleep 0.05; done' x "$f"
rc=$?
check "a setsid'd daemon stops writing when the timeout fires" stopped_growing "$f"
check "... and the timeout is reported (124)" test $rc = 124

f=$T/double-fork
"$CLEAN" bash -c '(bash -c "while :; do echo x >>\"\$0\"; sleep 0.05; done" "$1" </dev/null >/dev/null 2>&1 &); sleep 0.3' x "$f"
check "a double-forked orphan (reparented to the guard) is killed" stopped_growing "$f"

# --- signals -------------------------------------------------------------

# Job control: the guard gets its own process group, as from an
# interactive shell, and SIGINT is not ignored.
set -m
c=$T/intcount go=$T/go ready=$T/ready
# The target notes each SIGINT as it arrives; "go" is given only once the
# forwarded one has been seen (the guard forwards asynchronously: under
# load "go" could otherwise win the race), and a second one would still
# be counted before the target writes its total.
"$CLEAN" bash -c 'n=0; trap "n=\$((n + 1)); echo \$n >\"\$3.seen\"" INT; : >"$2";
	while [ ! -e "$1" ]; do sleep 0.05; done; sleep 0.2; echo $n >"$3"' x "$go" "$ready" "$c" &
g=$!
set +m
wait_for test -e "$ready"
kill -INT -- "-$g"
wait_for test -e "$c.seen"
touch "$go"
wait "$g"
check "SIGINT to the guard's process group reaches the target exactly once" \
	test "$(cat "$c" 2>/dev/null)" = 1

"$CLEAN" --status-fd 3 bash -c 'trap "echo term >\"\$0\"; exit 5" TERM; : >"$1"; while :; do sleep 0.05; done' \
	"$T/term" "$T/ready2" 3>"$T/st" 2>/dev/null &
g=$!
wait_for test -e "$T/ready2"
kill -TERM "$g"
wait "$g"
rc=$?
check "SIGTERM to the guard stops the target (its TERM handler exits 5)" \
	test "$rc:$(cat "$T/term" 2>/dev/null)" = "5:term"
check "... and the status record has no timeout" record_is "$T/st" 'ex["timeout"]' False

# The TERM goes to the target's whole process group, as from timeout(1):
# a grandchild of the guard (here the target's child, which the target
# waits for) gets it too, not only the final KILL. The target leaves
# its own TERM for after its child is gone, so the output order is fixed.
TERM_TREE='import os, signal, sys, time
got = []
signal.signal(signal.SIGTERM, lambda s, f: got.append(1))
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGTERM, lambda s, f: (os.write(1, b"child TERM\n"), os._exit(0)))
    os.write(w, b"x")
    while True: time.sleep(1)
os.read(r, 1)
open(sys.argv[1], "w").close()
while not got: time.sleep(0.05)
os.waitpid(pid, 0)
print("target TERM", flush=True)'
"$CLEAN" -k 2s python3 -c "$TERM_TREE" "$T/ready4" >"$T/tree" 2>/dev/null &
g=$!
wait_for test -e "$T/ready4"
kill -TERM "$g"
wait "$g"
rc=$?
check "SIGTERM to the guard reaches the target's child too (the process group), before any KILL" \
	test "$rc:$(tr '\n' ' ' <"$T/tree")" = "0:child TERM target TERM "

"$CLEAN" bash -c ': >"$1"; trap "echo hup >>\"\$0\"" HUP; trap "echo usr2 >>\"\$0\"; exit 0" USR2;
	while :; do sleep 0.05; done' "$T/hup" "$T/ready3" &
g=$!
wait_for test -e "$T/ready3"
kill -HUP "$g"
wait_for grep -qs hup "$T/hup"
kill -USR2 "$g"
wait "$g"
check "SIGHUP and SIGUSR2 are forwarded to the target" \
	test "$(tr '\n' ' ' <"$T/hup" 2>/dev/null)" = "hup usr2 "

f=$T/direct
"$CLEAN" bash -c 'while :; do echo x >>"$0"; sleep 0.05; done' "$f" &
g=$!
grows "$f"
{ kill -KILL "$g"; wait "$g"; } 2>/dev/null
check "SIGKILL of the guard kills its direct child (parent-death signal)" stopped_growing "$f"

f=$T/dwp
{ bash -c '"$0" --die-with-parent bash -c "while :; do echo x >>\"\$0\"; sleep 0.05; done" "$1" & sleep 0.3; kill -KILL $$' \
	"$CLEAN" "$f"; } 2>/dev/null
check "--die-with-parent: the caller's death stops the sandbox" stopped_growing "$f"

"$CLEAN" bash -c 'while :; do sleep 0.05; done' &
g=$!
sleep 0.2
cpu() { awk '{ print $14 + $15 }' "/proc/$g/stat"; }
a=$(cpu)
sleep 0.5
b=$(cpu)
kill -TERM "$g"
wait "$g"
check "the guard uses no CPU while the target runs ($a -> $b ticks)" test "$a" = "$b"

# --- fds -----------------------------------------------------------------

# ls's own fds (its directory) are the same either way. fd 3 is the
# guard's status fd below: closed here too, so that one the caller
# happens to hold (flock(1) passes its lock fd down) is no difference.
ls /proc/self/fd 3>&- 5>"$T/five" >"$T/fds0"
"$CLEAN" --status-fd 3 ls /proc/self/fd 3>/dev/null 5>"$T/five" >"$T/fds"
check "the target gets the caller's fds (5 included), none of the guard's" \
	test "$(cat "$T/fds")" = "$(cat "$T/fds0")" -a -n "$(grep -x 5 "$T/fds")"

# --- scratch -------------------------------------------------------------

P=$T/parent
mkdir -m 0700 "$P"
"$CLEAN" --scratch-parent "$P" bash -c 'stat -c "%a %u %n" "$SCRATCH"; echo data >"$SCRATCH/f"' >"$T/out"
read -r mode owner path <"$T/out"
check "scratch: a fresh 0700 directory of the caller, pysbx-<16 hex>" \
	test "$mode:$owner" = "700:$(id -u)" -a \
	-n "$(basename "$path" | grep -x 'pysbx-[0-9a-f]\{16\}')"
check "... removed with its contents and lock when the run ends" \
	test -z "$(ls -A "$P")"

H=$T/host
mkdir "$H" && echo keep >"$H/file"
"$CLEAN" --scratch-parent "$P" bash -c 'ln -s "$1" "$SCRATCH/link"; mkdir -p "$SCRATCH/a/b";
	ln -s "$1/file" "$SCRATCH/a/b/flink"; ln -s .. "$SCRATCH/a/up"; chmod 0500 "$SCRATCH/a/b"' x "$H"
check "symlinks planted in scratch leave the host directory intact" \
	test "$(cat "$H/file" 2>/dev/null)" = keep -a -z "$(ls -A "$P")"

mkdir -m 0777 "$T/open"
"$CLEAN" --status-fd 3 --scratch-parent "$T/open" true 2>"$T/err" 3>"$T/st"
rc=$?
check "a scratch parent writable by others (not sticky) is refused (100)" \
	test $rc = 100 -a -z "$(ls -A "$T/open")"
check "... status record: stage clean, code 100, the reason" \
	record_is "$T/st" '(ex["stage"], ex["code"], ex["error"].endswith("is writable by group or others (and not sticky)"))' \
	"('clean', 100, True)"

# A guard killed by SIGKILL leaves its scratch; --sweep removes that one
# only, never a live guard's.
"$CLEAN" --scratch-parent "$P" bash -c 'echo "$SCRATCH" >"$0"; sleep 100' "$T/live" &
live=$!
"$CLEAN" --scratch-parent "$P" bash -c 'echo "$SCRATCH" >"$0"; sleep 100' "$T/dead" &
dead=$!
wait_for test -s "$T/live" -a -s "$T/dead"
{ kill -KILL "$dead"; wait "$dead"; } 2>/dev/null
check "a SIGKILLed guard leaves its scratch directory" test -d "$(cat "$T/dead")"
"$CLEAN" --sweep "$P" >"$T/swept"
check "--sweep removes the dead guard's scratch and reports it" \
	test ! -e "$(cat "$T/dead")" -a ! -e "$(cat "$T/dead").lock" -a "$(cat "$T/swept")" = "$(cat "$T/dead")"
check "--sweep leaves a live guard's scratch alone" test -d "$(cat "$T/live")"
kill -TERM "$live"
wait "$live"
check "... which its guard removes at the end" test -z "$(ls -A "$P")"

# The directory is its own lock: a sweep takes a directory only when it
# can flock it, and a lock file NAME.lock (older guards, or a filesystem
# that cannot flock a directory) takes precedence.
Q=$T/sweep
mkdir -m 0700 "$Q" "$Q/pysbx-00000000000000a1" "$Q/pysbx-00000000000000a2" \
	"$Q/pysbx-00000000000000a3" "$Q/pysbx-00000000000000a4"
: >"$Q/pysbx-00000000000000a3.lock"
: >"$Q/pysbx-00000000000000a4.lock"
: >"$Q/pysbx-00000000000000a5.lock"
# Locks held by this script's own fds, as a live guard holds its own.
exec 7<"$Q/pysbx-00000000000000a2" 8<"$Q/pysbx-00000000000000a4.lock"
flock -n 7 && flock -n 8 || echo "# could not take the test's locks" >&2
"$CLEAN" --sweep "$Q" >"$T/swept"
check "--sweep removes a directory whose own lock is free, with no lock file" \
	test ! -e "$Q/pysbx-00000000000000a1" -a -n "$(grep -x "$Q/pysbx-00000000000000a1" "$T/swept")"
check "... leaves one whose own lock is held" test -d "$Q/pysbx-00000000000000a2"
check "... removes one with a free lock file, and the lock file" \
	test ! -e "$Q/pysbx-00000000000000a3" -a ! -e "$Q/pysbx-00000000000000a3.lock"
check "... leaves one whose lock file is held (the directory's own lock is free)" \
	test -d "$Q/pysbx-00000000000000a4" -a -e "$Q/pysbx-00000000000000a4.lock"
check "... and removes a free lock file whose directory is gone" \
	test ! -e "$Q/pysbx-00000000000000a5.lock"
exec 7<&- 8<&-

# The window between the guard's mkdir and its flock: a sweep that runs
# there finds the directory unlocked and removes it. The guard must see
# that the name no longer leads to what it locked and take another name,
# never run the sandbox in a removed directory. strace delays the guard's
# first flock so that a sweep fits in the window.
if strace -o /dev/null true 2>/dev/null; then
	R=$T/race
	mkdir -m 0700 "$R"
	strace -f -o /dev/null -e trace=flock -e inject=flock:delay_enter=1500000:when=1 \
		"$CLEAN" --scratch-parent "$R" bash -c 'echo "$SCRATCH" >"$0"; echo data >"$SCRATCH/f" && cat "$SCRATCH/f"' "$T/raced" >"$T/raceout" 2>"$T/raceerr" &
	racer=$!
	wait_for compgen -G "$R/pysbx-*" >/dev/null
	first=$(compgen -G "$R/pysbx-*")
	"$CLEAN" --sweep "$R" >"$T/swept"
	wait "$racer"
	rc=$?
	check "a sweep inside the guard's mkdir-flock window removes that directory" \
		test "$(cat "$T/swept")" = "$first" -a ! -e "$first"
	check "... and the guard runs the sandbox in a new one of its own, then removes it" \
		test "$rc:$(cat "$T/raceout")" = "0:data" -a "$(cat "$T/raced")" != "$first" -a -z "$(ls -A "$R")"
	# A filesystem that cannot flock a directory (NFS: ENOLCK or
	# EBADF): the guard falls back to the lock file NAME.lock, which a
	# sweep honours; both go at the end.
	strace -f -o /dev/null -e trace=flock -e inject=flock:error=ENOLCK:when=1 \
		"$CLEAN" --scratch-parent "$R" bash -c 'ls -A "$0" >"$1"; "$2" --sweep "$0" >"$3"; test -d "$SCRATCH"' \
		"$R" "$T/nolock" "$CLEAN" "$T/swept" 2>"$T/raceerr"
	rc=$?
	check "no flock on a directory: the lock file NAME.lock instead, which a sweep honours" \
		test "$rc:$(grep -c '^pysbx-[0-9a-f]\{16\}\.lock$' "$T/nolock"):$(cat "$T/swept")" = "0:1:"
	check "... and the guard removes both at the end" test -z "$(ls -A "$R")"
	# The removal climbs back through "..": a sandbox-side rename of
	# the directory being emptied (here by the host, in a window that
	# strace widens: every unlinkat of the guard is delayed) must not
	# make it climb into the directory the tree was moved to, and
	# empty that. The guard reports the move and leaves the rest.
	RB=$T/renrace
	mkdir -p "$RB/sp" "$RB/victim"
	chmod 0700 "$RB/sp"
	echo keep >"$RB/victim/keep"
	strace -o /dev/null -e trace=unlinkat -e inject=unlinkat:delay_exit=200000 \
		"$CLEAN" --scratch-parent "$RB/sp" bash -c 'mkdir -p "$SCRATCH/a/b" && for i in 1 2 3 4 5 6 7 8 9 10 11 12; do : >"$SCRATCH/a/b/f$i"; done; echo "$SCRATCH" >"$0"' \
		"$RB/where" >/dev/null 2>"$RB/err" &
	racer=$!
	wait_for test -s "$RB/where"
	sdir=$(cat "$RB/where")
	# Once the walk is inside b (its files start to go), move b away.
	emptying() { [[ $(ls "$sdir/a/b" 2>/dev/null | wc -l) -lt 11 ]]; }
	wait_for emptying
	mv "$sdir/a/b" "$RB/victim/b"
	wait "$racer"
	rc=$?
	check "scratch removal under a rename race: the directory the tree was moved to keeps its files" \
		test "$(cat "$RB/victim/keep" 2>/dev/null)" = keep
	check "... and the guard says so (the target's status, 0, stays the exit status)" \
		test "$rc:$(grep -c 'the tree was moved while it was removed' "$RB/err")" = "0:1"
else
	for _ in 1 2 3 4 5 6; do
		skip "strace cannot trace here (the mkdir-flock window, the removal race)"
	done
fi

cat >"$T/adopt2.policy" <<EOF
scratch adopt $Q/pysbx-00000000000000b1
EOF
mkdir -m 0700 "$Q/pysbx-00000000000000b1"
"$CLEAN" -p "$T/adopt2.policy" bash -c 'echo x >"$SCRATCH/f"; "$0" --sweep "$1" >/dev/null; test -e "$SCRATCH/f"' "$CLEAN" "$Q"
check "a sweep never removes a directory a live guard adopted (a shared lock)" \
	test $? = 0 -a -e "$Q/pysbx-00000000000000b1/f"

cat >"$T/adopt.policy" <<EOF
scratch adopt $T/keep
timeout 300ms kill-after 100ms
EOF
mkdir -m 0700 "$T/keep"
"$CLEAN" -p "$T/adopt.policy" bash -c 'echo "$SCRATCH" >"$0"; echo x >"$1/f"; sleep 100' "$T/adopted" "$T/keep"
rc=$?
check "a policy's timeout applies (124) and 'scratch adopt' leaves the directory" \
	test "$rc:$(cat "$T/keep/f" 2>/dev/null)" = "124:x"
check "... adopt exports SCRATCH standalone" test "$(cat "$T/adopted")" = "$T/keep"

"$CLEAN" -p "$T/adopt.policy" -t none bash -c 'exit 0'
check "-t none overrides the policy's timeout" test $? = 0

# A mount planted inside scratch, seen by the guard: possible only in a
# mount namespace of our own (unshare -Urm), where the guard runs too.
if unshare -Urm true 2>/dev/null; then
	unshare -Urm bash -c '"$0" --status-fd 3 --scratch-parent "$1" bash -c "mkdir \"\$SCRATCH/m\" && mount --bind \"\$0\" \"\$SCRATCH/m\"" "$2" 3>"$3" 2>/dev/null' \
		"$CLEAN" "$P" "$H" "$T/st"
	check "a bind mount inside scratch: the host directory behind it is intact" \
		test "$(cat "$H/file" 2>/dev/null)" = keep
	check "... the status record names what was left" \
		record_is "$T/st" '(ex.get("scratch_error"), ex["code"])' \
		"(\"unable to remove 'm' in the scratch directory (a mount point): Resource busy\", 0)"
	unshare -Urm bash -c '"$0" --scratch-parent "$1" bash -c "mount --bind \"\$0\" \"\$SCRATCH\"" "$2" 2>/dev/null' \
		"$CLEAN" "$P" "$H"
	check "a bind mount over the scratch directory itself: the host directory is intact" \
		test "$(cat "$H/file" 2>/dev/null)" = keep
	"$CLEAN" --sweep "$P" >/dev/null
	check "... and a sweep (the mounts gone with their namespace) finishes" \
		test -z "$(ls -A "$P")" -a "$(cat "$H/file")" = keep
else
	for _ in 1 2 3 4; do
		skip "unprivileged user namespaces are not available (mount traps)"
	done
fi

# --- JSON status records ---------------------------------------------------

"$CLEAN" --status-fd 3 bash -c 'echo $$ >"$0"; exit 3' "$T/pid" 3>"$T/st"
check "status: started with the target's pid, then exit code 3, no signal" \
	record_is "$T/st" '(r[0], ex["stage"], ex["code"], ex["signal"], ex["timeout"], ex["error"], all(type(ex[k]) is int for k in ("wall_ms","user_ms","sys_ms","max_rss_kb")))' \
	"({'event': 'started', 'pid': $(cat "$T/pid")}, 'target', 3, 0, False, None, True)"

"$CLEAN" --status-fd 3 bash -c 'kill -KILL $$' 3>"$T/st"
check "status: a target killed by SIGKILL: code 137, signal 9" \
	record_is "$T/st" '(ex["code"], ex["signal"], ex["timeout"])' "(137, 9, False)"

"$CLEAN" --status-fd 3 "$T/no-such-program" 3>"$T/st" 2>/dev/null
check "status: a program not found: no started record, stage clean, code 127, ENOENT" \
	record_is "$T/st" '(len(r), ex["stage"], ex["code"], ex["errno"], "no-such-program" in ex["error"])' \
	"(1, 'clean', 127, 2, True)"

printf 'limt nofile 1\n' >"$T/bad.policy"
"$CLEAN" --status-fd 3 -p "$T/bad.policy" true 3>"$T/st" 2>/dev/null
check "status: an invalid policy: stage clean, code 100" \
	record_is "$T/st" '(ex["stage"], ex["code"])' "('clean', 100)"

# --- the report channel, with stand-in chain steps ---------------------------
# A program named pysbx-mount or pysbx-exec is a chain step: it gets
# --plan-fd and --report-fd. These stand-ins write the records the real
# steps write (DESIGN.md "Chain runtime conventions"), so the guard's side
# of the protocol is tested without namespaces.
mkdir "$T/fake"
cat >"$T/fake/pysbx-mount" <<'EOF2'
#!/bin/bash
[[ $1 == --plan-fd && $3 == --report-fd ]] || exit 99
pf=$2 rf=$4
shift 4
# The guard's scratch directory, when it made one (pysbx-mount checks it).
[[ $1 == --scratch-id ]] && shift 2
cat "/proc/self/fd/$pf" >"$1"
case $2 in
ok) echo '{"stage":"mount","event":"started","pid":4242}' >&"$rf"
    echo '{"stage":"target","status":2816,"exit":11,"signal":0}' >&"$rf"
    exit 11 ;;
sig) echo '{"stage":"mount","event":"started","pid":4242}' >&"$rf"
    echo '{"stage":"target","status":9,"exit":-1,"signal":9}' >&"$rf"
    exit 137 ;;
fail) echo '{"stage":"mount","error":"unable to mount /usr: Operation not permitted","errno":1,"code":111}' >&"$rf"
    exit 111 ;;
hang) echo '{"stage":"mount","event":"started","pid":4242}' >&"$rf"
    trap '' TERM; while :; do sleep 0.05; done ;;
esac
EOF2
sed 's/"stage":"mount","error":"unable to mount \/usr: Operation not permitted","errno":1,"code":111/"stage":"exec","error":"unable to find nope in PATH=\/usr\/bin","errno":2,"code":127/' \
	"$T/fake/pysbx-mount" | sed 's/exit 111/exit 127/' >"$T/fake/pysbx-exec"
chmod 0755 "$T/fake/pysbx-mount" "$T/fake/pysbx-exec"
mkdir -m 0700 "$T/sp"
cat >"$T/scratch.policy" <<EOF2
unshare user mount
scratch create $T/sp
bind \${SCRATCH} /scratch
timeout 1m kill-after 2s
EOF2

"$T/fake/pysbx-mount" --plan-fd 0 --report-fd 1 "$T/plan" x </dev/null >/dev/null 2>&1
"$CLEAN" --status-fd 3 -p "$T/scratch.policy" "$T/fake/pysbx-mount" "$T/plan" ok 3>"$T/st"
rc=$?
check "chain: the step's exit code (the target's, 11) is the guard's" test $rc = 11
check "chain: started carries pid 1's pid from the mount step's record" \
	record_is "$T/st" 'r[0]' "{'event': 'started', 'pid': 4242, 'mode': 'namespaces'}"
check "chain: the exit record is the target's" \
	record_is "$T/st" '(ex["stage"], ex["code"], ex["signal"], ex["error"])' "('target', 11, 0, None)"
check "chain: the sealed plan holds the created \${SCRATCH} and the timeout" \
	python3 -c '
import re, sys
t = open(sys.argv[1]).read()
m = re.search(r"^@\S+ bind (\S+) /scratch$", t, re.M)
assert t.startswith("pysbx-plan 1"), t[:40]
assert m and re.fullmatch(re.escape(sys.argv[2]) + r"/pysbx-[0-9a-f]{16}", m.group(1)), t
assert re.search(r"^@\S+ timeout 1m kill-after 2s$", t, re.M), t
' "$T/plan" "$T/sp"
check "chain: the scratch directory is gone afterwards" test -z "$(ls -A "$T/sp")"

"$CLEAN" --status-fd 3 "$T/fake/pysbx-mount" "$T/plan" sig 3>"$T/st"
rc=$?
check "chain: a target killed by SIGKILL: 137, signal 9 from pid 1's record" \
	record_is "$T/st" "(ex['stage'], ex['code'], ex['signal'], $rc)" "('target', 137, 9, 137)"

"$CLEAN" --status-fd 3 "$T/fake/pysbx-mount" "$T/plan" fail 3>"$T/st"
rc=$?
check "chain: a mount setup failure: 111 with stage mount, its error and errno" \
	record_is "$T/st" "(len(r), ex['stage'], ex['code'], ex['errno'], ex['error'], ex['signal'], $rc)" \
	"(1, 'mount', 111, 1, 'unable to mount /usr: Operation not permitted', 0, 111)"

"$CLEAN" --status-fd 3 "$T/fake/pysbx-exec" "$T/plan" fail 3>"$T/st"
rc=$?
check "chain: a program not found by a later step: 127 with stage exec" \
	record_is "$T/st" "(ex['stage'], ex['code'], ex['errno'], $rc)" "('exec', 127, 2, 127)"

"$CLEAN" --status-fd 3 "$T/fake/no-such-step/pysbx-mount" 3>"$T/st" 2>/dev/null
rc=$?
check "chain: the first step not found: 127 with stage clean" \
	record_is "$T/st" "(ex['stage'], ex['code'], $rc)" "('clean', 127, 127)"

"$CLEAN" --status-fd 3 -t 300ms -k 100ms "$T/fake/pysbx-mount" "$T/plan" hang 3>"$T/st"
rc=$?
check "chain: a timeout after start: 124, stage target, timeout true" \
	record_is "$T/st" "(ex['stage'], ex['code'], ex['timeout'], $rc)" "('target', 124, True, 124)"

# --- the chain (needs pysbx-mount, pysbx-exec, pysbx-seccomp) ----------------

MOUNT=$BIN/pysbx-mount
if [[ ! -x $MOUNT || ! -x $BIN/pysbx-exec ]]; then
	why="$MOUNT or pysbx-exec is not built yet"
	for _ in 1 2 3 4; do skip "chain: $why"; done
elif ! unshare -Urm true 2>/dev/null; then
	for _ in 1 2 3 4; do skip "chain: unprivileged user namespaces are not available"; done
else
	mkdir -m 0700 "$T/pol" "$T/cout"
	cat >"$T/pol/chain.policy" <<EOF
unshare user mount pid ipc uts net
ro-bind /usr /usr
symlink usr/bin /bin
symlink usr/lib /lib
ro-bind-try /usr/lib64 /lib64
proc /proc
dev /dev
tmpfs /tmp
bind $T/cout /out
EOF
	f=$T/cout/chain-daemon
	"$CLEAN" --status-fd 3 -p "$T/pol/chain.policy" "$MOUNT" "$BIN/pysbx-exec" \
		bash -c 'setsid bash -c "while :; do echo x >>/out/chain-daemon; sleep 0.05; done" </dev/null >/dev/null 2>&1 & sleep 0.3; exit 4' \
		3>"$T/st"
	rc=$?
	check "chain: the target's code (4) comes back and its setsid'd daemon stops" \
		code_and_stopped "$rc" 4 "$f"
	check "chain: started carries pid 1's host pid, exit the target's stage" \
		record_is "$T/st" '(r[0]["event"], r[0]["pid"] > 0, ex["stage"], ex["code"])' "('started', True, 'target', 4)"
	f=$T/cout/chain-kill
	"$CLEAN" -p "$T/pol/chain.policy" "$MOUNT" "$BIN/pysbx-exec" \
		bash -c 'setsid bash -c "while :; do echo x >>/out/chain-kill; sleep 0.05; done" </dev/null >/dev/null 2>&1 & sleep 100' &
	g=$!
	grows "$f"
	{ kill -KILL "$g"; wait "$g"; } 2>/dev/null
	check "chain: SIGKILL of the guard kills the sandbox's setsid'd daemon" stopped_growing "$f"
	set -m
	"$CLEAN" -p "$T/pol/chain.policy" "$MOUNT" "$BIN/pysbx-exec" \
		bash -c 'n=0; trap "n=\$((n + 1)); echo \$n >/out/seen" INT; : >/out/ready;
		while [ ! -e /out/go ]; do sleep 0.05; done; sleep 0.2; echo $n >/out/count' &
	g=$!
	set +m
	wait_for test -e "$T/cout/ready"
	kill -INT -- "-$g"
	wait_for test -e "$T/cout/seen"
	touch "$T/cout/go"
	wait "$g"
	check "chain: SIGINT to the guard's process group reaches the target exactly once" \
		test "$(cat "$T/cout/count" 2>/dev/null)" = 1
fi
