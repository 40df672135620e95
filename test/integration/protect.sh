#!/usr/bin/env bash
# agent-shell's `protect` and the credential masks, attacked the way a
# hostile command would: rename a parent, plant a symlink for the next run,
# git indirection (gitdir: files, commondir, modules, hooksPath, symlinked
# hooks), hard links, names created during the run, control bytes in file
# names, odd HOMEs. Each case checks the HOST side afterwards: an ordinary
# `git commit` on the host runs nothing the sandbox wrote, protected content
# is unchanged, nothing was created on the host. Runs unprivileged.
set -u
B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
GIT=/usr/bin/git
if [[ ! -x $GIT ]]; then echo "1..0 # SKIP $GIT is missing"; exit 0; fi
T=$(mktemp -d "$HOME/prot.XXXXXX") || exit 111
chmod 0755 "$HOME" "$T"
SHM=
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T" ${SHM:+"$SHM"}' EXIT
. "${PYSBX_TESTDIR:?}/lib.sh"
echo "1..67"

# The host's git: no system or global config, hooks enabled as usual.
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
PWN=$T/pwned
# What the sandbox writes wherever a hook or a command would go.
EVIL="#!/bin/sh
echo \$0 >>$PWN"
# run WS PROG...: agent-shell on WS; stdout+stderr in $out, status in $rc,
# status-fd records in $st.
run() {
	local ws=$1
	shift
	out=$("$B/pysbx-clean" --status-fd 3 -p "$P/agent-shell.policy" -D WORKSPACE="$ws" -- \
		"$B/pysbx-mount" "$B/pysbx-exec" "$B/pysbx-seccomp" "$@" 3>"$T/status" 2>&1)
	rc=$?
	st=$(cat "$T/status")
}
# sh_in WS SCRIPT: agent-shell runs SCRIPT with $EVIL defined (the
# sandbox's environment is the policy's, not ours).
sh_in() { local ws=$1; shift; run "$ws" /bin/sh -c "EVIL='$EVIL'
$*"; }
# newrepo DIR: a repository with one commit and a harmless pre-commit hook.
newrepo() {
	mkdir -p "$1" && $GIT -C "$1" init -q -b main && echo a >"$1/a.txt" &&
		$GIT -C "$1" add a.txt && $GIT -C "$1" commit -qm init &&
		$GIT -C "$1" config user.name t && $GIT -C "$1" config user.email t@t &&
		printf '#!/bin/sh\nexit 0\n' >"$1/.git/hooks/pre-commit" &&
		chmod +x "$1/.git/hooks/pre-commit"
}
# host_commit DIR: the host's ordinary commit; then whether any code the
# sandbox wrote ran ("clean" or what it wrote).
host_commit() {
	rm -f "$PWN"
	echo $RANDOM >>"$1/a.txt"
	$GIT -C "$1" commit -qam host >/dev/null 2>&1
	$GIT -C "$1" status >/dev/null 2>&1
	if [[ -e $PWN ]]; then echo "RAN: $(tr '\n' ' ' <"$PWN")"; else echo clean; fi
}
sum() { cat "$@" 2>/dev/null | cksum; }

# --- renaming an unprotected parent -------------------------------------
W=$T/r1 && newrepo "$W"
c0=$(sum "$W/.git/config" "$W/.git/hooks/pre-commit")
sh_in "$W" 'mv .git .git.orig; mkdir -p .git; cp -a .git.orig/. .git/ 2>/dev/null
printf "%s\n" "$EVIL" > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
git config core.fsmonitor "sh -c \"echo fsmonitor >>'"$PWN"'\""; true'
is "$(host_commit "$W")" clean "rename .git, copy it back, write a hook and core.fsmonitor: the host's git commit runs nothing the sandbox wrote"
is "$(sum "$W/.git/config" "$W/.git/hooks/pre-commit")" "$c0" "... and .git/config and the hook are unchanged on the host"
mkdir -p "$W/app" && echo APP=1 >"$W/app/.env"
sh_in "$W" 'mv app app.old; mkdir -p app; echo APP=evil > app/.env; rmdir app 2>/dev/null; true'
is "$(cat "$W/app/.env"):$([[ -e $W/app.old ]] && echo moved)" "APP=1:" "rename a parent of a protected .env (app -> app.old) fails: app/.env unchanged"

# --- a symlinked .git planted by an earlier run ---------------------------
W=$T/r2 && newrepo "$W" && mv "$W/.git" "$W/.gitdir" && ln -s .gitdir "$W/.git"
sh_in "$W" 'printf "%s\n" "$EVIL" > .gitdir/hooks/pre-commit; printf "%s\n" "$EVIL" > .git/hooks/post-commit
git config core.fsmonitor "sh -c \"echo fsmonitor >>'"$PWN"'\""; true'
is "$rc:$(host_commit "$W")" "0:clean" "a .git symlink left by an earlier run: the run starts, and its target's hooks and config stay read-only"

# --- .git as a gitdir: file (worktree, submodule, --separate-git-dir) -------
W=$T/r3 && mkdir -p "$W" && $GIT init -q -b main --separate-git-dir="$W/real.git" "$W/proj" &&
	echo a >"$W/proj/a.txt" && $GIT -C "$W/proj" add a.txt && $GIT -C "$W/proj" commit -qm i
sh_in "$W" 'cd proj && printf "%s\n" "$EVIL" > ../real.git/hooks/pre-commit; chmod +x ../real.git/hooks/pre-commit
git config core.hooksPath /tmp; git config core.fsmonitor "sh -c \"echo fsmonitor >>'"$PWN"'\""; true'
is "$rc:$(host_commit "$W/proj")" "0:clean" "a .git file (gitdir: ../real.git): the real git dir's hooks and config are protected"

# --- git indirection: commondir, modules, symlinked hooks, hooksPath -----
W=$T/r4 && newrepo "$W"
sh_in "$W" 'mkdir evil && cp -a .git/objects .git/refs .git/config evil/ && mkdir evil/hooks
printf "%s\n" "$EVIL" > evil/hooks/pre-commit; chmod +x evil/hooks/pre-commit; echo ../evil > .git/commondir; true'
is "$(host_commit "$W")" clean "a new .git/commondir pointing at a directory with its own hooks: the host's git commit runs nothing the sandbox wrote"
[[ $out == *"pysbx-mount: warning: "*".git/commondir"* && $st == *'"event":"protect"'*commondir* ]] &&
	ok "... the run says so on stderr and in a status record" || not_ok "... the run says so on stderr and in a status record" "out: $out" "status: $st"
# red-team F1: the run that planted the commondir is killed before any
# check after it can run: kill -9 of the front door, of its whole process
# group, and a target that ignores TERM until the timeout's KILL. The
# planted name must be gone by the time the host's git runs.
PLANT='mkdir evil && cp -a .git/objects .git/refs .git/HEAD .git/config evil/ && mkdir evil/hooks &&
printf "%s\n" "$EVIL" > evil/hooks/pre-commit && chmod +x evil/hooks/pre-commit &&
git config -f evil/config core.fsmonitor "sh -c \"echo fsmonitor >>'"$PWN"'\"; false" &&
echo ../evil > .git/commondir &&'
# killed WS HOW: agent-shell on WS plants a commondir, then is killed
# (front: kill -9 of pysbx run; group: of its process group; monitor: of
# pysbx-mount outside the namespaces; timeout: the target ignores TERM, so
# the timeout ends it with KILL); waits for every process of the run to
# be gone.
killed() {
	local ws=$1 how=$2 p t=10m body='exec sleep 1000'
	[[ $how == timeout ]] && t=1s body='trap "" TERM; while :; do sleep 0.1; done'
	setsid "$B/pysbx" run -t "$t" -k 1s -p "$P/agent-shell.policy" -D WORKSPACE="$ws" -- \
		/bin/sh -c "EVIL='$EVIL'
$PLANT $body" >"$T/killed.out" 2>&1 &
	p=$!
	wait_for test -e "$ws/.git/commondir" || echo "# not planted: $(cat "$T/killed.out")"
	case $how in
	front) kill -9 "$p" ;;
	group) kill -9 -- "-$p" ;;
	monitor) kill -9 $(pgrep -P "$p" -x pysbx-mount) ;;
	esac
	wait "$p" 2>/dev/null
	wait_for eval '! pgrep -u "$(id -u)" -f "sleep 1000|sleep 0.1" >/dev/null'
}
for how in front group monitor timeout; do
	W=$T/r4k$how && newrepo "$W"
	killed "$W" $how
	is "$(host_commit "$W")" clean "a .git/commondir planted by a run that is then killed ($how): the host's git runs nothing the sandbox wrote"
