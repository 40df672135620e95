#!/usr/bin/env bash
# landlock_podman.sh - Landlock-only mode where users run pysbx today: in
# a container under the runtime's *default* seccomp profile and masked
# /proc, as a non-root container user. The image of scripts/oci-image.sh
# (no shell, no libc: the checks are test/probe/llc_probe, static, in a
# volume) runs under Debian's podman with runc, --user 1000 and the
# ulimits this machine needs. There, a fresh procfs and sethostname are
# refused: agent-shell (with -D LANDLOCK_ONLY=allow), workspace-write and
# read-only run in Landlock-only mode, and llc_probe checks from inside
# that a write outside the workspace, a TCP connect to a listening
# loopback port and a signal to a process outside the sandbox fail, and
# from outside (in the container, after the run) that the process lives,
# the daemon the run left is gone and nothing was written. `pysbx check
# --json` says which mode each shipped policy runs in there.
. "$PYSBX_SRC/test/packaging/common.inc"

if ! is_root; then
	echo "1..0 # SKIP needs root (podman's storage)"
	exit 0
fi
for p in podman runc; do
	if ! command -v "$p" >/dev/null; then
		echo "1..0 # SKIP $p is not installed (apt-get install podman runc; ./build.sh test does it as root)"
		exit 0
	fi
done
echo "1..9"

scratch_dir T
TAG=localhost/pysbx-lltest:run$$
export SOURCE_DATE_EPOCH=1764547200
"$SRC/scripts/oci-image.sh" -t "$TAG" "$T/img.tar" >"$T/build.log" 2>&1 ||
	{ not_ok "oci-image.sh" "$(cat "$T/build.log")"; exit 0; }
P=(podman --runtime runc)
"${P[@]}" load -q -i "$T/img.tar" >"$T/load.log" 2>&1
okrc $? "podman load -i the oci-archive ($(tail -n 1 "$T/load.log"))"
trap '"${P[@]}" rmi -f "$TAG" >/dev/null 2>&1; cleanup_scratches' EXIT

# The volume: the probe in the workspace (executable there under every
# policy), a directory outside it that uid 1000 may write.
V=$T/vol
mkdir -p "$V/ws" "$V/out"
cp "$PYSBX_PROBE/llc_probe" "$V/ws/"
chown -R 1000:1000 "$V"
RUN=("${P[@]}" run --rm --network none --user 1000
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024 -v "$V:/t")

out=$("${RUN[@]}" "$TAG" check --json 2>&1)
modes=$(sed -n 's/^{"policy":"\([^"]*\)","mode":"\([^"]*\)".*/\1 \2/p' <<<"$out" | tr '\n' ' ')
is "$modes" "agent-shell refused ci refused minimal refused python refused read-only landlock-only workspace-write landlock-only " \
	"pysbx check --json inside: workspace-write and read-only run Landlock-only, the others are refused"
if [[ $out == *'"policy":"agent-shell","mode":"refused","reason":"namespaces are refused here ('*') and the policy does not permit Landlock-only mode"}'* ]]; then
	ok "and says why agent-shell is refused by default"
else
	not_ok "and says why agent-shell is refused by default" "$out"
fi

WANT="write outside the workspace: EACCES
TCP connect to the loopback listener: EPERM
signal to a process outside: EPERM
daemon started: yes
outer: the victim lives
outer: the daemon is gone
outer: nothing was made outside"
for pol in "agent-shell -D LANDLOCK_ONLY=allow" workspace-write read-only; do
	# shellcheck disable=SC2086 # the policy's words are wanted
	out=$("${RUN[@]}" --entrypoint /t/ws/llc_probe "$TAG" outer /t/ws \
		/t/out/planted /usr/local/bin/pysbx -p $pol -D WORKSPACE=/t/ws 2>"$T/err")
	rc=$?
	mode=$(grep -c '^pysbx: Landlock-only mode: namespaces are refused here' "$T/err")
	is "$rc:$mode:$out" "0:1:$WANT" \
		"podman, default profile, --user 1000: pysbx run -p ${pol%% *} runs Landlock-only; writes outside, TCP to loopback, signals outside fail; nothing survives"
done
is "$(ls -A "$V/out")" "" "nothing was written outside the workspace (checked on the host)"

out=$("${RUN[@]}" --entrypoint /t/ws/llc_probe "$TAG" outer /t/ws /t/out/planted \
	/usr/local/bin/pysbx -p agent-shell -D WORKSPACE=/t/ws 2>&1)
rc=$?
if [[ $out == *"pysbx: hint: /usr/local/share/pysbx/policies/agent-shell.policy does not permit Landlock-only mode"* && $out != *"write outside"* ]]; then
	ok "agent-shell without -D LANDLOCK_ONLY=allow: refused with the hint, nothing ran (exit $rc)"
else
	not_ok "agent-shell without -D LANDLOCK_ONLY=allow: refused with the hint, nothing ran" "rc $rc: $out"
fi
out=$("${RUN[@]}" "$TAG" run -p minimal -D PROG=/usr/local/bin/pysbx-exec -- /prog --version 2>&1)
is "$?" 111 "minimal.policy does not permit it: 111, as before"
