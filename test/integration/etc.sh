#!/usr/bin/env bash
# What /etc the shipped policies show, and the identities they give:
# python.policy's curated list (never the host's accounts, shadow or
# private keys), its synthetic passwd/group with root and nobody, local
# time; ci.policy's own `ci` user over the host's /etc, read-only, the
# host's files untouched.
set -u
B=${PYSBX_BIN:?}
P=${PYSBX_POLICIES:?}
PY=/usr/bin/python3
T=$(mktemp -d "$HOME/etc.XXXXXX") || exit 111
chmod 0755 "$HOME" "$T"
trap 'rm -rf "$T"' EXIT
WS=$T/ws
mkdir "$WS"
. "${PYSBX_TESTDIR:?}/lib.sh"
run() { out=$("$B/pysbx" run -p "$@" 2>&1); rc=$?; }

if [[ ! -x $PY ]]; then echo "1..0 # SKIP $PY is missing"; exit 0; fi
echo "1..11"

# --- python.policy --------------------------------------------------------
run "$P/python.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import os
print(" ".join(sorted(os.listdir("/etc"))))
print(" ".join(sorted(os.listdir("/etc/ssl"))))'
is "$rc:$out" "0:alternatives ca-certificates.conf fonts group hostname hosts ld.so.cache localtime matplotlibrc mime.types nsswitch.conf os-release passwd protocols python3 python3.11 services ssl timezone
certs openssl.cnf" "python: /etc holds the curated list only (no shadow, no ssl/private, no host config)"
# (a name missing on this host, e.g. /etc/timezone, is skipped by -try:
# the list above is Debian 12's)

run "$P/python.policy" -D WORKSPACE="$WS" -- /bin/cat /etc/passwd /etc/group
is "$rc:$out" "0:root:x:0:0:root:/root:/usr/sbin/nologin
sandbox:x:$(id -u):$(id -g):sandbox:/scratch:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
root:x:0:
sandbox:x:$(id -g):
nogroup:x:65534:" "python: passwd and group are synthetic: root, the caller as sandbox, nobody"

run "$P/python.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import getpass, grp, os, pwd, tarfile, io
t = tarfile.TarInfo("f"); t.uid = 0; t.gid = 0
print(getpass.getuser(), pwd.getpwuid(0).pw_name, pwd.getpwuid(65534).pw_name, grp.getgrgid(0).gr_name)
print(pwd.getpwuid(os.getuid()).pw_dir)'
is "$rc:$(echo $out)" "0:sandbox root nobody root /scratch" "python: getuser(), getpwuid(0), getpwuid(65534), getgrgid(0) answer"

run "$P/python.policy" -D WORKSPACE="$WS" -- /bin/ls -ln /etc/passwd /etc/localtime
[[ $rc == 0 && $out == *"/etc/localtime -> /usr/share/zoneinfo/"* ]] &&
	ok "python: /etc/localtime is a link into /usr/share/zoneinfo (the host's zone: \${LOCALTIME})" ||
	not_ok "python: /etc/localtime" "$rc $out"
host_zone=$(readlink /etc/localtime 2>/dev/null)
host_zone=${host_zone#*zoneinfo/}
run "$P/python.policy" -D WORKSPACE="$WS" -- /bin/readlink /etc/localtime
is "$out" "/usr/share/zoneinfo/${host_zone:-UTC}" "python: the zone is the host's (${host_zone:-UTC})"

run "$P/python.policy" -D WORKSPACE="$WS" -- $PY -I -S -c 'import os
for p in ("/etc/shadow", "/etc/ssl/private", "/etc/sudoers", "/etc/ssh"):
    print(os.path.lexists(p), end=" ")
try: open("/etc/passwd", "a")
except OSError as e: print(e.errno)'
is "$out" "False False False False 30" "python: no shadow, private keys, sudoers or ssh config; the synthetic passwd is read-only (EROFS)"

# --- ci.policy ------------------------------------------------------------
before=$(sha256sum /etc/passwd /etc/group)
run "$P/ci.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'whoami; id -un; id -gn; cat /etc/passwd /etc/group; python3 -I -S -c "import getpass, os; print(getpass.getuser(), os.path.expanduser(\"~\"))"'
is "$rc:$out" "0:ci
ci
ci
root:x:0:0:root:/root:/usr/sbin/nologin
ci:x:1000:1000:ci:/tmp:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
root:x:0:
ci:x:1000:
nogroup:x:65534:
ci /tmp" "ci: whoami and getpass.getuser() are ci on any host (own passwd and group)"

run "$P/ci.policy" -D WORKSPACE="$WS" -- /bin/sh -c 'echo "evil::0:0::/:/bin/sh" >> /etc/passwd; chmod 666 /etc/group; mv /etc/group /etc/g2; echo done'
[[ $out == *"Read-only file system"*done ]] && ok "ci: the synthetic passwd and group cannot be changed or moved inside" ||
	not_ok "ci: the synthetic passwd and group cannot be changed" "$out"
is "$(sha256sum /etc/passwd /etc/group)" "$before" "ci: the host's passwd and group are unchanged"

# --- file over an existing file: only a regular file ----------------------
printf 'unshare user mount\nro-bind / /\nfile /etc "x"\n' >"$T/dir.policy"
out=$("$B/pysbx-mount" -p "$T/dir.policy" -- /bin/true 2>&1); rc=$?
[[ $rc == 100 && $out == *"'file /etc' cannot be made under the read-only mount of /"* ]] &&
	ok "file over a directory under a read-only bind is refused (100, positioned)" ||
	not_ok "file over a directory is refused" "$rc $out"
mkdir "$T/w" && echo old >"$T/w/f"
printf 'unshare user mount\nro-bind /usr /usr\nsymlink usr/bin /bin\nsymlink usr/lib /lib\nsymlink usr/lib64 /lib64\nbind %s /w\nfile /w/f "new\\n"\n' "$T/w" >"$T/rw.policy"
out=$("$B/pysbx-mount" -p "$T/rw.policy" -- /bin/sh -c 'cat /w/f; echo evil > /w/f; rm /w/f; cat /w/f' 2>&1); rc=$?
[[ $out == new*"Read-only file system"*"Device or resource busy"*new && $(cat "$T/w/f") == old ]] &&
	ok "file over a host file in a read-write bind: mounted read-only on top, the host file unchanged" ||
	not_ok "file over a host file in a read-write bind" "$rc $out" "host: $(cat "$T/w/f")"