done
W=$T/r4s && newrepo "$W" && mkdir -p "$W/evil" && cp -a "$W/.git/." "$W/evil/" && printf '%s\n' "$EVIL" >"$W/evil/hooks/pre-commit" &&
	chmod +x "$W/evil/hooks/pre-commit" && echo ../evil >"$W/.git/commondir" &&
	printf '[core]\n\tfsmonitor = "echo wt >>%s; false"\n' "$PWN" >"$W/.git/config.worktree"
sh_in "$W" 'echo ran'
is "$rc:$(ls "$W/.git" | grep -c pysbx-refused):$(host_commit "$W")" \
	"0:2:clean" "a commondir and a config.worktree (no extensions.worktreeConfig) left by an earlier killed run: the next run moves them aside at its start"
[[ $st == *'"what":"moved"'*commondir* ]] && ok "... and says so in a status record" || not_ok "... and says so in a status record" "$st"
# red-team F2: a repository made during the run, recorded as a gitlink in
# the (writable) index: the host's git status/commit recurses into it and
# would run its core.fsmonitor. At depth 1 and deeper than the scan, as a
# .git file naming a git dir made elsewhere, and through a killed run. The
# new repository stays usable on the host.
NEST='nest() { mkdir -p $1 && (cd $1 && git init -q -b main . && echo s > s && git add s && git -c user.name=a -c user.email=a@b commit -qm s &&
git config core.fsmonitor "sh -c \"echo fsmonitor-$1 >>'"$PWN"'\"; false" && printf "%s\n" "$EVIL" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit) && git add $1; }'
W=$T/r4n && newrepo "$W"
sh_in "$W" "$NEST"'
nest sub && nest a/b/c/d/e/f/deep && mkdir -p stash && mv a/b/c/d/e/f/deep/.git stash/g && echo "gitdir: ../../../../../../../stash/g" > a/b/c/d/e/f/deep/.git; echo rc=$?'
is "$(host_commit "$W"):$($GIT -C "$W/sub" log --format=%s 2>&1):$($GIT -C "$W/a/b/c/d/e/f/deep" log --format=%s 2>&1)" "clean:s:s" \
	"a repository made during the run and added as a gitlink (depth 1, depth 7, a .git file naming a git dir made elsewhere): the host's git runs nothing it holds, and it stays usable"
