#!/usr/bin/env bash
# oci.sh - scripts/oci-image.sh builds the same image twice (same digest),
# holding only the static programs and the policies (no libc, no shell);
# podman (runc) loads it from the oci-archive and, with the relaxed profile
# of docs/CONTAINERS.md, runs the whole chain inside as a non-root container
# user with minimal.policy and a static target. Without the flags the chain
# refuses to start (111), it never runs half-isolated.
. "$PYSBX_SRC/test/packaging/common.inc"

if ! is_root; then
	echo "1..0 # SKIP needs root (podman's storage; the chain inside runs as uid 65534)"
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
TAG=localhost/pysbx-test:run$$
export SOURCE_DATE_EPOCH=1764547200
"$SRC/scripts/oci-image.sh" -t "$TAG" "$T/a/img.tar" >"$T/a.log" 2>&1
okrc $? "oci-image.sh builds an oci-archive ($(tail -n 1 "$T/a.log"))"
TMPDIR=$T "$SRC/scripts/oci-image.sh" -t "$TAG" "$T/b/img.tar" >/dev/null 2>&1
same "built twice: the same bytes" "$(sha256sum <"$T/a/img.tar")" \
	"$(sha256sum <"$T/b/img.tar")"

# The one layer: the programs, the policies, /tmp; no libc, no shell.
L=$T/a/img
layer=$(sed -n 's/.*"layers":\[{[^}]*"digest":"sha256:\([0-9a-f]*\)".*/\1/p' \
	"$L/blobs/sha256/$(sed -n 's/.*"digest":"sha256:\([0-9a-f]*\)".*/\1/p' "$L/index.json")")
files=$(tar -tzf "$L/blobs/sha256/$layer" | grep -v '/$' | sort | tr '\n' ' ')
want="usr/local/bin/pysbx usr/local/bin/pysbx-clean usr/local/bin/pysbx-exec usr/local/bin/pysbx-landlock usr/local/bin/pysbx-mount usr/local/bin/pysbx-seccomp"
for f in "$SRC"/policies/*; do want+=" usr/local/share/pysbx/policies/${f##*/}"; done
want+=" usr/local/share/pysbx/policies/session_worker.pyc"
same "the layer holds only the programs and the policies" \
	"$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ')" "$files"

P=(podman --runtime runc)
"${P[@]}" load -q -i "$T/a/img.tar" >"$T/load.log" 2>&1
okrc $? "podman load -i the oci-archive ($(tail -n 1 "$T/load.log"))"
trap '"${P[@]}" rmi -f "$TAG" >/dev/null 2>&1; cleanup_scratches' EXIT

# The host's nofile/nproc limits exceed what runc may set in the
# container; these are well above what the shipped policies use.
RUN=("${P[@]}" run --rm --network none
	--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
RELAX=(--security-opt seccomp=unconfined --security-opt unmask=/proc/*)
TARGET=(run -p minimal -D PROG=/usr/local/bin/pysbx-exec -- /prog --version)

out=$("${RUN[@]}" "${RELAX[@]}" "$TAG" check 2>&1)
okrc $? "pysbx check inside with the relaxed profile: all needed features"
uid=$("${P[@]}" image inspect --format '{{.Config.User}}' "$TAG" 2>&1)
is "$uid" "65534:65534" "the image runs as uid/gid 65534, not root"
out=$("${RUN[@]}" "${RELAX[@]}" "$TAG" "${TARGET[@]}" 2>&1)
is "$?:$out" "0:pysbx-exec $(sed -n 's/^#define PYSBX_VERSION "\(.*\)"$/\1/p' "$SRC/pkg/chain/chain.h")" \
	"the chain runs a static target with minimal.policy inside"
# The sandbox's root holds /prog, not the image's files: the policies
# the image has are not there.
POL=/usr/local/share/pysbx/policies/ci.policy
out=$("${RUN[@]}" "${RELAX[@]}" "$TAG" run -p minimal \
	-D PROG=/usr/local/bin/pysbx -- /prog policy check "$POL" -D WORKSPACE=/w 2>&1)
rc=$?
out2=$("${RUN[@]}" "${RELAX[@]}" "$TAG" policy check "$POL" -D WORKSPACE=/w 2>&1)
if [[ $rc == 100 && $out == *"$POL"*"No such file"* && $out2 == "$POL: ok" ]]; then
	ok "the image's policies are visible in the container, not in the sandbox"
else
	not_ok "the image's policies are visible in the container, not in the sandbox" \
		"inside: rc $rc: $out" "container: $out2"
fi
out=$("${RUN[@]}" "$TAG" "${TARGET[@]}" 2>&1)
rc=$?
if [[ $rc == 111 && $out == *fatal:* && $out != *"pysbx-exec "[0-9]* ]]; then
	ok "under the runtime's default profile the chain refuses to start (111: $out)"
else
	not_ok "under the runtime's default profile the chain refuses to start" "rc $rc: $out"
fi
