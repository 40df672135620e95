#!/usr/bin/env bash
# Compatibility: what users run works under the shipped policies as it
# does bare. Each step runs once bare and once in the sandbox, in the same
# directory with the same environment, and the two outputs must match:
#   - an AI agent's Python script (test/fixtures/compat/agent.py) under
#     python.policy: numpy/pandas/matplotlib/scipy with a PNG into
#     /scratch, asyncio with a subprocess, a 64-thread pool,
#     multiprocessing Pool and Pipe, ssl with the system CAs, local time,
#     services and protocols, root and nobody;
#   - developer commands (git status/commit, grep, make, Node's execSync,
#     npm run) under agent-shell, workspace-write and read-only (there,
#     only the commands that do not write the workspace).
# A step whose tool is not installed skips, naming the package
# (./build.sh test installs them as root).
set -u
B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
PY=/usr/bin/python3
AGENT=${PYSBX_TESTDIR:?}/fixtures/compat/agent.py
T=$(mktemp -d "$HOME/compat.XXXXXX") || exit 111
chmod 0755 "$HOME" "$T"
trap 'chmod -R u+rwX "$T" 2>/dev/null; rm -rf "$T"' EXIT
. "$PYSBX_TESTDIR/lib.sh"

WS=$T/ws
SCR=$T/scratch
TPL=$T/template
ENVV=(PATH=/usr/local/bin:/usr/bin:/bin TMPDIR=/tmp LANG=C.UTF-8)

# The developer workspace: a git repository with a Makefile and a
# package.json, reset from TPL before every run.
mkdir -p "$TPL/src"
printf 'needle one\nhay\n' >"$TPL/src/a.txt"
printf 'hay\nneedle two\n' >"$TPL/src/b.txt"
printf 'all:\n\t@echo made $$(cat src/a.txt | wc -l)\nout.txt: src/a.txt\n\t@cp src/a.txt out.txt && echo built\n' >"$TPL/Makefile"
cat >"$TPL/package.json" <<'EOF'
{ "name": "compat", "version": "1.0.0", "private": true,
  "scripts": {
    "test": "node -e \"process.stdout.write(require('child_process').execSync('echo child').toString())\" && echo npm-test-ok",
    "hello": "echo hello from npm" } }
EOF
have_git=0
if command -v git >/dev/null; then
	have_git=1
	(cd "$TPL" && git init -q && git add -A &&
		git -c user.name=t -c user.email=t@example.com commit -qm init) ||
		exit 111
fi
reset_ws() {
	chmod -R u+rwX "$WS" 2>/dev/null
	rm -rf "$WS" "$SCR" && cp -a "$TPL" "$WS" && mkdir -m 0700 "$SCR"
}

# step DESC POLICY COMMAND: run the shell COMMAND bare, then under POLICY
# (workspace at its own path), each in a fresh copy of the workspace;
# status and output must be the same.
step() {
	local desc=$1 policy=$2 cmd=$3 bare inside
	reset_ws
	bare=$(cd "$WS" && env -i "${ENVV[@]}" HOME="$T" /bin/sh -c "$cmd" 2>&1)
	bare="$?:$bare"
	reset_ws
	inside=$("$B/pysbx" run -p "$P/$policy.policy" -D WORKSPACE="$WS" -- \
		/bin/sh -c "$cmd" 2>&1)
	inside="$?:$inside"
	if [[ $bare == 0:* && $bare == "$inside" ]]; then
		ok "$policy: $desc"
	else
		not_ok "$policy: $desc" "bare:    $bare" "sandbox: $inside"
	fi
}

# pystep STEP: agent.py STEP bare and under python.policy (the script
# read from /workspace, the output dir /scratch, adopted to look at it from
# the host); stdout and status must be the same.
pystep() {
	local bare inside
	reset_ws
	cp "$AGENT" "$WS/agent.py"
	bare=$(cd "$WS" && env -i "${ENVV[@]}" HOME="$SCR" \
		$PY -I -B -u -X utf8 agent.py "$1" "$SCR" 2>"$T/err")
	bare="$?:$bare"
	rm -rf "$SCR" && mkdir -m 0700 "$SCR"
	inside=$("$B/pysbx" run -p "$P/python.policy" -D WORKSPACE="$WS" \
		-D SCRATCH_MODE=adopt -D SCRATCH_DIR="$SCR" -- \
		$PY -I -B -u -X utf8 /workspace/agent.py "$1" /scratch 2>"$T/err")
	inside="$?:$inside"
	if [[ $bare == 0:* && $bare == "$inside" ]]; then
		ok "python: agent step $1 ($inside)"
	else
		not_ok "python: agent step $1" "bare:    $bare" "sandbox: $inside" \
			"stderr:  $(tail -n 3 "$T/err" | tr '\n' '|')"
	fi
}

echo "1..27"

# --- an agent's script under python.policy --------------------------------
if $PY -c 'import numpy, pandas, matplotlib, scipy' 2>/dev/null; then
	pystep data
	[[ $(head -c 4 "$SCR/plot.png" 2>/dev/null | od -An -c | tr -d ' ') == "211PNG" ]] &&
		ok "python: the PNG written to /scratch is on the host" ||
		not_ok "python: the PNG written to /scratch is on the host"
else
	skip "python: agent step data (python3-numpy, -pandas, -matplotlib, -scipy not installed)"
	skip "python: the PNG on the host (no matplotlib)"
fi
for s in asyncio threads pool pipe ssl time names users; do
	pystep "$s"
done

# --- developer commands ---------------------------------------------------
GIT_ID='-c user.name=t -c user.email=t@example.com'
for pol in agent-shell workspace-write read-only; do
	if ((have_git)); then
		if [[ $pol == read-only ]]; then
			step "git status and log" "$pol" 'git status --porcelain; git log --format=%s'
		else
			step "git status and log" "$pol" 'echo x >> src/a.txt; git status --porcelain; git log --format=%s'
		fi
	else
		skip "$pol: git status (git not installed)"
	fi
	step "grep -rn" "$pol" 'grep -rn needle src | sort'
	if [[ $pol == read-only ]]; then
		step "make (no write)" "$pol" 'make -s'
	else
		step "make builds a file" "$pol" 'make -s out.txt && cat out.txt'
		if ((have_git)); then
			step "git commit" "$pol" "echo y >> src/b.txt && git $GIT_ID commit -qam second && git log --format=%s && git status --porcelain"
		else
			skip "$pol: git commit (git not installed)"
		fi
	fi
	if command -v node >/dev/null; then
		step "node child_process (execSync, spawn with pipes)" "$pol" \
			"node -e \"const cp = require('child_process'); process.stdout.write(cp.execSync('echo hi').toString()); const c = cp.spawn('sh', ['-c', 'echo piped']); c.stdout.on('data', d => process.stdout.write(d));\""
	else
		skip "$pol: node child_process (nodejs not installed)"
	fi
	if command -v npm >/dev/null; then
		step "npm test and npm run (scripts spawning children)" "$pol" \
			'npm test --silent && npm run --silent hello'
	else
		skip "$pol: npm run (npm not installed)"
	fi
done