[[ $out == *"warning: $W/sub/.git was created during the run"* && $out == *"$W/a/b/c/d/e/f/deep/.git was created"* && $st == *'"what":"moved"'*sub/.git* ]] &&
	ok "... each is reported (stderr and status record)" || not_ok "... each is reported" "$out" "$st"
W=$T/r4m && newrepo "$W"
sh_in "$W" 'mkdir -p .git/modules/m && git init -q --separate-git-dir=.git/modules/m m && (cd m && echo s > s && git add s && git -c user.name=a -c user.email=a@b commit -qm s &&
git config core.fsmonitor "sh -c \"echo fsmonitor-m >>'"$PWN"'\"; false") && git add m; echo rc=$?'
got=$(host_commit "$W")
W=$T/r4m2 && newrepo "$W"
sh_in "$W" 'mkdir -p .git/modules && git init -q --separate-git-dir="$PWD/.git/modules/m" m && (cd m && echo s > s && git add s && git -c user.name=a -c user.email=a@b commit -qm s &&
printf "%s\n" "$EVIL" > ../.git/modules/m/hooks/post-checkout && chmod +x ../.git/modules/m/hooks/post-checkout) && git add m &&
printf "[submodule \"m\"]\n\tpath = m\n\turl = ./m\n" > .gitmodules && rm -rf m; echo rc=$?'
rm -f "$PWN"
$GIT -C "$W" submodule update -q --init >/dev/null 2>&1
is "$got:$(cat "$PWN" 2>/dev/null)" "clean:" "a submodule git dir made during the run (.git/modules/m) with a gitlink: the host's git status, commit and submodule update run nothing it holds"
W=$T/r4o && newrepo "$W"
setsid "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W" -- /bin/sh -c "EVIL='$EVIL'
$NEST
nest x/y/z/w/v/deep && touch .planted && exec sleep 1000" >"$T/killed.out" 2>&1 &
p=$!
wait_for test -e "$W/.planted"
kill -9 "$p"
wait "$p" 2>/dev/null
wait_for eval '! pgrep -u "$(id -u)" -f "sleep 1000" >/dev/null'
is "$(host_commit "$W")" clean "... also when the run that made it is killed (kill -9 of pysbx run)"
# pid 1 itself SIGKILLed from outside (a kill of every pid of the tree, a
# cgroup kill): no check after the run. The record pid 1 left in the state
# directory makes the next start on the workspace check first.
SD=$HOME/.local/state/pysbx
recs() { ls -A "$SD" 2>/dev/null | grep -c '^run-'; }
# hardkill WS HOW SCRIPT: agent-shell on WS runs SCRIPT, then sleeps; once
# it made .planted, kill -9 of pid 1 (HOW=pid1) or of every pid of the
# run (HOW=tree); waits for every process to be gone.
hardkill() {
	local ws=$1 how=$2 p mon p1
	setsid "$B/pysbx" run --status-fd 3 -p "$P/agent-shell.policy" -D WORKSPACE="$ws" -- /bin/sh -c "EVIL='$EVIL'
$NEST
$3
touch .planted && exec sleep 1000" >"$T/killed.out" 2>&1 3>"$T/killed.st" &
	p=$!
	wait_for test -e "$ws/.planted" || echo "# not planted: $(cat "$T/killed.out")"
	mon=$(pgrep -P "$p" -x pysbx-mount) && p1=$(pgrep -P "$mon" -x pysbx-mount)
	# tree: every pid of the run stopped first, then killed, as a
	# cgroup kill does (none of them sees another die).
	[[ $how == tree ]] && kill -STOP "$p1" "$mon" "$p"
	kill -9 "$p1"
	[[ $how == tree ]] && kill -9 "$mon" "$p" 2>/dev/null
	wait "$p" 2>/dev/null
	wait_for eval '! pgrep -u "$(id -u)" -f "sleep 1000" >/dev/null'
}
HOOK='mkdir -p .git/hooks && printf "%s\n" "$EVIL" > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit && echo K=1 > .env && nest sub &&
{ ls -d '"$SD"' >/dev/null 2>&1 && echo SEEN-STATE; (echo x > '"$SD"'/run-forged) 2>/dev/null && echo WROTE-STATE; }'
# kill -9 of pid 1 and then of every other pid: the next start checks.
W=$T/r4htree && newrepo "$W" && rm -rf "$W/.git/hooks"
hardkill "$W" tree "$HOOK"
n0=$(recs)
run "$W" true
[[ $n0 == 1 && $rc == 0 && $out == *"warning: $W/.git/hooks was created during the run"*"an earlier run on this directory was killed"* &&
	$out == *"$W/sub/.git was created during the run"* && $out == *"$W/.env was created during the run"* &&
	$st == *'"what":"moved","path":"'"$W/.git/hooks"'","run":"earlier"'* ]] &&
	ok "kill -9 of pid 1 and then of the whole tree after the target made a hook dir, a repository with core.fsmonitor and a gitlink, a .env: the next start reports each (stderr and status record)" ||
	not_ok "killed run (tree) reported at the next start" "records $n0 rc $rc" "$out" "$st"
is "$(host_commit "$W"):$(recs):$(ls -A "$W/.git" | grep -c '^hooks.pysbx-refused'):$($GIT -C "$W/sub" log --format=%s 2>&1)" "clean:0:1:s" \
	"... neutralised before the new sandbox runs: the host's git commit runs nothing the sandbox wrote, the hooks dir is moved aside, the repository stays usable, the record is gone"
