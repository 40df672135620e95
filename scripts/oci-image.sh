#!/usr/bin/env bash
# scripts/oci-image.sh - build a "FROM scratch" OCI image of pysbx without a
# daemon, a Containerfile or any tool beyond tar, gzip and sha256sum.
#
#   scripts/oci-image.sh [-t TAG] [OUT]
#
# The image holds only the six static programs (/usr/local/bin) and the
# shipped policies (/usr/local/share/pysbx/policies), plus an empty /tmp;
# no libc, no shell. Its config runs as uid/gid 65534 with pysbx as the
# entrypoint. OUT (default build/dist/pysbx-VERSION-oci.tar) is an
# oci-archive: a tar of an OCI image layout, for `podman load -i OUT`,
# `skopeo copy oci-archive:OUT ...` or a registry push; the same layout is
# left unpacked in OUT's name without .tar. TAG (default pysbx:VERSION)
# is the layout's ref name.
#
# Reproducible: every file's mtime and the config's "created" are
# SOURCE_DATE_EPOCH (default: the last commit's time), entries sorted,
# owned 0/0, gzip without name or time: the same sources give the same
# image digest. The programs must be built (./build.sh) first.
#
# Exit status: 0 ok, 100 usage, 111 a step failed.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
die() { echo "oci-image.sh: fatal: $*" >&2; exit 111; }
usage() { echo "usage: scripts/oci-image.sh [-t TAG] [OUT]" >&2; exit 100; }

VER=$(sed -n 's/^#define PYSBX_VERSION "\(.*\)"$/\1/p' pkg/chain/chain.h)
TAG=pysbx:$VER
while getopts t: o; do
	case $o in
	t) TAG=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
(($# <= 1)) || usage
OUT=${1:-$ROOT/build/dist/pysbx-$VER-oci.tar}
[[ $OUT == *.tar ]] || { echo "oci-image.sh: OUT must end in .tar" >&2; exit 100; }
[[ $OUT == /* ]] || OUT=$PWD/$OUT
[[ $TAG =~ ^[a-z0-9][a-z0-9._/-]*(:[A-Za-z0-9_][A-Za-z0-9_.-]*)?$ ]] ||
	{ echo "oci-image.sh: '$TAG' is not an image name[:tag]" >&2; exit 100; }

for t in tar gzip sha256sum; do
	command -v "$t" >/dev/null ||
		die "$t is missing (apt-get install ${t/sha256sum/coreutils})"
done
SDE=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || true)}
[[ $SDE =~ ^[0-9]{1,11}$ ]] ||
	die "SOURCE_DATE_EPOCH is not set and this is not a git checkout (set SOURCE_DATE_EPOCH=seconds)"
[[ -x build/bin/pysbx && -f build/seccomp/lib/libseccomp.a ]] ||
	die "the programs are not built: run ./build.sh first"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/pysbx-oci.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
RFS=$WORK/rootfs
make -s --no-print-directory install PREFIX="$RFS/usr/local" DESTDIR= \
	MAN1= MAN5= >/dev/null || die "make install into $RFS failed"
rm -rf "$RFS/usr/local/share/man"
install -d -m 1777 "$RFS/tmp"
chmod -R u=rwX,go=rX "$RFS/usr"

# rtar DIR: a reproducible tar of DIR's contents on stdout.
rtar() {
	(cd "$1" && LC_ALL=C tar --sort=name --format=posix \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		--owner=0 --group=0 --numeric-owner --mtime="@$SDE" \
		-cf - "${@:2}")
}
sha() { sha256sum "$1" | cut -c1-64; }
size() { stat -c %s "$1"; }
blob() {	# blob FILE: move FILE into the layout under its digest
	local h
	h=$(sha "$1")
	mv "$1" "$L/blobs/sha256/$h"
	echo "$h"
}

L=$WORK/layout
mkdir -p "$L/blobs/sha256"
rtar "$RFS" usr tmp >"$WORK/layer.tar"
diff_id=$(sha "$WORK/layer.tar")
gzip -n -9 <"$WORK/layer.tar" >"$WORK/layer.tar.gz"
lsize=$(size "$WORK/layer.tar.gz")
layer=$(blob "$WORK/layer.tar.gz")

created=$(date -u -d "@$SDE" +%Y-%m-%dT%H:%M:%SZ)
printf '%s' '{"architecture":"amd64","os":"linux","created":"'"$created"'",'\
'"config":{"User":"65534:65534","Env":["PATH=/usr/local/bin"],'\
'"Entrypoint":["/usr/local/bin/pysbx"],"Cmd":["check"],"WorkingDir":"/tmp"},'\
'"rootfs":{"type":"layers","diff_ids":["sha256:'"$diff_id"'"]},'\
'"history":[{"created":"'"$created"'","created_by":"scripts/oci-image.sh"}]}' \
	>"$WORK/config.json"
csize=$(size "$WORK/config.json")
config=$(blob "$WORK/config.json")

printf '%s' '{"schemaVersion":2,'\
'"mediaType":"application/vnd.oci.image.manifest.v1+json",'\
'"config":{"mediaType":"application/vnd.oci.image.config.v1+json",'\
'"digest":"sha256:'"$config"'","size":'"$csize"'},'\
'"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip",'\
'"digest":"sha256:'"$layer"'","size":'"$lsize"'}],'\
'"annotations":{"org.opencontainers.image.version":"'"$VER"'"}}' \
	>"$WORK/manifest.json"
msize=$(size "$WORK/manifest.json")
manifest=$(blob "$WORK/manifest.json")

printf '%s' '{"schemaVersion":2,'\
'"mediaType":"application/vnd.oci.image.index.v1+json",'\
'"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json",'\
'"digest":"sha256:'"$manifest"'","size":'"$msize"','\
'"annotations":{"org.opencontainers.image.ref.name":"'"$TAG"'"}}]}' \
	>"$L/index.json"
printf '%s' '{"imageLayoutVersion":"1.0.0"}' >"$L/oci-layout"
chmod -R u=rwX,go=rX "$L"

mkdir -p "$(dirname "$OUT")"
rtar "$L" oci-layout index.json blobs >"$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
rm -rf "${OUT%.tar}"
mv "$L" "${OUT%.tar}"
echo "oci-image.sh: $OUT: image $TAG, manifest sha256:$manifest"
