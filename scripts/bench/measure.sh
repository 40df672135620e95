#!/usr/bin/env bash
# scripts/bench/measure.sh - the measurements of scripts/bench.sh.
#
#   measure.sh TREE RESULTS
#
# Runs as the unprivileged user that owns RESULTS (bench.sh drops to it
# when started as root). TREE is laid out like the repository (build/bin,
# build/test/probe, policies) plus derived/ (scripts/bench/derive.sh's
# variants of python.policy) and ws/ (the static probes); RESULTS
# receives, per group, GROUP.json (hyperfine's export), GROUP.rev.json
# (the same in the opposite order) and GROUP.cmds (name TAB command, in
# order; "FAIL name TAB command TAB why" for a command that did not run),
# plus sizes.txt, rss.txt, strace-*.txt and log.txt. Nothing here is timed by the script itself but the RSS
# sampling: hyperfine does the timing; report.py does the arithmetic.
#
# Environment: BENCH_WARMUP (3), BENCH_RUNS (30), BENCH_LOOP_N (1000000),
# BENCH_BATCH (100), BENCH_PARALLEL (4), BENCH_BATCH_RUNS (5).

set -uo pipefail

TREE=$1
RES=$2
WARMUP=${BENCH_WARMUP:-3}
RUNS=${BENCH_RUNS:-30}
LOOP_N=${BENCH_LOOP_N:-1000000}
BATCH=${BENCH_BATCH:-100}
PAR=${BENCH_PARALLEL:-4}
BATCH_RUNS=${BENCH_BATCH_RUNS:-5}

BIN=$TREE/build/bin
PROBE=$TREE/build/test/probe
WS=$TREE/ws
POL=$TREE/policies/python.policy
POL_NONET=$TREE/derived/python-nonet.policy
POL_HOST=$TREE/derived/python-host.policy
SCR=$RES/scratch
ETC=$RES/etc
FILTER=$RES/python.bpf
T=/workspace/bench_true
LOG=$RES/log.txt

exec 3>>"$LOG"
log() { printf '%s\n' "$*" >&3; }

mkdir -p "$SCR" "$ETC"

have() { [[ -x $BIN/$1 ]]; }