# The same, and the next start is on another workspace: it checks the
# killed run's workspace first, at its path on the host.
W=$T/r4hother && newrepo "$W" && rm -rf "$W/.git/hooks"
hardkill "$W" tree "$HOOK"
n0=$(recs)
run "$T/r4htree" true
[[ $n0 == 1 && $rc == 0 && $out == *"warning: $W/.git/hooks was created during the run"*"an earlier run on this directory was killed"* &&
	$out == *"$W/sub/.git was created during the run"* && $(recs) == 0 ]] &&
	ok "... and when the next start is on another workspace, it checks the killed run's workspace first" ||
	not_ok "killed run checked by a start on another workspace" "records $n0 rc $rc" "$out"
is "$(host_commit "$W"):$(ls -A "$W/.git" | grep -c '^hooks.pysbx-refused')" "clean:1" "... the host's git commit there runs nothing the sandbox wrote"
# kill -9 of pid 1 alone: pysbx-mount outside the sandbox checks at once.
W=$T/r4hpid1 && newrepo "$W" && rm -rf "$W/.git/hooks"
hardkill "$W" pid1 "$HOOK"
out=$(cat "$T/killed.out") st=$(cat "$T/killed.st")
[[ $(recs) == 0 && $out == *"warning: $W/.git/hooks was created during the run"*"pid 1 was killed: checked from outside"* &&
	$out == *"$W/sub/.git was created during the run"* && $out == *"$W/.env was created during the run"* &&
	$st == *'"what":"moved","path":"'"$W/.git/hooks"'"'* ]] &&
	ok "kill -9 of pid 1 alone after the same: pysbx-mount outside the sandbox checks at once and reports each (stderr and status record)" ||
	not_ok "killed pid 1 checked by the monitor" "records $(recs)" "$out" "$st"
run "$W" true
is "$rc:$out:$(host_commit "$W"):$(ls -A "$W/.git" | grep -c '^hooks.pysbx-refused')" "0::clean:1" \
	"... the host's git commit runs nothing the sandbox wrote; the next start has nothing left to report"
is "$(grep -c -- -STATE "$T/killed.out"):$(ls -A "$SD")" "0:" "the sandbox can neither see nor write the state directory"
# Two runs on one workspace: a live run's record is not checked by
# another start; once its pid 1 is killed it is.
W=$T/r4cc && newrepo "$W"
setsid "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W" -- /bin/sh -c 'echo K=1 > .env && touch .planted && exec sleep 1000' >"$T/killed.out" 2>&1 &
pc=$!
wait_for test -e "$W/.planted"
run "$W" true
n0=$(recs)
mon=$(pgrep -P "$pc" -x pysbx-mount) && p1=$(pgrep -P "$mon" -x pysbx-mount) && kill -STOP "$p1" "$mon" "$pc" && kill -9 "$p1" "$mon" "$pc"
wait "$pc" 2>/dev/null
wait_for eval '! pgrep -u "$(id -u)" -f "sleep 1000" >/dev/null'
o1=$out
run "$W" true
[[ $n0 == 1 && $o1 != *earlier* && $out == *"$W/.env was created during the run"*"an earlier run on this directory was killed"* && $(recs) == 0 ]] &&
	ok "a run on a workspace where another run lives leaves that run's record alone; after a kill -9 of its pid 1 the next start checks it" ||
	not_ok "concurrent runs and records" "records $n0" "$o1" "$out"
# A record of a killed run whose workspace was then deleted and made
# anew at the same path: not this directory's, never applied to it.
W=$T/r4dd && newrepo "$W"
hardkill "$W" tree 'echo K=1 > .env'
rm -rf "$W" && newrepo "$W" && echo K=2 >"$W/.env"
run "$W" true
is "$rc:$out:$(recs):$(cat "$W/.env")" "0::1:K=2" "a killed run's record is not applied to a new directory at the deleted workspace's path"
rm -f "$SD"/run-*
W=$T/r4r && newrepo "$W"
out=$(PYSBX_STATE_DIR="$W/.state" "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W" -- /bin/sh -c 'touch ran' 2>&1)
rc=$?
[[ $rc == 111 && $out == *"refusing the state directory $W/.state for protect's records: it lies under $W"*"binds read-write into the sandbox"* && ! -e $W/ran ]] &&
	ok "a state directory the sandbox could write (below the workspace) is refused, nothing runs" || not_ok "state dir under the workspace refused" "$rc" "$out"
out=$(env HOME=/nonexistent "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W" -- /bin/sh -c 'echo ran' 2>&1)
rc=$?
is "$rc:$out:$(stat -c %a "/tmp/pysbx-state-$(id -u)" 2>&1)" "0:ran:700" "without a home, the records go to /tmp/pysbx-state-UID (0700)"
rm -rf "/tmp/pysbx-state-$(id -u)"
mkdir -p "$T/sd" && chmod 0755 "$T/sd"
out=$(PYSBX_STATE_DIR="$T/sd" "$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W" -- /bin/sh -c 'touch ran' 2>&1)
rc=$?
[[ $rc == 111 && $out == *"refusing the state directory $T/sd"*"read or written by others"* && ! -e $W/ran ]] &&
	ok "a state directory others can read or write is refused" || not_ok "state dir 0755 refused" "$rc" "$out"
