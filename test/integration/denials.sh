#!/usr/bin/env bash
# report denials (docs/DENIALS.md): the paths the sandbox's view denied,
# by the target or any process under it, are named at the end of the run
# (stderr) and as `denial` status records: path, kind, process, policy
# line and fix. pid 1 answers every reported call "continue" (the kernel
# decides: the host sees nothing change); a path missing from the view
# is named only when the caller can read it on the host.
set -u
B=$PYSBX_BIN
P=$PYSBX_POLICIES
T=$(mktemp -d "$HOME/denials.XXXXXX") || exit 111
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"

run() {
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
}
pol() {
	local f=$T/$1.policy
	shift
	printf '%s\n' "$@" >"$f"
	chmod 0644 "$f"
	echo "$f"
}
# the denial records in $T/st, one per line: KIND PATH LINE
recs() {
	grep '"event":"denial"' "$T/st" | sed -E \
		's/.*"kind":"([^"]*)","path":"([^"]*)".*"line":("[^"]*"|null).*/\1 \2 \3/'
}
field() { grep "\"event\":\"$1\"" "$T/st" | grep -o "\"$2\":[^,}]*" | head -n 1; }

mkdir -m 0755 "$T/ws" "$T/host"
echo 'the secret' >"$T/host/notes.txt"
chmod 0644 "$T/host/notes.txt"
echo 'print-me' >"$T/ws/in.txt"
py=$(pol py "include $P/python.policy" 'report denials')
pyline=$(grep -n '^\${WORKSPACE_MOUNT' "$P/python.policy" | cut -d: -f1)

# --- Python reading a host file that is not mounted --------------------------
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/usr/bin/python3 -I -S -c "
print(open('/workspace/in.txt').read().strip())
try:
    open('$T/host/notes.txt')
except OSError as e:
    print(e.errno)" 3>"$T/st"
is "$rc:$(tr '\n' ' ' <"$T/out")" "0:print-me 2 " \
	"python: a workspace file reads as on the host (the call continued), the unmounted host file is ENOENT"
is "$(recs)" "outside $T/host/notes.txt $(recs | awk '{print $3}')" \
	"... one denial record: kind outside, the path as asked"
grep -q "^  $T/host/notes.txt: not in the sandbox's view (present on the host); read by pid 2 (python3); .*fix: add 'ro-bind $T/host/notes.txt $T/host/notes.txt'" "$T/err"
okrc $? "... the summary names the path, the kind, the process and the fix"
is "$(field denials paths) $(field denials calls)" '"paths":1 "calls":1' \
	"... and the denials record counts it"