# python.policy's /etc as pysbx resolves it (`policy show`: its `file`,
# `ro-bind-try` and `symlink` lines below /etc), given to bwrap and the
# reference program too, so that all three build the same view: the
# `file` contents written to $ETC for bwrap's --file and bench_ref's -w,
# the host files and directories bound read-only where they exist
# (--ro-bind-try, -b), the links (--symlink, -l).
ETC_BW="" ETC_FDS="" ETC_REF="" fd=4
if have pysbx && "$BIN/pysbx" policy show "$POL" -D WORKSPACE="$WS" \
	>"$RES/policy-show.txt" 2>>"$LOG"; then
	while IFS= read -r line; do
		read -r kind a b <<<"$line"
		case $kind in
		file)
			# sh takes one-digit fds: 3 is the filter's, 4-9 these.
			[[ $a == /etc/* && $b == \"*\" ]] || continue
			((fd <= 9)) || { log "etc: $a left out for bwrap (no fd left)"; continue; }
			b=${b#\"}
			printf '%b' "${b%\"}" >"$ETC/${a#/etc/}"
			ETC_BW+=" --file $fd $a" ETC_FDS+=" $fd<$ETC/${a#/etc/}"
			ETC_REF+=" -w $a=$ETC/${a#/etc/}"
			fd=$((fd + 1)) ;;
		ro-bind-try)
			[[ $b == /etc/* && $a == "$b" ]] || continue
			ETC_BW+=" --ro-bind-try $a $b" ETC_REF+=" -b $a" ;;
		symlink)
			[[ $b == /etc/* ]] || continue
			ETC_BW+=" --symlink $a $b" ETC_REF+=" -l $a=$b" ;;
		esac
	done <"$RES/policy-show.txt"
fi
if [[ -z $ETC_FDS ]]; then
	log "etc: pysbx policy show gave no /etc files: bwrap and bench_ref get the four defaults"
	printf 'sandbox:x:%s:%s:sandbox:/scratch:/usr/sbin/nologin\n' "$(id -u)" "$(id -g)" >"$ETC/passwd"
	printf 'sandbox:x:%s:\n' "$(id -g)" >"$ETC/group"
	printf '127.0.0.1 localhost\n::1 localhost\n' >"$ETC/hosts"
	printf 'sandbox\n' >"$ETC/hostname"
	ETC_BW=" --file 4 /etc/passwd --file 5 /etc/group --file 6 /etc/hosts --file 7 /etc/hostname"
	ETC_FDS=" 4<$ETC/passwd 5<$ETC/group 6<$ETC/hosts 7<$ETC/hostname"
	ETC_REF=""
fi
printf '%s\n' "$ETC_BW" >"$RES/etc-bwrap.txt"

# The filter bwrap gets: exactly what pysbx-seccomp compiles from the
# policy (the same rules, the same libseccomp).
bwrap_seccomp=""
if have pysbx-seccomp &&
	"$BIN/pysbx-seccomp" -p "$POL" -D WORKSPACE="$WS" --export "$FILTER" 2>>"$LOG"; then
	bwrap_seccomp="--seccomp 3"
	log "filter: exported $(stat -c %s "$FILTER") bytes to $FILTER"
else
	echo "NOFILTER" >"$RES/nofilter"
	log "filter: pysbx-seccomp --export failed: bwrap runs without a filter"
fi
bwrap_fds="3<$FILTER$ETC_FDS"
[[ -z $bwrap_seccomp ]] && bwrap_fds="${ETC_FDS# }"

disable_userns=""
bwrap --help 2>&1 | grep -q -- --disable-userns && disable_userns="--disable-userns"

# bwrap with python.policy's namespaces, mounts, process state and filter.
# $1: "net" to add the net namespace. The target and its arguments follow.
bwrap_cmd() {
	local net=""
	[[ $1 == net ]] && net="--unshare-net"
	shift
	echo "bwrap --unshare-user --unshare-ipc --unshare-pid --unshare-uts $net" \
		"--hostname sandbox $disable_userns --new-session --die-with-parent" \
		"--cap-drop ALL --clearenv --setenv PATH /usr/bin:/bin" \
		"--setenv HOME /scratch --setenv TMPDIR /tmp --setenv LANG C.UTF-8" \
		"--ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/sbin /sbin" \
		"--symlink usr/lib /lib --symlink usr/lib64 /lib64 --proc /proc" \
		"--dev /dev --size 67108864 --perms 1777 --tmpfs /tmp" \
		"--ro-bind $WS /workspace --bind $SCR /scratch$ETC_BW" \
		"--chdir /workspace $bwrap_seccomp" \
		"-- $* $bwrap_fds"
}
pysbx_cmd() { # POLICY TARGET [ARG]...
	local p=$1
	shift
	echo "$BIN/pysbx run -p $p -D WORKSPACE=$WS -- $*"
}

# bench GROUP HYPERFINE_OPTS NAME CMD [NAME CMD]...
# Runs each command once (its exit status must be 0), then times those
# that ran with hyperfine in one invocation.
bench() {
	local group=$1 opts=$2 name cmd err args=()
	shift 2
	: >"$RES/$group.cmds"
	while (($#)); do
		name=$1 cmd=$2
		shift 2
		if err=$(sh -c "$cmd" 2>&1 </dev/null); then
			printf '%s\t%s\n' "$name" "$cmd" >>"$RES/$group.cmds"
			args+=(-n "$name" "$cmd")
		else
			err=$(printf '%s' "exit $?: $err" | tr '\n\t' '  ' | cut -c1-400)
			printf 'FAIL %s\t%s\t%s\n' "$name" "$cmd" "$err" >>"$RES/$group.cmds"
			log "$group: $name failed: $err"
		fi
	done
	((${#args[@]})) || return 0
	echo "bench: $group (${#args[@]} args)" >&2
	# shellcheck disable=SC2086 # opts is a word list
	hyperfine --style basic $opts --export-json "$RES/$group.json" \
		"${args[@]}" >>"$LOG" 2>&1 ||
		log "$group: hyperfine failed"
	# hyperfine times one command after the other: whatever the machine
	# does meanwhile (a net namespace's deferred teardown from the command
	# before) lands on one of them. With REVERSE=1 the group runs a second
	# time in the opposite order; report.py pools both runs' times.
	if [[ ${REVERSE:-0} == 1 ]]; then
		local rev=() i
		for ((i = ${#args[@]} - 3; i >= 0; i -= 3)); do
			rev+=("${args[i]}" "${args[i + 1]}" "${args[i + 2]}")
		done
		hyperfine --style basic $opts --export-json "$RES/$group.rev.json" \
			"${rev[@]}" >>"$LOG" 2>&1 ||
			log "$group: hyperfine (reversed) failed"
	fi
}

STD="--warmup $WARMUP --runs $RUNS"

# Policy variables: the workspace; with AD, the scratch directory adopted
# ($SCR, the one bwrap binds) instead of created. Standalone steps have no
# guard to create one: they always adopt.
HD="-D WORKSPACE=$WS"
AD="-D WORKSPACE=$WS -D SCRATCH_MODE=adopt -D SCRATCH_DIR=$SCR"

# 0. The headline: pysbx against bwrap with the same view (the rows
# "pysbx, net ns" and "bwrap, net ns" below), alternated pair by pair
# by ab.py, which times each run and sums the CPU of its whole tree: on
# the machine as it is, then with one busy loop per CPU beside it.
AB_PAIRS=${BENCH_AB_PAIRS:-40}
for ab in "ab:0" "ab-load:$(nproc)"; do
	echo "bench: ${ab%%:*}" >&2
	/usr/bin/python3 "$(dirname "$0")/ab.py" --pairs "$AB_PAIRS" \
		--load "${ab#*:}" --json "$RES/${ab%%:*}.json" \
		"pysbx" "$(pysbx_cmd "$POL" $T)" "bwrap" "$(bwrap_cmd net $T)" \
		2>>"$LOG" || log "${ab%%:*}: ab.py failed"
done

# 1. start-up, static true, with and without the net namespace (both
# orders: the headline ratios). "scratch adopted": pysbx binding the
# directory bwrap binds instead of making and removing one per run (like
# for like; the headline keeps python.policy's default). "reference +
# three exec hops" is the floor of the chain's design on this machine:
# the single program's setup plus the three execs the chain adds
# (pysbx-mount, pysbx-exec, pysbx-seccomp), with no work in them, no
# guard and no filter.
HOPS3="$PROBE/bench_hop $PROBE/bench_hop $PROBE/bench_hop"
# The reference program with python.policy's /etc (-n: no net namespace).
REF="$PROBE/bench_ref${ETC_REF}"
REF_N="$PROBE/bench_ref -n${ETC_REF}"
# The floor with the steps' duties: what no implementation of this design
# can skip, done with nothing else. The first hop is a guard
# (test/probe/bench_guard.c) that makes a fresh scratch dir under /tmp
# (where python.policy makes its own), runs the rest in a child ("{}"
# becomes the dir's path), waits for it and removes the dir; the reference
# loads the exported filter just before the target's exec (the kernel's
# share of the seccomp step; compiling it can be skipped, loading it not).
# With PARENT "-" and SCRATCH $SCR, the scratch dir adopted: the floor of
# the like-for-like row.
DUTY_F=""
[[ -z $bwrap_seccomp ]] || DUTY_F="-f $FILTER"
duties() { # PARENT SCRATCH NET_FLAG TARGET...
	local parent=$1 scratch=$2 n=$3
	shift 3
	echo "$PROBE/bench_guard $parent $PROBE/bench_hop $PROBE/bench_hop $PROBE/bench_ref $n $DUTY_F$ETC_REF $WS $scratch $*"
}
REVERSE=1 bench startup "$STD" \
	"static true (bare)" "$PROBE/bench_true" \
	"pysbx, net ns" "$(pysbx_cmd "$POL" $T)" \
	"bwrap, net ns" "$(bwrap_cmd net $T)" \
	"pysbx, net ns, scratch adopted" "$BIN/pysbx run -p $POL $AD -- $T" \
	"pysbx, no net ns" "$(pysbx_cmd "$POL_NONET" $T)" \
	"bwrap, no net ns" "$(bwrap_cmd nonet $T)" \
	"reference program, net ns" "$REF $WS $SCR $T" \
	"reference program, no net ns" "$REF_N $WS $SCR $T" \
	"reference + three exec hops, net ns" "$HOPS3 $REF $WS $SCR $T" \
	"reference + three exec hops, no net ns" "$HOPS3 $REF_N $WS $SCR $T" \
	"floor with the steps' duties, net ns" "$(duties /tmp {} "" $T)" \
	"floor with the steps' duties, no net ns" "$(duties /tmp {} -n $T)" \
	"floor with the steps' duties, scratch adopted, net ns" "$(duties - "$SCR" "" $T)"

# 2. python3 -I -S -c pass
PY="/usr/bin/python3 -I -S -c pass"
REVERSE=1 bench python "$STD" \
	"python3 (bare)" "$PY" \
	"pysbx + python3" "$(pysbx_cmd "$POL" "$PY")" \
	"bwrap + python3" "$(bwrap_cmd net "$PY")" \
	"reference + three exec hops + python3" "$HOPS3 $REF $WS $SCR $PY" \
	"floor with the steps' duties + python3" "$(duties /tmp {} "" "$PY")"

# 3. each step alone, and the chain minus steps (a step's cost is a
# difference of two rows: both orders, so that drift lands on neither).
REVERSE=1 bench steps "$STD" \
	"static true (bare)" "$PROBE/bench_true" \
	"one exec hop + true" "$PROBE/bench_hop $PROBE/bench_true" \
	"four exec hops + true" "$PROBE/bench_hop $PROBE/bench_hop $PROBE/bench_hop $PROBE/bench_hop $PROBE/bench_true" \
	"pysbx-clean alone" "$BIN/pysbx-clean -- $PROBE/bench_true" \
	"the guard's duties alone (bench_guard)" "$PROBE/bench_guard /tmp $PROBE/bench_true" \
	"the seccomp step's duty alone (bench_filter)" "$PROBE/bench_filter $FILTER $PROBE/bench_true" \
	"pysbx-exec alone" "$BIN/pysbx-exec --partial -p $POL_HOST $AD -- $PROBE/bench_true" \
	"pysbx-seccomp alone" "$BIN/pysbx-seccomp --partial -p $POL $AD -- $PROBE/bench_true" \
	"pysbx-seccomp --export only" "$BIN/pysbx-seccomp -p $POL $AD --export /dev/null" \
	"pysbx-mount alone" "$BIN/pysbx-mount --partial -p $POL $AD -- $T" \
	"pysbx-mount alone, no net ns" "$BIN/pysbx-mount --partial -p $POL_NONET $AD -- $T" \
	"pysbx-landlock alone (workspace-write.policy, host paths)" "$BIN/pysbx-landlock --partial -p $TREE/policies/workspace-write.policy -D WORKSPACE=$WS -- $PROBE/bench_true" \
	"pysbx policy show" "$BIN/pysbx policy show $POL $HD >/dev/null"

# A step, or a chain missing steps, runs python.policy only with --partial
# (it says the rest of the policy is applied elsewhere): without it, it
# refuses a policy it would apply only in part.
# The chain rows use the policy without a net namespace: a net namespace's
# creation and (asynchronous) teardown add milliseconds of variance that
# would drown the cost of one execve.
# The scratch directory's filesystem matters (an ext4 mkdir and the
# eviction of the removed directory against a tmpfs's): where /dev/shm is
# a tmpfs the user may write, the run once more with the scratch there.
SHM_ROW=()
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs && -w /dev/shm ]]; then
	SHM_ROW=("run, scratch created on a tmpfs (/dev/shm)"
		"$BIN/pysbx run -p $POL_NONET $HD -D SCRATCH_DIR=/dev/shm -- $T")
fi
REVERSE=1 bench chain "$STD" \
	"run: front+clean+mount+exec+seccomp" "$(pysbx_cmd "$POL_NONET" $T)" \
	"run, scratch adopted (not created)" "$BIN/pysbx run -p $POL_NONET $AD -- $T" \
	"clean+mount+exec+seccomp" "$BIN/pysbx-clean -p $POL_NONET $HD -- $BIN/pysbx-mount -- $BIN/pysbx-exec -- $BIN/pysbx-seccomp -- $T" \
	"clean+mount+exec+landlock+seccomp" "$BIN/pysbx-clean -p $POL_NONET $HD -- $BIN/pysbx-mount -- $BIN/pysbx-exec -- $BIN/pysbx-landlock --paths inside -- $BIN/pysbx-seccomp -- $T" \
	"clean+mount+exec" "$BIN/pysbx-clean --partial -p $POL_NONET $HD -- $BIN/pysbx-mount -- $BIN/pysbx-exec -- $T" \
	"clean+mount+seccomp" "$BIN/pysbx-clean --partial -p $POL_NONET $HD -- $BIN/pysbx-mount -- $BIN/pysbx-seccomp -- $T" \
	"clean+mount" "$BIN/pysbx-clean --partial -p $POL_NONET $HD -- $BIN/pysbx-mount -- $T" \
	"mount+exec+seccomp" "$BIN/pysbx-mount --partial -p $POL_NONET $AD -- $BIN/pysbx-exec -- $BIN/pysbx-seccomp -- $T" \
	"${SHM_ROW[@]}"

# 4. syscall overhead of the filter. Seconds per run: a neighbour's burst
# on the shared host would land on one command only (seen: 1.17x in one
# run, 1.02-1.04x in the runs around it), hence both orders.
REVERSE=1 bench loop "--warmup 1 --runs ${BENCH_LOOP_RUNS:-5}" \
	"bench_loop $LOOP_N (no filter)" "$PROBE/bench_loop $LOOP_N" \
	"bench_loop $LOOP_N under python.policy's filter" "$BIN/pysbx-seccomp --partial -p $POL $AD -- $PROBE/bench_loop $LOOP_N"

# 5. throughput: BATCH sandboxes, PAR at a time. Both through sh -c (bwrap
# needs it for its fds), so both pay the same extra exec. The reference
# program's batch is the best a launcher doing this setup can reach here;
# the static true's, at PAR and at 1, what running PAR at a time costs
# this machine for any process at all.
q() { printf "'%s'" "$1"; }
REVERSE=1 bench batch "--warmup 1 --runs $BATCH_RUNS" \
	"pysbx x$BATCH, -P$PAR" "seq $BATCH | xargs -P$PAR -I{} sh -c $(q "exec $(pysbx_cmd "$POL" $T)")" \
	"bwrap x$BATCH, -P$PAR" "seq $BATCH | xargs -P$PAR -I{} sh -c $(q "exec $(bwrap_cmd net $T)")" \
	"reference program x$BATCH, -P$PAR" "seq $BATCH | xargs -P$PAR -I{} sh -c $(q "exec $REF $WS $SCR $T")" \
	"static true x$BATCH, -P$PAR" "seq $BATCH | xargs -P$PAR -I{} sh -c $(q "exec $PROBE/bench_true")" \
	"static true x$BATCH, -P1" "seq $BATCH | xargs -P1 -I{} sh -c $(q "exec $PROBE/bench_true")"

# 6. sizes and resident memory
: >"$RES/sizes.txt"
for f in "$BIN"/* "$PROBE"/bench_*; do
	[[ -f $f ]] && printf '%s\t%s\n' "$(basename "$f")" "$(stat -c %s "$f")" >>"$RES/sizes.txt"
done
printf 'bwrap\t%s\n' "$(stat -c %s "$(command -v bwrap)")" >>"$RES/sizes.txt"

# The children of $1 (by ppid, from /proc/*/stat; comm may hold spaces).
children_of() {
	local want=$1 st line rest pid fields
	for st in /proc/[0-9]*/stat; do
		{ line=$(<"$st"); } 2>/dev/null || continue
		rest=${line##*) }
		read -ra fields <<<"$rest"
		if [[ ${fields[1]} == "$want" ]]; then
			pid=${st#/proc/}
			echo "${pid%/stat}"
		fi
	done
}
mem() { # ROLE PID
	local hwm rss anon file comm
	comm=$(<"/proc/$2/comm") 2>/dev/null || comm="?"
	hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$2/status" 2>/dev/null)
	rss=$(awk '/^VmRSS/ {print $2}' "/proc/$2/status" 2>/dev/null)
	anon=$(awk '/^RssAnon/ {print $2}' "/proc/$2/status" 2>/dev/null)
	file=$(awk '/^RssFile/ {print $2}' "/proc/$2/status" 2>/dev/null)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$comm" "${hwm:-?}" \
		"${rss:-?}" "${anon:-?}" "${file:-?}" >>"$RES/rss.txt"
}
: >"$RES/rss.txt"
if have pysbx && have pysbx-clean && have pysbx-mount; then
	RSS_CMD="$(pysbx_cmd "$POL" /usr/bin/sleep 2)"
	printf 'cmd\t%s\n' "$RSS_CMD" >>"$RES/rss.txt"
	$RSS_CMD </dev/null >/dev/null 2>>"$LOG" &
	guard=$!
	sleep 1
	monitor=$(children_of "$guard" | head -1)
	pid1=${monitor:+$(children_of "$monitor" | head -1)}
	target=${pid1:+$(children_of "$pid1" | head -1)}
	mem guard "$guard"
	[[ -n $monitor ]] && mem monitor "$monitor"
	[[ -n $pid1 ]] && mem pid1 "$pid1"
	[[ -n $target ]] && mem target "$target"
	wait "$guard"
	printf 'status\t%s\n' "$?" >>"$RES/rss.txt"
	# The guard as its own program (the front door's code not mapped).
	CLEAN_CMD="$BIN/pysbx-clean -p $POL -D WORKSPACE=$WS -- $BIN/pysbx-mount -- $BIN/pysbx-exec -- $BIN/pysbx-seccomp -- /usr/bin/sleep 2"
	printf 'cmd_clean\t%s\n' "$CLEAN_CMD" >>"$RES/rss.txt"
	$CLEAN_CMD </dev/null >/dev/null 2>>"$LOG" &
	guard=$!
	sleep 1
	mem guard_clean "$guard"
	wait "$guard"
fi

# pysbx session (issue 24): warm round trip, cold first execute against
# bare python3 and pysbx run of it, RSS, idle CPU (report.py's section 7).
if have pysbx && [[ -x /usr/bin/python3 ]]; then
	log "session: scripts/bench/session.py"
	/usr/bin/python3 "$(dirname "$0")/session.py" --json "$RES/session.json" \
		"$BIN" "$WS" >>"$LOG" 2>&1 ||
		log "session: scripts/bench/session.py failed (no section 7)"
fi

# Where the time goes: one run under strace (as this user).
if command -v strace >/dev/null && have pysbx; then
	SCMD=$(pysbx_cmd "$POL" $T)
	printf '%s\n' "$SCMD" >"$RES/strace-cmd.txt"
	strace -f -c -S time -o "$RES/strace-c.txt" $SCMD </dev/null >/dev/null 2>>"$LOG"
	strace -f -T -tt -o "$RES/strace-T.txt" $SCMD </dev/null >/dev/null 2>>"$LOG"
	strace -f -c -S time -o "$RES/strace-c-bwrap.txt" sh -c "exec $(bwrap_cmd net $T)" </dev/null >/dev/null 2>>"$LOG"
	# bwrap alone (the shell that opens its fds is not traced).
	sh -c "exec strace -f -c -o $RES/strace-c-bwrap-only.txt $(bwrap_cmd net $T)" </dev/null >/dev/null 2>>"$LOG"
fi
exit 0