W=$T/r4q && newrepo "$W"
sh_in "$W" 'git init -q -b main plain && cd plain && git config user.email a@b && echo x > x && git add x && git -c user.name=a commit -qm x; true'
is "$(ls -A "$W/plain/.git" | grep -c pysbx-refused):$($GIT -C "$W/plain" config user.email)" "0:a@b" \
	"a plain repository made during the run (git init, user.email, a commit) is left as it is"
W=$T/r4p && newrepo "$W/a/b/c/d/e/old" && echo '[core]' >>"$W/a/b/c/d/e/old/.git/config" && c0=$(sum "$W/a/b/c/d/e/old/.git/config")
sh_in "$W" '(echo "[core] fsmonitor = x" >> a/b/c/d/e/old/.git/config) 2>/dev/null && echo w:config; true'
is "$out:$(sum "$W/a/b/c/d/e/old/.git/config")" ":$c0" "a repository deeper than the scan's depth that exists at start is protected (config read-only), and left as it is after the run"
# The any-depth search is bounded: a run that makes more than 100,000
# directories fails (its check could not finish), and the next one is
# refused at its start. On a tmpfs: 100,000 directories on a disk take
# minutes to remove.
if SHM=$(mktemp -d /dev/shm/prot.XXXXXX 2>/dev/null); then
W=$SHM/r4x && newrepo "$W"
sh_in "$W" 'for i in $(seq 100 416); do mkdir -p big/d$i && (cd big/d$i && mkdir $(seq -f e%g 100 416)); done; echo made'
[[ $rc == 111 && $out == *made* && $st == *'"what":"unchecked","path":"'"$W"'"'* && $out == *"$W holds more than 100000 directories"* ]] &&
	ok "a run that makes more than 100,000 directories exits 111 and says its check after the run stopped (stderr and status record)" ||
	not_ok "unchecked after the run" "rc $rc" "$out" "$st"
sh_in "$W" 'echo sandbox-ran'
[[ $rc == 111 && $out != *sandbox-ran* && $out == *"unable to protect $W: more than 100000 directories below it"*hint:* ]] &&
	ok "... and the next run is refused at its start (exit 111, with a hint)" || not_ok "refused at start" "rc $rc" "$out"
rm -rf "$SHM"
else
	skip "no /dev/shm to make 100,000 directories in" && skip "no /dev/shm"
fi
# A remote named in .git/remotes/ (config has no origin) at a bare repo the
# sandbox made, with its own pre-receive hook: the host's push runs it.
W=$T/r4b && newrepo "$W" && rm -rf "$W/.git/remotes" "$W/.git/branches"
sh_in "$W" 'git init -q --bare a/b/c/d/e/up.git && printf "%s\n" "$EVIL" > a/b/c/d/e/up.git/hooks/pre-receive &&
chmod +x a/b/c/d/e/up.git/hooks/pre-receive && mkdir -p .git/remotes .git/branches &&
printf "URL: %s\nPush: refs/heads/*:refs/heads/*\n" "$PWD/a/b/c/d/e/up.git" > .git/remotes/origin &&
echo "$PWD/a/b/c/d/e/up.git" > .git/branches/up; true'
rm -f "$PWN"
$GIT -C "$W" push -q origin main >/dev/null 2>&1
$GIT -C "$W" push -q up main >/dev/null 2>&1
is "$(cat "$PWN" 2>/dev/null)" "" "a new .git/remotes/NAME or .git/branches/NAME at a repo with the sandbox's hooks: the host's git push runs nothing the sandbox wrote"
W=$T/r4c && newrepo "$W" && mkdir -p "$W/.git/remotes"
sh_in "$W" '(echo "URL: /x" > .git/remotes/origin) 2>/dev/null && echo w:remote; true'
is "$out:$(ls "$W/.git/remotes")" ":" "an existing .git/remotes/ is read-only"
W=$T/r5 && newrepo "$W" && mkdir -p "$W/.git/modules/sub/hooks" && echo '[core]' >"$W/.git/modules/sub/config"
sh_in "$W" '(printf "%s\n" "$EVIL" > .git/modules/sub/hooks/pre-commit) 2>/dev/null && echo w:hook
(echo "[core] fsmonitor = x" >> .git/modules/sub/config) 2>/dev/null && echo w:config; true'
is "$out:$(cat "$W/.git/modules/sub/config")" ":[core]" ".git/modules/sub/hooks and .git/modules/sub/config are read-only"
W=$T/r6 && newrepo "$W" && mkdir -p "$W/scripts" && printf '#!/bin/sh\nexit 0\n' >"$W/scripts/pre-commit" &&
	chmod +x "$W/scripts/pre-commit" && ln -sf ../../scripts/pre-commit "$W/.git/hooks/pre-commit"
sh_in "$W" 'printf "%s\n" "$EVIL" > scripts/pre-commit; true'
is "$(host_commit "$W")" clean "a hook that is a symlink into the worktree: its target is protected"
W=$T/r7 && newrepo "$W" && mkdir -p "$W/hookdir" && printf '#!/bin/sh\nexit 0\n' >"$W/hookdir/pre-commit" &&
	chmod +x "$W/hookdir/pre-commit" && $GIT -C "$W" config core.hooksPath hookdir