# --- a shell script's cat of one: a subprocess, relative to its cwd ---------
rel=${T#/}/host/notes.txt
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/bin/sh -c "cd $T/host 2>/dev/null; cd / && cat $rel; exit 0" 3>"$T/st"
is "$(recs | cut -d' ' -f1-2 | sort | tr '\n' ' ')" \
	"outside $T/host outside $rel " \
	"a shell's cd and cat (a child process) of a relative path: each named as asked"
grep -q "^  $T/host/notes.txt (asked as '$rel'): not in the sandbox's view (present on the host); read by pid [3-9] (cat)" "$T/err"
okrc $? "... the summary names cat's pid and the path it resolved to"
grep -q "^  $T/host: .*chdir by pid 2 (sh)" "$T/err"
okrc $? "... and the shell's cd into the unmounted directory"

# --- a compiler (and touch) writing into the read-only workspace -------------
cc=$(command -v cc || command -v gcc || true)
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/bin/sh -c 'touch /workspace/made; cd /workspace && mkdir build; exit 0' 3>"$T/st"
is "$(recs | sort | tr '\n' ' ')" \
	"read-only /workspace/made \"$P/python.policy:$pyline\" read-only build \"$P/python.policy:$pyline\" " \
	"touch and mkdir in the read-only workspace: kind read-only, decided by python.policy's workspace line"
grep -q "^  /workspace/build (asked as 'build'): a write under a read-only mount; create by pid [0-9]* (mkdir); decided by $P/python.policy:$pyline (ro-bind /workspace); fix: run with -D WORKSPACE_MOUNT=bind" "$T/err"
okrc $? "... the fix is -D WORKSPACE_MOUNT=bind"
is "$(ls -A "$T/ws")" "in.txt" "... and the host's workspace is unchanged"
if [[ -n $cc ]]; then
	run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
		/bin/sh -c "echo 'int main(void){return 0;}' >/tmp/a.c && $cc -o /workspace/a.out /tmp/a.c" 3>"$T/st"
	[[ $rc != 0 ]] && recs | grep -q '^read-only /workspace/a.out ' &&
		[[ ! -e $T/ws/a.out ]]
	okrc $? "a compiler writing its output into the read-only tree: read-only /workspace/a.out, nothing on the host"
else
	skip "no C compiler on this machine"
fi

# --- git touching a protected path (agent-shell) -----------------------------
if command -v git >/dev/null; then
	mkdir -p "$T/repo"
	git -C "$T/repo" init -q 2>/dev/null
	cp "$T/repo/.git/config" "$T/config.before"
	sh=$(pol sh "include $P/agent-shell.policy" 'report denials')
	shline=$(grep -n '^protect ' "$P/agent-shell.policy" | cut -d: -f1)
	run "$B/pysbx" run --status-fd 3 -p "$sh" -D WORKSPACE="$T/repo" -- \
		/bin/sh -c 'git config user.name mallory' 3>"$T/st"
	[[ $rc != 0 ]] && grep '"event":"denial"' "$T/st" | grep -q "\"kind\":\"protected\",.*\"at\":\"$T/repo/.git/config\",.*\"line\":\"$P/agent-shell.policy:$shline\"" &&
		cmp -s "$T/config.before" "$T/repo/.git/config"
	okrc $? "git config in a protected .git: kind protected, agent-shell's protect line, the host's config unchanged"
	grep -qE "^  $T/repo/.git/config( \(asked as '[^']*'\))?: protected; create by pid [0-9]+ \(git\); decided by $P/agent-shell.policy:$shline \(protect $T/repo\); fix: change it outside the sandbox" "$T/err"
	okrc $? "... the summary says so, with the fix"
else
	skip "git is not installed"
	skip "git is not installed"
fi

# --- a kill of a path call stays a kill --------------------------------------
k=$(pol kill "include $P/python.policy" 'seccomp kill mkdir' 'report denials')
run "$B/pysbx" run -p "$k" -D WORKSPACE="$T/ws" -- /bin/sh -c "mkdir /tmp/made && echo made; touch /workspace/x; echo still-here"
[[ $rc == 0 ]] && [[ $(cat "$T/out") == still-here ]] &&
	grep -q "a process of the target was killed by the syscall filter: syscall mkdir" "$T/err"
okrc $? "a path call the policy kills is killed (by pid 1), not continued, with report denials on; the rest goes on"

# --- what is not a denial -----------------------------------------------------
mkdir -m 0755 "$T/locked"
echo x >"$T/locked/inside"
chmod 0000 "$T/locked"
echo x >"$T/host/unreadable"
chmod 0000 "$T/host/unreadable"
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/bin/sh -c "cat /nonexistent-$$ $T/host/absent $T/locked/inside $T/host/unreadable /usr/share/absent-$$; ls /proc/self/fd >/dev/null; exit 0" 3>"$T/st"
is "$(recs):$(field denials paths)" ':"paths":0' \
	"paths that do not exist on the host, or that the caller cannot read there (its own mode-0000 file, a file in a mode-0000 directory), or missing inside a mounted host tree: no denial"
is "$(cat "$T/err" | grep -c '^pysbx: the sandbox denied')" 0 "... and no summary"
chmod 0755 "$T/locked"

# --- a flood: bounded tables, exact counts -----------------------------------
mkdir -m 0755 "$T/many"
for i in $(seq 1 300); do : >"$T/many/f$i"; done
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/usr/bin/python3 -I -S -c "
import os
for r in range(3):
    for i in range(1, 301):
        try: os.open('$T/many/f%d' % i, os.O_RDONLY)
        except OSError: pass" 3>"$T/st"
is "$(recs | wc -l):$(grep -c "^  $T/many/f" "$T/err")" "64:64" \
	"900 denied opens of 300 paths: 64 denial records, 64 summary lines"
is "$(field denials paths) $(field denials calls) $(field denials unchecked)" \
	'"paths":256 "calls":768 "unchecked":132' \
	"... pid 1 examined 256 distinct paths (768 calls), counted the other 132 calls as unchecked"
grep -q "^  and 192 more paths not listed; 768 denied calls in all$" "$T/err" &&
	grep -q "^  132 calls on more paths missing from the view were not checked" "$T/err"
okrc $? "... and the summary ends with the exact counts"

# --- names a terminal must not obey ------------------------------------------
esc=$'\e]0;owned\a'
mkdir -m 0755 "$T/odd"
: >"$T/odd/x${esc}y"
printf '\xff' | { read -r -n1 b || true; } 2>/dev/null
run "$B/pysbx" run --status-fd 3 -p "$py" -D WORKSPACE="$T/ws" -- \
	/bin/sh -c "cat '$T/odd/x${esc}y'; cat $'$T/odd/bad\\xff' ; exit 0" 3>"$T/st"
[[ $(grep -c $'\e' "$T/err") == 0 ]] && grep -q "x\\\\x1b]0;owned\\\\x07y" "$T/err" &&
	grep -q 'x\\\\x1b]0;owned\\\\x07y' "$T/st"
okrc $? "a name with control characters is printed escaped, on stderr and in the record"

# --- modes where nothing is reported: said, never silent ----------------------
p=$(pol nopid 'unshare user mount' 'ro-bind /usr /usr' 'symlink usr/bin /bin' \
	'symlink usr/lib /lib' 'symlink usr/lib64 /lib64' 'report denials')
run "$B/pysbx" run -p "$p" -- /bin/true
is "$rc:$(grep -c 'report denials: denials are not reported in this run' "$T/err")" "0:1" \
	"no pid namespace: a warning says that denials are not reported"
p=$(pol llonly 'landlock-only always' 'report denials')
run "$B/pysbx" run --status-fd 3 -p "$p" -- /bin/true 3>"$T/st"
if grep -q '"mode":"landlock-only"' "$T/st"; then
	is "$(grep -c 'denials are not reported in Landlock-only mode' "$T/err"):$(field denials reported)" \
		'1:"reported":false' "Landlock-only mode: a warning and a denials record say nothing is reported"
else
	skip "Landlock-only mode is not available here"
fi

# --- the filter without the directive is unchanged, byte for byte ------------
# A fixed policy's export, as the build before report denials made it:
# the directive adds rules only when it is given.
f=$(pol fixed 'seccomp deny socket ptrace' 'seccomp kill mkdir' \
	'seccomp errno=ENOSYS clone3' 'seccomp allow openat' \
	'seccomp deny ioctl if arg1==0x5412')
is "$("$B/pysbx-seccomp" -p "$f" --export - | sha256sum | cut -c1-16)" \
	"81ae285f9355a48d" "the filter without report denials: the same bytes as before it existed"
r=$(pol fixedr "include $f" 'report denials')
"$B/pysbx-seccomp" -p "$r" --list | grep -q '^# added: [0-9]* path syscalls (open, execve, mkdir, ...): USER_NOTIF to pid 1, answered CONTINUE'
okrc $? "... with it, --list names the reported calls"

# --- no listener: a notification fails closed ---------------------------------
is "$("$PYSBX_PROBE/notify_probe" 2>&1)" "ENOSYS" \
	"a USER_NOTIF call with its listener gone fails with ENOSYS (never runs)"

echo "1..$n"
