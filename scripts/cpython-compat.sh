#!/usr/bin/env bash
# scripts/cpython-compat.sh - run CPython's regression suite (Debian's
# libpython3.11-testsuite) bare and under policies/python.policy, one
# module at a time, and report what fails only inside the sandbox.
#
#   scripts/cpython-compat.sh [-o DIR] [-t SECS] [-j N]
#                             [-s bare|sandbox|both|report] [--all] [MODULE...]
#
# Both sides run /usr/bin/python3's regrtest on MODULE as the same
# unprivileged uid with the same environment (PATH, HOME, TMPDIR, LANG: the
# policy's); the sandbox side is `pysbx run -p policies/python.policy` as
# shipped, with only TIMEOUT and a kept scratch dir (for the XML) set. Each
# module has its own timeout (-t, default 600 s): a module that hangs is
# recorded as "timeout", not waited for. -j N runs N module runs at once
# (default 1; a module's bare and sandbox runs are queued next to each
# other, so a loaded machine slows both sides alike). MODULEs default to
# the subset below (what agents' scripts use, plus every module the
# sandbox touches: sockets, threads, subprocesses, files, time, users);
# --all runs every test module (431); -s report only prints the report
# of what DIR holds.
# Results go to DIR (default a new /tmp/cpython-compat.*):
# DIR/{bare,sandbox}/MODULE.{xml,log,rc} and DIR/report.txt, the per-module
# table and the list of cases that fail, are skipped or never run only in
# the sandbox. Re-running with the same -o skips modules already done.
#
# As root it copies build/bin and policies/ to a private directory and
# re-runs itself as uid COMPAT_UID (default 43997, outside the 42000-42999
# that test/run.sh takes its private uids from) with no groups: the suite
# must see an ordinary user, as the sandbox's users are.
#
# Not part of ./build.sh test: --all -j 3 took 28 minutes for both sides
# on two cores shared with other builds (docs/COMPAT.md). Needs
# libpython3.11-testsuite (installed with apt-get when run as root).

set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 111
OUT= TMO=600 SIDES=both ALL=0 JOBS=1
MODULES=()
while (($#)); do
	case $1 in
	-o) OUT=$2; shift 2 ;;
	-t) TMO=$2; shift 2 ;;
	-j) JOBS=$2; shift 2 ;;
	-s) SIDES=$2; shift 2 ;;
	--all) ALL=1; shift ;;
	-h|--help) sed -n '2,/^$/s/^# \{0,1\}//p' "$0"; exit 0 ;;
	-*) echo "cpython-compat.sh: fatal: unknown option $1" >&2; exit 100 ;;
	*) MODULES+=("$1"); shift ;;
	esac
done
case $SIDES in bare|sandbox|both|report) ;; *)
	echo "cpython-compat.sh: fatal: -s takes bare, sandbox, both or report" >&2
	exit 100 ;;
esac

PY=/usr/bin/python3
TESTDIR=/usr/lib/python3.11/test
if [[ ! -f $TESTDIR/regrtest.py ]]; then
	if ((EUID == 0)); then
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		    libpython3.11-testsuite >/dev/null || exit 111
	else
		echo "cpython-compat.sh: fatal: $TESTDIR/regrtest.py missing" >&2
		echo "cpython-compat.sh: hint: apt-get install libpython3.11-testsuite" >&2
		exit 111
	fi
fi

[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/cpython-compat.XXXXXX) || exit 111
mkdir -p "$OUT" || exit 111

if ((EUID == 0)) && [[ $SIDES != report ]]; then
	uid=${COMPAT_UID:-43997}
	tree=$(mktemp -d /tmp/cpython-compat-tree.XXXXXX) || exit 111
	mkdir -p "$tree/build" "$tree/scripts"
	cp -a "$ROOT/build/bin" "$tree/build/" && cp -a "$ROOT/policies" "$tree/" &&
	    cp "$0" "$tree/scripts/" || exit 111
	chmod -R go-w "$tree" && chmod 755 "$tree"
	chown -R "$uid:$uid" "$OUT"
	setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all \
	    env -i PATH=/usr/bin:/bin "$tree/scripts/cpython-compat.sh" \
	    -o "$OUT" -t "$TMO" -j "$JOBS" -s "$SIDES" $( ((ALL)) && echo --all) \
	    "${MODULES[@]}"
	rc=$?
	rm -rf "$tree"
	exit $rc
fi