sh_in "$W" 'printf "%s\n" "$EVIL" > hookdir/pre-commit; printf "%s\n" "$EVIL" > hookdir/post-commit; chmod +x hookdir/post-commit; true'
is "$(host_commit "$W")" clean "core.hooksPath=hookdir: the hooks directory it names is protected"
W=$T/r8 && newrepo "$W" && mkdir -p "$W/.husky/_" && $GIT -C "$W" config core.hooksPath .husky/_
sh_in "$W" 'printf "%s\n" "$EVIL" > .husky/_/pre-commit; chmod +x .husky/_/pre-commit; printf "%s\n" "$EVIL" > .husky/pre-commit; true'
is "$(host_commit "$W"):$(ls -A "$W/.husky/_")" "clean:" "core.hooksPath=.husky/_ (husky): no new hook in it"
# red-team F4: hooksPath in a checked-in .gitconfig that config includes,
# and in a file that one includes in turn (relative to the including file).
hookrepo() { newrepo "$1" && mkdir -p "$1/$2" && printf '#!/bin/sh\nexit 0\n' >"$1/$2/pre-commit" && chmod +x "$1/$2/pre-commit"; }
W=$T/r8b && hookrepo "$W" .githooks && printf '[core]\n\thooksPath = .githooks\n' >"$W/.gitconfig" &&
	$GIT -C "$W" config include.path ../.gitconfig
sh_in "$W" 'printf "%s\n" "$EVIL" > .githooks/pre-commit; true'
is "$(host_commit "$W")" clean "core.hooksPath in a .gitconfig that config includes (include.path ../.gitconfig): its hooks dir is protected"
W=$T/r8c && hookrepo "$W" .hk && mkdir -p "$W/conf" && printf '[includeIf "onbranch:main"]\n\tpath = conf/hooks.inc\n' >"$W/.gitconfig" &&
	printf '[core]\n\thooksPath = .hk\n' >"$W/conf/hooks.inc" && $GIT -C "$W" config include.path ../.gitconfig
sh_in "$W" 'printf "%s\n" "$EVIL" > .hk/pre-commit; true'
is "$(host_commit "$W")" clean "... and in a file that one includes in turn (includeIf, relative to the including file)"
# red-team F3: a relative hooksPath with linked worktrees inside the
# workspace: every worktree's hooks dir, whatever order readdir gives (two
# shallow ones: one is always met after the git dir), one deeper than the
# scan (found through worktrees/*/gitdir), and a main worktree deeper than
# the scan (found as the parent of the .git a linked worktree leads to).
hookwt() { # MAIN WT...: a hooksPath repo at MAIN with linked worktrees WT
	local m=$1 t
	shift
	hookrepo "$m" .githooks && $GIT -C "$m" config core.hooksPath .githooks &&
		$GIT -C "$m" add -A && $GIT -C "$m" commit -qm hooks || return
	for t; do $GIT -C "$m" worktree add -q "$t" -b "b${t//\//_}" 2>/dev/null || return; done
}
W=$T/r8d && hookwt "$W" wt2 wt3 d1/d2/d3/d4/d5/wt4 && hookwt "$W/e1/e2/e3/e4/e5/m" "$W/wt5"
wts=". wt2 wt3 d1/d2/d3/d4/d5/wt4 e1/e2/e3/e4/e5/m wt5"
sh_in "$W" 'for d in '"$wts"'; do printf "%s\n" "$EVIL" > $d/.githooks/pre-commit; done 2>/dev/null; true'
got= && for d in $wts; do got+="$d:$(host_commit "$W/$d") "; done
is "$got" "$(for d in $wts; do printf '%s:clean ' "$d"; done)" "core.hooksPath=.githooks with linked worktrees inside: the hooks dir of every worktree is protected"
# A submodule deeper than the scan's depth with a relative hooksPath: its
# worktree is found through its .git file (any depth).
W=$T/r8s && newrepo "$W" && hookrepo "$T/src8s" .githooks && $GIT -C "$T/src8s" add -A && $GIT -C "$T/src8s" commit -qm h &&
	$GIT -C "$W" -c protocol.file.allow=always submodule add -q "$T/src8s" a/b/c/d/e/sub >/dev/null 2>&1 &&
	$GIT -C "$W/a/b/c/d/e/sub" config core.hooksPath .githooks
sh_in "$W" 'printf "%s\n" "$EVIL" > a/b/c/d/e/sub/.githooks/pre-commit; true'
is "$(host_commit "$W/a/b/c/d/e/sub")" clean "a submodule deeper than the scan's depth with core.hooksPath=.githooks: its hooks dir is protected"
W=$T/r8e && newrepo "$W" && printf '[include]\n\tpath = .gitconfig\n\tpath = ./.gitconfig\n' >"$W/.gitconfig" &&
	$GIT -C "$W" config include.path ../.gitconfig
sh_in "$W" 'echo sandbox-ran'
[[ $rc == 111 && $out != *sandbox-ran* && $out == *"more than 64 config files included"* ]] &&
	ok "a config that includes itself twice per level is refused (exit 111), not read 2^10 times" || not_ok "include fan-out refused" "rc $rc: $out"

# --- hard links and files created during the run ---------------------------
W=$T/r9 && mkdir -p "$W" && echo SECRET=1 >"$W/.env" && ln "$W/.env" "$W/notes.txt"
sh_in "$W" 'echo SECRET=evil > notes.txt; true'
is "$(cat "$W/.env")" "SECRET=1" "a hard link of .env made in an earlier run: writing the other name does not change .env"
[[ $rc == 111 && $out == *"unable to protect $W/.env: it has 2 hard links"* && $out == *hint:* ]] &&
	ok "... the run is refused with the path and a hint" || not_ok "... the run is refused with the path and a hint" "rc $rc: $out"
