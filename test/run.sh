#!/usr/bin/env bash
# test/run.sh - run every pysbx test and end with "N passed, N failed".
#
#   test/run.sh [-v] [NAME...]
#
# Runs build/test/unit/* (one per test/unit/*.c), then test/integration/*.sh
# and test/security/*.sh, then test/packaging/*.sh; every test prints TAP. NAME selects the tests whose
# name (e.g. unit/test_tap, integration/harness) contains it. -v shows every
# TAP line; by default only failures, skips, diagnostics and other output
# are shown, plus one summary line per test.
#
# The scripts get, as absolute paths:
#   PYSBX_ROOT      a tree laid out like the repository:
#   PYSBX_BIN       $PYSBX_ROOT/build/bin         the programs
#   PYSBX_PROBE     $PYSBX_ROOT/build/test/probe  the static probes
#   PYSBX_TESTDIR   $PYSBX_ROOT/test              fixtures
#   PYSBX_POLICIES  $PYSBX_ROOT/policies
# and run with that directory as their working directory.
#
# pysbx is setuid-free, so its sandbox tests must run unprivileged. As root,
# this copies the tree above into a fresh directory under /tmp (the checkout
# may sit where other users cannot enter, as CI's does) and runs each script
# through setpriv as uid/gid PYSBX_TEST_UID with no groups, no capabilities
# (the bounding set kept full, as a normal user's is) and a clean
# environment; a script marked "# pysbx-test: root-section" then runs once
# more as root (as NAME_root: its root section). At the end it checks that
# no process of that uid is left over. Otherwise the scripts run directly
# from the checkout.
#
# Unless PYSBX_TEST_UID is given, each run takes a private uid of its own in
# 42000-42999 (no passwd entry, no process of it running, and held by a lock
# under /run/lock for the whole run), so two runs on one machine never count
# each other's processes as leftovers.
#
# test/packaging/*.sh check what is built from the source tree (install,
# man pages, release tarball, image, the suite inside ci.policy): they run
# as the caller, in the checkout, with PYSBX_SRC (the checkout) and, as
# root, PYSBX_TEST_UID and PYSBX_TREE (the copy above) besides the
# variables above; they drop to the test uid themselves for every sandbox
# they start, and skip what needs root when the caller is not.
#
# Environment: PYSBX_TEST_TIMEOUT (seconds per test, default 300),
# PYSBX_TEST_UID, PYSBX_TEST_VERBOSE=1 (same as -v).

# No -e: a failing test is counted, not fatal.
set -uo pipefail

cd "$(dirname "$0")/.." || exit 111
# The tests write policies and expect them to be trusted: a caller's
# umask 002 (Ubuntu, Fedora) would make every one group-writable.
umask 022
ROOT=$PWD
TIMEOUT=${PYSBX_TEST_TIMEOUT:-300}
TEST_UID=${PYSBX_TEST_UID:-}
VERBOSE=${PYSBX_TEST_VERBOSE:-0}

if [[ ${1:-} == -v ]]; then
	VERBOSE=1
	shift
fi
FILTERS=("$@")

passed=0 failed=0 skipped=0
failed_names=()