# The default subset: 100 modules.
SUBSET="test_asyncio test_tarfile test_threading test_queue test_importlib
test_logging test_httpservers test_socket test_ssl test_subprocess
test_concurrent_futures test_multiprocessing_fork test_os test_shutil
test_tempfile test_pathlib test_glob test_fileio test_file test_json
test_csv test_sqlite3 test_zipfile test_gzip test_bz2 test_lzma test_zlib
test_hashlib test_hmac test_random test_math test_statistics test_decimal
test_fractions test_datetime test_time test_zoneinfo test_locale
test_calendar test_re test_string test_codecs test_pickle test_copy
test_collections test_functools test_itertools test_dataclasses test_enum
test_typing test_contextlib test_contextlib_async test_argparse
test_configparser test_getpass test_pwd test_grp test_platform
test_sysconfig test_site test_sys test_signal test_select test_selectors
test_socketserver test_urllib test_urllib2 test_urlparse test_email
test_mailbox test_mmap test_resource test_posix test_pty test_fcntl
test_faulthandler test_traceback test_inspect test_unittest test_doctest
test_uuid test_base64 test_struct test_array test_ctypes test_tracemalloc
test_gc test_weakref test_thread test_threadsignals test_threading_local
test_sched test_poll test_epoll test_compileall test_py_compile
test_zipimport test_shlex test_pprint test_heapq test_mimetypes"

# test_asyncio's package imports test_unix_events, whose decorator calls
# socket(AF_UNIX) outside its try at import time: under python.policy the
# whole package would fail to load. Its submodules run one by one instead
# (both sides), so that only the one that needs socket() is lost.
SPLIT="test_asyncio"
# Cases left out on both sides, with the reason (docs/COMPAT.md): under
# python.policy they hang instead of failing. Their server thread dies
# when socket() fails and never sets the event the test waits for without
# a timeout (logging.config.listen(); test_httpservers' TestServerThread;
# test_asyncio.test_streams' drain server; test_xmlrpc's server tests);
# or, in test_multiprocessing_*,
# sending a Connection to a child needs resource_sharer's Listener (a
# socket), the test fails while its daemon child still waits in recv() on
# a pipe the failed test's traceback keeps open, and that child holds the
# resource tracker's pipe, on whose exit the module's teardown waits.
IGNORE=(-i '*.ConfigDictTest.test_listen_*'
	-i '*.WithProcessesTestPicklingConnections.test_access'
	-i '*.WithProcessesTestPicklingConnections.test_pickling'
	-i '*.test_httpservers.BaseHTTPServerTestCase.*'
	-i '*.test_httpservers.RequestHandlerLoggingTestCase.*'
	-i '*.test_httpservers.SimpleHTTPServerTestCase.*'
	-i '*.test_httpservers.CGIHTTPServerTestCase.*'
	-i '*.test_streams.StreamTests.test_drain_raises')
for c in SimpleServerTestCase SimpleServerEncodingTestCase \
    MultiPathServerTestCase KeepaliveServerTestCase1 KeepaliveServerTestCase2 \
    GzipServerTestCase HeadersServerTestCase FailingServerTestCase; do
	IGNORE+=(-i "*.test_xmlrpc.$c.*")
done