W=$T/r10 && newrepo "$W" && mkdir -p "$W/app"
sh_in "$W" 'printf "%s\n" "$EVIL" > .git/hooks/post-checkout && echo w:hook; echo K=1 > app/.env; echo k > app/new.pem; exit 3'
is "$rc:$([[ -e $W/.git/hooks/post-checkout ]] && echo hook)" "3:" "a new hook during the run is refused (read-only hooks dir); the target's exit code is kept"
[[ $out == *"warning: $W/app/.env was created during the run"* && $out == *"warning: $W/app/new.pem was created during the run"* ]] &&
	ok "a new .env and *.pem created during the run are reported on stderr" || not_ok "new .env and *.pem reported on stderr" "$out"
[[ $st == *'"event":"protect"'*'app/.env'* && $st == *'app/new.pem'* ]] &&
	ok "... and in status records" || not_ok "... and in status records" "$st"

# --- planted symlinks leading out, control bytes in names -----------------
W=$T/r11 && mkdir -p "$W" && ln -s /etc/hostname "$W/.env" && ln -s /nonexistent "$W/secrets"
sh_in "$W" 'echo sandbox-ran'
[[ $rc == 0 && $out == *sandbox-ran* && $out == *".env is a symlink that leads out"* ]] &&
	ok "a planted protected-name symlink leading out no longer stops the run (reported)" || not_ok "a planted symlink leading out" "rc $rc: $out"
ESC=$'\e'
W=$T/r12 && mkdir -p "$W" && ln -s /nonexistent "$W/.env.${ESC}]52;c;cHduZWQ=${ESC}\\x"
sh_in "$W" 'touch ".env.'"$ESC"'[2J"'
[[ $out != *"$ESC"* && $out == *'\x1b]52'* && $out == *'.env.\x1b[2J'* && $st != *"$ESC"* ]] &&
	ok "control bytes in sandbox-chosen names are escaped in every diagnostic" || not_ok "control bytes escaped" "$(printf %q "$out")"
out=$("$B/pysbx" run -p "$P/agent-shell.policy" -D WORKSPACE="$W/x${ESC}[31m" -- /bin/true 2>&1)
[[ $out != *"$ESC"* && $out == *'\x1b[31m'* ]] && ok "... and in a fatal error naming a path" || not_ok "... fatal error escaped" "$(printf %q "$out")"

# --- the git workflow still works inside -----------------------------------
W=$T/r13 && newrepo "$W" && printf '#!/bin/sh\nexit 0\n' >"$W/.git/hooks/pre-commit"
sh_in "$W" 'set -e; echo b >> a.txt; git add a.txt; git commit -qm one; git branch feat; git checkout -q feat
echo c >> a.txt; git stash -q; git stash pop -q; git commit -qam two; git checkout -q main; git merge -q --no-edit feat
git tag v1; git log --oneline | wc -l'
is "$rc:$out" "0:3" "git add/commit/branch/checkout/stash/merge/tag work inside agent-shell"
sh_in "$W" 'git config user.name x'
[[ $rc == 4 && $out == *"Device or resource busy"*"pysbx-mount: warning: "*"read-only in this sandbox"*"refused by the sandbox"* ]] &&
	ok "a refused write on a protected path is named as the sandbox's refusal" || not_ok "sandbox refusal named" "$out"

$GIT -C "$W" branch other
sh_in "$W" 'git branch --set-upstream-to=other 2>/dev/null; echo rc=$?'
[[ $out == "branch 'main' set up to track 'other'."*"rc=0"*"pysbx-mount: warning: $W/.git/config is protected: a command tried to replace it"*"the sandbox refused the write"* &&
	$st == *'"what":"refused","path":"'"$W/.git/config"* ]] &&
	ok "git branch --set-upstream-to says it succeeded: the run says the sandbox refused (stderr and status record)" ||
	not_ok "refusal named although the command exited 0" "$out" "$st"

# A protected directory made by an earlier run, with a second name of a
# file in it elsewhere (a hard link), or a symlink in it to a file
# elsewhere in the workspace: the next run cannot change the protected
# file through either.
W=$T/r4i && newrepo "$W"
sh_in "$W" 'mkdir -p .devcontainer .vscode docs && echo "{}" > .devcontainer/devcontainer.json && ln .devcontainer/devcontainer.json notes.json &&
echo "{}" > docs/tasks.json && ln -s ../docs/tasks.json .vscode/tasks.json; echo rc=$?'
sh_in "$W" 'echo "{\"initializeCommand\":\"x\"}" > notes.json; echo rc=$?'
[[ $rc == 111 && $out == *"unable to protect $W/.devcontainer/devcontainer.json: it has 2 hard links"* && $(cat "$W/.devcontainer/devcontainer.json") == "{}" ]] &&
	ok "a file in a protected directory with a hard link elsewhere (left by an earlier run): the next run stops (111, with a hint) and the file is unchanged" ||
	not_ok "hard link into a protected directory" "$rc" "$out"
rm "$W/notes.json"
sh_in "$W" '(echo "{\"tasks\":1}" > docs/tasks.json) 2>/dev/null; echo rc=$?'
is "$out:$(cat "$W/docs/tasks.json")" "rc=2:{}" "a symlink in a protected directory to a file elsewhere in the workspace (left by an earlier run): its target is read-only in the next run"

