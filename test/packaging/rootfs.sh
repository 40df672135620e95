#!/usr/bin/env bash
# rootfs.sh - a root with no libc and no shell: a sandbox whose root holds
# only the static pysbx programs and a static target (no /lib, no /bin/sh)
# runs the whole chain again inside itself with minimal.policy, end to end:
# the target's output and exit status come back through both chains.
. "$PYSBX_SRC/test/packaging/common.inc"

echo "1..4"
scratch_dir T
R=$T/rootfs
mkdir -p "$R/usr/local/bin" "$R/usr/local/share/pysbx/policies" \
	"$R/proc" "$R/dev" "$R/tmp"
cp "$PYSBX_BIN"/pysbx* "$R/usr/local/bin/"
cp "$PYSBX_POLICIES/minimal.policy" "$R/usr/local/share/pysbx/policies/"
cp "$PYSBX_PROBE/exec_probe" "$R/target"
# Owned by the caller: inside the outer sandbox only the caller's uid is
# mapped, and the inner trust check accepts the caller or root.
[[ -n $TUID ]] && chown -R "$TUID:$TUID" "$R"
chmod -R go-w "$R"

libs=$(find "$R" -name 'ld-*' -o -name 'libc*' -o -name sh -o -name bash)
nonstatic=$(for f in "$R"/usr/local/bin/* "$R/target"; do
	file -b "$f" | grep -qE 'static(-pie)? ?(-)?linked|statically linked' || echo "$f"; done)
is "$libs$nonstatic" "" "the root holds no libc, no loader, no shell; every program static"

# The outer sandbox: that tree is the whole root, bound read-only at /
# (the chain execs its next steps from fds opened before, so it needs
# none of its programs inside), plus proc, dev and tmp on its empty dirs;
# user namespaces stay allowed so that the inner chain can make its own.
# Its /proc is the host's, bound: a fresh procfs made by pysbx keeps
# sys, sysrq-trigger, irq and bus under read-only mounts, and the kernel
# refuses a fresh procfs below such a one (as under a container's masked
# /proc); the inner chain writes its uid map through it.
cat >"$T/outer.policy" <<EOP
unshare user mount pid ipc uts net
nested-userns allow
ro-bind $R /
bind /proc /proc
dev /dev
tmpfs /tmp
env PATH=/usr/local/bin
chdir /
EOP
chmod 0644 "$T/outer.policy"
OUTER=("$PYSBX_BIN/pysbx" run -p "$T/outer.policy" --)
INNER=(/usr/local/bin/pysbx run -p minimal -D PROG=/target -- /prog)

out=$(as_user "${OUTER[@]}" "${INNER[@]}" ids 2>&1)
rc=$?
if [[ $rc == 0 && $out == *"pid 2"* ]]; then
	ok "the inner chain runs the static target in the libc-less root ($(tr '\n' ' ' <<<"$out"))"
else
	not_ok "the inner chain runs the static target in the libc-less root" "rc $rc: $out"
fi
out=$(as_user "${OUTER[@]}" "${INNER[@]}" exit 7 2>&1)
is "$?:$out" "7:" "its exit status comes back through both chains"
out=$(as_user "${OUTER[@]}" "${INNER[@]}" env 2>&1)
is "$?:$out" "0:PATH=/" "the target's environment is minimal.policy's"