LOGDIR=$(mktemp -d "${TMPDIR:-/tmp}/pysbx-log.XXXXXX") || exit 111
WORK=
cleanup() {
	rm -rf "$LOGDIR"
	[[ -n $WORK ]] && rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

selected() {
	local f
	((${#FILTERS[@]})) || return 0
	for f in "${FILTERS[@]}"; do
		[[ $1 == *"$f"* ]] && return 0
	done
	return 1
}

# record NAME PASSED FAILED SKIPPED NOTE
record() {
	passed=$((passed + $2))
	failed=$((failed + $3))
	skipped=$((skipped + $4))
	if (($3)); then
		failed_names+=("$1")
		echo "$1: FAILED ($2 passed, $3 failed, $4 skipped)${5:+; $5}"
	else
		echo "$1: ok ($2 passed, $4 skipped)${5:+; $5}"
	fi
}

# run_tap NAME DIR COMMAND...: run COMMAND in DIR under a timeout, echo its
# interesting lines prefixed with NAME, and add its TAP results to the counts.
run_tap() {
	local name=$1 dir=$2 out line rc
	local plan=-1 n=0 p=0 f=0 s=0 bail=0 note="" show
	shift 2
	out=$LOGDIR/out
	# bash's own "Segmentation fault" note is dropped: the summary line
	# reports the signal.
	{
		(cd "$dir" && exec timeout -k 10 "$TIMEOUT" "$@") \
			</dev/null >"$out" 2>&1
		rc=$?
	} 2>/dev/null
	while IFS= read -r line || [[ -n $line ]]; do
		show=1
		if [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
			show=$VERBOSE
			if ((plan == 0)) && [[ $line =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
				s=$((s + 1))
				show=1
			fi
		elif [[ $line =~ ^ok($|[[:space:]]) ]]; then
			n=$((n + 1))
			if [[ $line =~ \#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
				s=$((s + 1))
			else
				p=$((p + 1))
				show=$VERBOSE
			fi
		elif [[ $line =~ ^not\ ok($|[[:space:]]) ]]; then
			n=$((n + 1))
			f=$((f + 1))
		elif [[ $line == "Bail out!"* ]]; then
			bail=1
		fi
		[[ -z $line ]] && show=$VERBOSE
		((show)) && printf '%s: %s\n' "$name" "$line"
	done <"$out"

	# A program that stops early is one more failure, whatever it printed.
	if ((rc == 124 || rc == 137)); then
		note="timed out after ${TIMEOUT}s"
	elif ((bail)); then
		note="bailed out"
	elif ((rc > 128)); then
		note="died: killed by signal $((rc - 128)) after $n tests"
	elif ((plan < 0)); then
		note="died: no plan (exit status $rc)"
	elif ((n != plan)); then
		note="died: planned $plan, ran $n (exit status $rc)"
	elif ((rc != 0 && f == 0)); then
		note="died: exit status $rc with no failed test"
	fi
	[[ -n $note ]] && f=$((f + 1))
	record "$name" "$p" "$f" "$s" "$note"
}

# --- unit tests: as whoever runs this; they do not touch the kernel ---------

for src in test/unit/*.c; do
	[[ -e $src ]] || continue
	t=$(basename "$src" .c)
	name=unit/$t
	selected "$name" || continue
	bin=$ROOT/build/test/unit/$t
	if [[ ! -x $bin ]]; then
		echo "$name: not built ($bin missing: run ./build.sh)"
		record "$name" 0 1 0 "not built"
		continue
	fi
	PYSBX_TESTDIR=$ROOT/test run_tap "$name" "$ROOT" "$bin"
done

# --- integration and security scripts: unprivileged -------------------------

scripts=()
for src in test/integration/*.sh test/security/*.sh; do
	[[ -e $src ]] || continue
	name=${src#test/}
	selected "${name%.sh}" && scripts+=("$src")
done

# Lists the pids whose real or effective uid is $1 (pure bash: /proc/PID
# ownership would hide non-dumpable processes).
pids_of_uid() {
	local st k r e _ pid
	for st in /proc/[0-9]*/status; do
		pid=${st#/proc/}
		pid=${pid%/status}
		while read -r k r e _; do
			if [[ $k == Uid: ]]; then
				[[ $r == "$1" || $e == "$1" ]] && echo "$pid"
				break
			fi
		done 2>/dev/null <"$st"
	done
}

# take_uid: sets TEST_UID to a free uid of 42000-42999 and keeps its lock
# open on fd UID_LOCK until this shell exits.
take_uid() {
	local u k start=$((RANDOM % 1000))
	mkdir -p /run/lock/pysbx-test || return 1
	for ((k = 0; k < 1000; k++)); do
		u=$((42000 + (start + k) % 1000))
		getent passwd "$u" >/dev/null && continue
		exec {UID_LOCK}>"/run/lock/pysbx-test/$u" || return 1
		if flock -n "$UID_LOCK" && [[ -z $(pids_of_uid "$u") ]]; then
			TEST_UID=$u
			return 0
		fi
		exec {UID_LOCK}>&-
	done
	return 1
}

# delegate_cgroup UID: a new cgroup v2 for UID below the root of the
# cgroup v2 mount, path on stdout (nothing when there is none).
delegate_cgroup() {
	local mnt cg
	mnt=$(findmnt -n -t cgroup2 -o TARGET 2>/dev/null | head -1)
	[[ -n $mnt && -w $mnt/cgroup.procs ]] || return 0
	cg=$mnt/pysbx-test-$1-$$
	mkdir "$cg" 2>/dev/null || return 0
	chown "$1:$1" "$cg" "$cg/cgroup.procs" "$cg/cgroup.threads" \
		"$cg/cgroup.subtree_control" || { rmdir "$cg"; return 0; }
	echo "$cg"
}
# undelegate_cgroup CG: remove CG and what the tests left below it (a
# cgroup whose last process has just exited may still be busy a moment).
undelegate_cgroup() {
	local d k
	for ((k = 0; k < 30; k++)); do
		find "$1" -mindepth 1 -depth -type d 2>/dev/null | while read -r d; do
			rmdir "$d" 2>/dev/null
		done
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "run.sh: warning: cgroup $1 left (busy)" >&2
}

pkg_scripts=()
for src in test/packaging/*.sh; do
	[[ -e $src ]] || continue
	name=${src#test/}
	selected "${name%.sh}" && pkg_scripts+=("$src")
done

if ((${#scripts[@]} + ${#pkg_scripts[@]})) && [[ $(id -u) == 0 ]]; then
	if [[ -z $TEST_UID ]] && ! take_uid; then
		echo "run.sh: no free test uid in 42000-42999 (set PYSBX_TEST_UID)" >&2
		exit 111
	fi
	if ! [[ $TEST_UID =~ ^[1-9][0-9]*$ ]]; then
		echo "run.sh: PYSBX_TEST_UID must be a non-zero uid, not '$TEST_UID'" >&2
		exit 100
	fi
	# Under /tmp, not $TMPDIR: it must be reachable by the test uid.
	WORK=$(mktemp -d /tmp/pysbx-test.XXXXXX) || exit 111
	chmod 0755 "$WORK"
	mkdir -p "$WORK/build/test" "$WORK/home"
	# Owned by root and not writable by the test uid: a test must not be
	# able to change the programs or fixtures it checks. Symlinks among
	# the fixtures stay symlinks (cp -R does not follow them).
	[[ -d build/bin ]] && cp -R --preserve=mode,timestamps build/bin "$WORK/build/bin"
	[[ -d build/test/probe ]] && cp -R --preserve=mode,timestamps build/test/probe "$WORK/build/test/probe"
	[[ -d build/policies ]] && cp -R --preserve=mode,timestamps build/policies "$WORK/build/policies"
	# The MCP clients of test/integration/mcp_sdk.sh (./build.sh test).
	[[ -d build/test/mcp-node/node_modules && " ${scripts[*]} " == *mcp_sdk* ]] &&
		cp -R --preserve=mode,timestamps build/test/mcp-node "$WORK/build/test/mcp-node"
	cp -R --preserve=mode,timestamps test "$WORK/test"
	# The docs, for the tests that run their examples as printed.
	cp --preserve=mode,timestamps README.md "$WORK/README.md"
	cp -R --preserve=mode,timestamps docs "$WORK/docs"
	if [[ -d policies ]]; then
		cp -R --preserve=mode,timestamps policies "$WORK/policies"
	fi
	# The benchmark's report writer, for its test (bench_report.sh).
	mkdir -p "$WORK/scripts"
	cp -R --preserve=mode,timestamps scripts/bench "$WORK/scripts/bench"
	cp --preserve=mode,timestamps scripts/session_client.py "$WORK/scripts/"
	chmod -R a+rX,go-w "$WORK/build" "$WORK/test" "$WORK/scripts" \
		"$WORK/README.md" "$WORK/docs"
	[[ -d $WORK/policies ]] && chmod -R a+rX,go-w "$WORK/policies"
	# Another user's directories, which the test uid cannot make:
	# foreign/mine is the test uid's own directory inside one of nobody's;
	# sweep is a sticky directory where nobody planted the lock file of a
	# scratch name (test/security/scratch_owner.sh).
	mkdir -p "$WORK/foreign/mine" "$WORK/sweep"
	: >"$WORK/sweep/pysbx-0123456789abcdef.lock"
	chown 65534:65534 "$WORK/foreign" "$WORK/sweep/pysbx-0123456789abcdef.lock"
	chown "$TEST_UID:$TEST_UID" "$WORK/foreign/mine"
	chmod 0755 "$WORK/foreign"
	chmod 0700 "$WORK/foreign/mine"
	chmod 1777 "$WORK/sweep"
	chmod 0600 "$WORK/sweep/pysbx-0123456789abcdef.lock"
	TREE=$WORK
else
	TREE=$ROOT
fi

i=0
for src in "${scripts[@]}"; do
	name=${src#test/}
	name=${name%.sh}
	vars=(
		PYSBX_ROOT="$TREE"
		PYSBX_BIN="$TREE/build/bin"
		PYSBX_PROBE="$TREE/build/test/probe"
		PYSBX_TESTDIR="$TREE/test"
		PYSBX_POLICIES="$TREE/policies"
	)
	if [[ -n $WORK ]]; then
		# A fresh HOME per script, so that no test sees another's files.
		i=$((i + 1))
		home=$WORK/home/$i
		mkdir -m 0700 "$home"
		chown "$TEST_UID:$TEST_UID" "$home"
		run_tap "$name" "$TREE" \
			setpriv --reuid="$TEST_UID" --regid="$TEST_UID" \
			--clear-groups --inh-caps=-all \
			env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
			"${vars[@]}" bash "$TREE/$src"
		# A script with a root section (what only root can check,
		# such as pysbx-exec dropping capabilities itself) runs once
		# more as root, as NAME_root.
		if grep -q '^# pysbx-test: root-section' "$TREE/$src"; then
			run_tap "${name}_root" "$TREE" \
				env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 \
				PYSBX_TEST_UID="$TEST_UID" "${vars[@]}" bash "$TREE/$src"
		fi
		# A script marked cgroup runs once more as NAME_cgroup, inside
		# a cgroup v2 delegated to the test uid as systemd delegates
		# one (the directory and its cgroup.procs, cgroup.threads and
		# cgroup.subtree_control the uid's), with PYSBX_CGROUP its
		# path; empty where there is no cgroup v2 to delegate.
		if grep -q '^# pysbx-test: cgroup' "$TREE/$src"; then
			cg=$(delegate_cgroup "$TEST_UID")
			run_tap "${name}_cgroup" "$TREE" \
				bash -c '[[ -z $0 ]] || echo $$ >"$0/cgroup.procs" || exit 111; exec "$@"' "$cg" \
				setpriv --reuid="$TEST_UID" --regid="$TEST_UID" \
				--clear-groups --inh-caps=-all \
				env -i PATH=/usr/bin:/bin HOME="$home" LANG=C.UTF-8 \
				PYSBX_CGROUP="$cg" "${vars[@]}" bash "$TREE/$src"
			[[ -n $cg ]] && undelegate_cgroup "$cg"
		fi
	else
		run_tap "$name" "$TREE" env "${vars[@]}" bash "$TREE/$src"
	fi
done

for src in "${pkg_scripts[@]}"; do
	name=${src#test/}
	name=${name%.sh}
	run_tap "$name" "$ROOT" env PYSBX_SRC="$ROOT" PYSBX_TREE="$TREE" \
		PYSBX_TEST_UID="${WORK:+$TEST_UID}" PYSBX_ROOT="$TREE" \
		PYSBX_BIN="$TREE/build/bin" PYSBX_PROBE="$TREE/build/test/probe" \
		PYSBX_TESTDIR="$TREE/test" PYSBX_POLICIES="$TREE/policies" \
		bash "$ROOT/$src"
done

# "Nothing of the sandbox outlives it": with a dedicated uid this is checkable.
if [[ -n $WORK ]]; then
	left=""
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		left=$(pids_of_uid "$TEST_UID")
		[[ -z $left ]] && break
		sleep 0.3
	done
	if [[ -z $left ]]; then
		record "leftovers" 1 0 0 ""
	else
		for pid in $left; do
			echo "leftovers: pid $pid: $(tr '\0' ' ' </proc/"$pid"/cmdline 2>/dev/null)"
			kill -KILL "$pid" 2>/dev/null
		done
		record "leftovers" 0 1 0 "processes of uid $TEST_UID outlived the tests (killed)"
	fi
fi

((${#failed_names[@]})) && echo "failed: ${failed_names[*]}"
summary="$passed passed, $failed failed"
((skipped)) && summary+=", $skipped skipped"
echo "$summary"
((failed == 0))