# A symlink loop (or one through a directory made unreadable) under a
# protected name, planted by an earlier run, must not stop later runs.
W=$T/r4l && newrepo "$W"
sh_in "$W" 'ln -s .env .env; mkdir -p .vscode z && ln -s loop .vscode/loop && ln -s z/q/r .envrc && chmod 000 z; true'
sh_in "$W" 'echo second'
chmod 755 "$W/z"
[[ $rc == 0 && $out == *"$W/.env is a symlink that cannot be resolved (Symbolic link loop): nothing below the directory to protect; left as it is"*second* &&
	$st == *'"what":"link","path":"'"$W/.vscode/loop"* ]] &&
	ok "a symlink loop under a protected name (and in a protected directory) left by an earlier run: the next run starts and reports it" ||
	not_ok "symlink loop stops later runs" "$rc" "$out" "$st"

# A rebase left in progress with an exec line in its to-do list: the
# host's git rebase --continue would run it.
W=$T/r4t && newrepo "$W" && echo b >>"$W/a.txt" && $GIT -C "$W" commit -qam two
sh_in "$W" 'GIT_SEQUENCE_EDITOR="printf '"'break\\nexec echo todo >>$PWN\\n'"' >" git rebase -i HEAD~1 >/dev/null 2>&1; ls .git/rebase-merge/git-rebase-todo'
rm -f "$PWN"
$GIT -C "$W" rebase --continue >/dev/null 2>&1
[[ $out == *"$W/.git/rebase-merge/git-rebase-todo is a to-do list with exec lines written during the run"* && ! -e $PWN &&
	$st == *'"what":"moved","path":"'"$W/.git/rebase-merge/git-rebase-todo"* ]] &&
	ok "a rebase stopped during the run with an exec line to come: the to-do list is moved aside and reported; the host's git rebase --continue runs nothing" ||
	not_ok "rebase to-do with exec" "$out" "$st" "$(cat "$PWN" 2>/dev/null)"

# --- agent-shell's protected names ------------------------------------------
W=$T/r14 && mkdir -p "$W/.husky" "$W/.devcontainer" "$W/.github" && for f in .envrc .pre-commit-config.yaml .mcp.json AGENTS.md CLAUDE.md .cursorrules .husky/pre-commit .devcontainer/devcontainer.json .github/copilot-instructions.md .npmrc .yarnrc.yml .netrc; do echo orig >"$W/$f"; done
sh_in "$W" 'for f in .envrc .pre-commit-config.yaml .mcp.json AGENTS.md CLAUDE.md .cursorrules .husky/pre-commit .devcontainer/devcontainer.json .github/copilot-instructions.md .npmrc .yarnrc.yml .netrc; do (echo x >> $f) 2>/dev/null && echo "w:$f"; done; echo done'
is "$out:$(cat "$W"/.envrc "$W"/AGENTS.md "$W"/.husky/pre-commit "$W"/.npmrc | tr -d '\n')" "done:origorigorigorig" \
	"agent-shell protects .envrc, .pre-commit-config.yaml, .mcp.json, .husky/, .devcontainer/, agent instruction files, .npmrc, .yarnrc.yml, .netrc"

# --- credential masks --------------------------------------------------------
WW=$T/ww && mkdir -p "$WW/home/dotfiles/ssh" "$WW/bare" && echo k >"$WW/home/dotfiles/ssh/id" && ln -s dotfiles/ssh "$WW/home/.ssh"
echo tok >"$WW/home/.pgpass" && echo h >"$WW/home/.bash_history" && mkdir -p "$WW/home/.config/gh" && echo t >"$WW/home/.config/gh/hosts.yml"
wrun() { out=$("$@" "$B/pysbx" run -p "$P/workspace-write.policy" -D WORKSPACE="$WW" -- /bin/sh -c 'echo ok' 2>&1); rc=$?; }
wrun env -u HOME
is "$rc:$out" "0:ok" "workspace-write with HOME unset runs"
wrun env HOME=/tmp
is "$rc:$out" "0:ok" "workspace-write with HOME=/tmp runs"
wrun env HOME="$WW/bare"
is "$rc:$out:$(ls -A "$WW/bare")" "0:ok:" "workspace-write with a home without ~/.config runs and creates nothing on the host"
out=$("$B/pysbx" run -p "$P/workspace-write.policy" -D WORKSPACE="$WW" -D HOME="$WW/home" -- /bin/sh -c \
	"cat $WW/home/.ssh/id $WW/home/dotfiles/ssh/id $WW/home/.pgpass $WW/home/.bash_history $WW/home/.config/gh/hosts.yml 2>/dev/null; echo rc=\$?" 2>&1)
is "$out" "rc=1" "a masked ~/.ssh that is a symlink (dotfiles/ssh): its target is masked; .pgpass, shell history, gh hosts.yml masked"
[[ -L $WW/home/.ssh && $(cat "$WW/home/dotfiles/ssh/id") == k ]] && ok "... and the host's link and key are untouched" || not_ok "host link/key touched"
out=$("$B/pysbx" policy show "$P/workspace-write.policy" -D WORKSPACE="$WW" -D HOME="$WW/home" 2>&1)
[[ $out == *"mask $WW/home/.ssh"*"a symlink to $WW/home/dotfiles/ssh"* && $out == *"mask $WW/home/.aws"*"missing"* ]] &&
	ok "pysbx policy show says what each mask resolved to" || not_ok "policy show of masks" "$out"
for h in "$T/nohome" /tmp; do
	out=$(env HOME="$h" "$B/pysbx" run -p "$P/workspace-write.policy" -D WORKSPACE="$WW" -- /bin/true 2>&1)
done
[[ ! -e $T/nohome ]] && ok "a HOME that does not exist is not created" || not_ok "HOME created on the host"