if ((${#MODULES[@]} == 0)); then
	if ((ALL)); then
		# Modules are test_*.py files and test_* packages (the
		# directory also holds data files named test_*).
		mapfile -t MODULES < <(cd "$TESTDIR" && ls -d test_*.py test_*/ |
		    sed 's,\.py$,,; s,/$,,' | sort)
	else
		read -r -a MODULES <<<"$(echo $SUBSET)"
	fi
fi

split=()
for m in "${MODULES[@]}"; do
	if [[ " $SPLIT " == *" $m "* && -d $TESTDIR/$m ]]; then
		for f in "$TESTDIR/$m"/test_*.py; do
			f=${f##*/}
			split+=("$m.${f%.py}")
		done
	else
		split+=("$m")
	fi
done
MODULES=("${split[@]}")

ENVV=(PATH=/usr/bin:/bin TMPDIR=/tmp LANG=C.UTF-8)

# regrtest, with one fix to the test support code on both sides:
# socket_helper.skip_unless_bind_unix_socket creates its probe socket
# outside its try, so where socket() is denied the decorator raises at
# import time and takes its whole module down (test_asyncio's submodules,
# test_socket, test_ssl, ...). Here it skips the decorated test instead.
# Bare, socket() works and nothing changes.
REGRTEST="import socket, sys, unittest
from test.support import socket_helper as h
probe = h.skip_unless_bind_unix_socket
def skip_unless_bind_unix_socket(test):
    try:
        socket.socket(socket.AF_UNIX).close()
    except OSError as e:
        return unittest.skip('socket(AF_UNIX): %s' % e)(test)
    return probe(test)
h.skip_unless_bind_unix_socket = skip_unless_bind_unix_socket
from test.libregrtest import main
main()"

run_bare() {	# MODULE DIR
	local home
	home=$(mktemp -d /tmp/cpython-compat-home.XXXXXX) || return
	(cd "$home" && env -i "${ENVV[@]}" HOME="$home" timeout -k 5 "$TMO" \
	    "$PY" -c "$REGRTEST" "$1" "${IGNORE[@]}" --junit-xml "$2/$1.xml" \
	    >"$2/$1.log" 2>&1)
	echo $? >"$2/$1.rc"
	rm -rf "$home"
}

run_sandbox() {	# MODULE DIR
	local ws scratch
	ws=$(mktemp -d /tmp/cpython-compat-ws.XXXXXX) || return
	scratch=$(mktemp -d /tmp/cpython-compat-scratch.XXXXXX) || return
	env -i PATH=/usr/bin:/bin "$ROOT/build/bin/pysbx" run \
	    -p "$ROOT/policies/python.policy" -D WORKSPACE="$ws" \
	    -D SCRATCH_MODE=adopt -D SCRATCH_DIR="$scratch" \
	    -D TIMEOUT="${TMO}s" -- \
	    "$PY" -c "$REGRTEST" "$1" "${IGNORE[@]}" --junit-xml "/scratch/$1.xml" \
	    >"$2/$1.log" 2>&1
	echo $? >"$2/$1.rc"
	[[ -f $scratch/$1.xml ]] && cp "$scratch/$1.xml" "$2/"
	rm -rf "$ws" "$scratch"
}

run_one() {	# SIDE MODULE
	local start=$SECONDS
	"run_$1" "$2" "$OUT/$1"
	printf '%-8s %-28s rc=%-4s %4ss\n' "$1" "$2" \
	    "$(cat "$OUT/$1/$2.rc")" $((SECONDS - start))
}

[[ $SIDES == report ]] || mkdir -p "$OUT/bare" "$OUT/sandbox" || exit 111
for m in "${MODULES[@]}"; do
	for side in bare sandbox; do
		[[ $SIDES == both || $SIDES == "$side" ]] || continue
		[[ -f $OUT/$side/$m.rc ]] && continue
		while (($(jobs -rp | wc -l) >= JOBS)); do
			wait -n
		done
		run_one "$side" "$m" &
	done
done
wait

"$PY" - "$OUT" "${MODULES[@]}" <<'EOF' | tee "$OUT/report.txt"
import collections, os, re, sys, xml.etree.ElementTree as ET

out, mods = sys.argv[1], sys.argv[2:]

# The intended restriction a sandbox-only failure comes from, read from
# its traceback (or, where the traceback does not say, the test's name);
# "unexplained" is what to look at.
REASONS = [
    ("socket() denied (no network, no sockets)",
     re.compile(r"_socket\.socket\.__init__|Can not create socket|"
                r"(server\.sockets|create_server|create_connection|"
                r"getaddrinfo|multiprocessing/(connection|managers|"
                r"forkserver)|Manager\(|[Ll]istener|sl_hdlr).*"
                r"(Operation not permitted|EPERM)|"
                # a manager's server process died at socket(): EOF
                r"multiprocessing/managers\.py\", line \d+, in start\n.*"
                r"EOFError|"
                # asyncio's create_server() passes over a socket() that
                # fails, leaving a server without sockets
                r"(srv|server)\.sockets|srv_socks|"
                # the error expected from bind() came from socket()
                r"already in use\" does not match \"\[Errno 1\]|"
                # logging's syslog handler: socket() failed in setUp
                r"sl_hdlr", re.S),
     # where the traceback does not show it: pydoc's server thread
     # reports only the PermissionError; test_audit's child only exits
     # 1; test_ignore_listener's and test_pickling's child dies at its
     # Listener and the test reads EOF
     re.compile(r"\.PydocServerTest\.|\.AuditTest\.test_socket$|"
                r"\.test_ignore_listener$|PicklingConnections\.test_pickling$")),
    ("read-only /workspace and /usr (EROFS, even to unlink a missing file)",
     re.compile(r"Read-only file system: '/(workspace|usr)"), None),
    ("only the caller's uid and gid exist (user namespace)",
     re.compile(r"set(e|re|res)?[ug]id|initgroups|setgroups|chown|"
                r"(user|group|extra_groups)=", re.S), None),
    ("prlimit() of another process (denied by the filter)",
     re.compile(r"prlimit"), None),
    ("the limits (memory, file size, fds, processes, 64 MiB /tmp)",
     re.compile(r"MemoryError|File too large|Too many open files|"
                r"Resource temporarily unavailable|RLIMIT|fsize|"
                r"No space left on device"), None),
    ("no /etc/shadow (the synthetic /etc)",
     re.compile(r"getspnam|spwd"), None),
]

def cases(side, m):
    p = os.path.join(out, side, m + ".xml")
    res = {}
    try:
        root = ET.parse(p).getroot()
    except (OSError, ET.ParseError):
        return None
    for tc in root.iter("testcase"):
        st, text = "pass", ""
        for child in tc:
            if child.tag in ("failure", "error"):
                st, text = "fail", child.text or child.get("message") or ""
            elif child.tag == "skipped" and st == "pass":
                st, text = "skip", child.text or child.get("message") or ""
        res[tc.get("name") or "(unnamed)"] = (st, text)
    return res

def reason(case, text):
    for name, rx, by_name in REASONS:
        if rx.search(text) or (by_name and by_name.search(case)):
            return name
    return "unexplained"

def rc(side, m):
    try:
        return int(open(os.path.join(out, side, m + ".rc")).read())
    except (OSError, ValueError):
        return None

def status(side, m):
    r = rc(side, m)
    if r is None:
        return "-"
    if r == 124:
        return "timeout"
    return {0: "ok", 2: "fail", 3: "env-changed",
            4: "no-tests"}.get(r, f"rc={r}")

def count(c, k):
    return sum(1 for v in c.values() if v[0] == k)

tot = collections.Counter()
why = collections.Counter()
worse = []
print(f"{'module':40} {'bare':>21} {'sandbox':>21}  sandbox-only")
print(f"{'':40} {'pass/fail/skip status':>21} "
      f"{'pass/fail/skip status':>21}  fail skip never")
for m in mods:
    b, s = cases("bare", m), cases("sandbox", m)

    def fmt(c, side):
        if c is None:
            return f"{'no xml':>14} {status(side, m):>6}"
        return (f"{count(c, 'pass'):>5}/{count(c, 'fail'):>3}/"
                f"{count(c, 'skip'):>3} {status(side, m):>6}")
    bb, ss = b or {}, s or {}
    of = sorted((k, reason(k, v[1])) for k, v in ss.items()
                if v[0] == "fail" and bb.get(k, ("",))[0] != "fail")
    osk = sorted((k, v[1].strip()[:70]) for k, v in ss.items()
                 if v[0] == "skip" and bb.get(k, ("",))[0] == "pass")
    nv = sorted(k for k in bb if k not in ss)
    tot["fail"] += len(of)
    tot["skip"] += len(osk)
    tot["never"] += len(nv)
    tot["cases"] += len(bb)
    for _, r in of:
        why[r] += 1
    print(f"{m:40} {fmt(b, 'bare'):>21} {fmt(s, 'sandbox'):>21}  "
          f"{len(of):>4} {len(osk):>4} {len(nv):>5}")
    if of or osk or nv or status("sandbox", m) != status("bare", m):
        worse.append((m, of, osk, nv))
print()
print(f"{len(mods)} modules, {tot['cases']} cases bare; sandbox only: "
      f"{tot['fail']} fail, {tot['skip']} skipped, {tot['never']} never "
      f"run; {sum(1 for w in worse if w[1] or w[3])} modules with a "
      "sandbox-only failure or unrun case")
for r, n in why.most_common():
    print(f"  {n:5} failures: {r}")
for m, of, osk, nv in worse:
    print(f"\n== {m}: status bare {status('bare', m)}, "
          f"sandbox {status('sandbox', m)}")
    for k, r in of:
        print(f"  FAIL  {k}  [{r}]")
    for k, t in osk:
        print(f"  SKIP  {k}  ({t})")
    if nv:
        print(f"  NEVER RUN: {len(nv)} cases" +
              ("" if len(nv) > 10 else ": " + " ".join(nv)))
EOF
