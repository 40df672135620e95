#!/usr/bin/env bash
# build.sh - build pysbx: static musl binaries, unit tests and probes in build/.
#
#   ./build.sh [build]   install missing packages (as root), build libseccomp
#                        (musl, static) once, then make everything
#   ./build.sh test      build, then run test/run.sh and exit with its status
#   ./build.sh fuzz      build the libFuzzer targets (clang, glibc) with make fuzz
#   ./build.sh install [PREFIX]
#                        build, then install the programs, the policies
#                        (PREFIX/share/pysbx/policies) and the man pages under
#                        $DESTDIR$PREFIX (default /usr/local)
#   ./build.sh uninstall [PREFIX]
#                        remove exactly what install put there
#   ./build.sh apparmor-profile [PREFIX]
#                        print the AppArmor profile install writes where
#                        the kernel restricts unprivileged user namespaces
#   ./build.sh dist      build/dist/pysbx-VERSION-x86_64-linux.tar.gz, built
#                        reproducibly (mtimes = SOURCE_DATE_EPOCH, default:
#                        the last commit's time)
#   ./build.sh clean     remove build/ but keep the libseccomp source and library
#   ./build.sh clean-all remove build/ entirely
#
# Environment: V=1 shows full compiler command lines; JOBS=N sets make -j;
# DESTDIR (install, uninstall) stages the files under another root
# (the AppArmor profile too: $DESTDIR/etc/apparmor.d);
# SOURCE_DATE_EPOCH (dist) the timestamp of every file in the tarball.
#
# Exit status: 0 ok, 100 usage, 111 a prerequisite is missing or a step failed.
set -euo pipefail

cd "$(dirname "$0")"
ROOT=$PWD
B=$ROOT/build

# The libseccomp we build against. Any Debian revision of this upstream
# release is accepted; the orig tarball is the same for all of them (the
# archive refuses a different orig under the same name), so its hash is pinned
# too: that holds even if apt's own checks were somehow bypassed.
# cmd/pysbx-seccomp/systab.c mirrors this release's internal syscall-table
# functions (it stops the build on another release): check it when moving.
LIBSECCOMP_UPSTREAM=2.5.4
LIBSECCOMP_ORIG_SHA256=d82902400405cf0068574ef3dc1fe5f5926207543ba1ae6f8e7a1576351dcbdb

# Build and test prerequisites. libclang-common is where clang's libFuzzer
# runtime lives on bookworm; gpgv, xz-utils and patch are what dpkg-source
# needs to unpack and patch the source package.
PACKAGES=(
	musl-tools musl-dev gcc gperf make dpkg-dev patch xz-utils gpgv
	debian-archive-keyring linux-libc-dev python3 bubblewrap hyperfine
	clang libseccomp-dev util-linux file strace mandoc
)

# What test/integration/compat.sh runs under the shipped policies (an
# agent's data-science script, developer tools). Installed by `test` as
# root; as a user the compatibility steps that need one skip, naming it.
# Node and npm only when no node/npm is on PATH (a NodeSource nodejs
# already ships npm and conflicts with Debian's). podman and runc are the
# container runtime of test/packaging/oci.sh (it skips, naming them,
# when they are missing). curl and pip are the real clients of the
# egress proxy's tests (test/integration/proxy.sh), iproute2 tells them
# the host's address.
TEST_PACKAGES=(
	python3-numpy python3-pandas python3-matplotlib python3-scipy git make
	podman runc apparmor curl python3-pip iproute2
)

JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

say() { echo "build.sh: $*" >&2; }
die() { echo "build.sh: fatal: $*" >&2; exit 111; }

usage() {
	echo "usage: ./build.sh [build|test|fuzz|install [PREFIX]|uninstall [PREFIX]|apparmor-profile [PREFIX]|dist|clean|clean-all]" >&2
	exit 100
}

# --- packages --------------------------------------------------------------

missing_packages() {
	local p st
	for p in "$@"; do
		st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		[[ $st == ii* ]] || echo "$p"
	done
}

ensure_packages() {
	local missing
	missing=$(missing_packages "${PACKAGES[@]}" | tr '\n' ' ')
	missing=${missing% }
	[[ -z $missing ]] && return 0
	if [[ $(id -u) != 0 ]]; then
		say "missing packages: $missing"
		echo "apt-get install -y --no-install-recommends $missing" >&2
		exit 111
	fi
	say "installing $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq </dev/null >"$B/apt-install.log" 2>&1 ||
		{ cat "$B/apt-install.log" >&2; die "apt-get update failed"; }
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	apt-get install -y -qq --no-install-recommends $missing </dev/null \
		>>"$B/apt-install.log" 2>&1 ||
		{ tail -n 30 "$B/apt-install.log" >&2; die "apt-get install failed"; }
}

ensure_test_packages() {
	local missing
	missing=$(missing_packages "${TEST_PACKAGES[@]}" | tr '\n' ' ')
	command -v node >/dev/null || missing+="nodejs "
	command -v npm >/dev/null || missing+="npm "
	missing=${missing% }
	[[ -z $missing ]] && return 0
	if [[ $(id -u) != 0 ]]; then
		say "not installed (the compatibility steps using them skip): $missing"
		return 0
	fi
	say "installing for the tests: $missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # word splitting of the package list is wanted
	{ apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
		--no-install-recommends $missing </dev/null ||
		{ apt-get update -qq </dev/null &&
			apt-get -o DPkg::Lock::Timeout=600 install -y -qq \
				--no-install-recommends $missing </dev/null; }; } \
		>>"$B/apt-install.log" 2>&1 ||
		{ tail -n 30 "$B/apt-install.log" >&2; die "apt-get install failed"; }
}

# The MCP clients test/integration/mcp_sdk.sh runs pysbx mcp against (the
# official SDK and the Inspector), at the versions test/mcp/package-lock.json
# pins, from the npm registry into build/test/mcp-node (never committed,
# never shipped). Again only when the lock changed. Without npm or the
# registry the test skips, naming why.
mcp_clients() {
	local dir=$B/test/mcp-node
	command -v npm >/dev/null || { say "no npm: the MCP client tests skip"; return 0; }
	if [[ -d $dir/node_modules ]] &&
		cmp -s test/mcp/package-lock.json "$dir/package-lock.json"; then
		return 0
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cp test/mcp/package.json test/mcp/package-lock.json "$dir/"
	say "installing the MCP test clients (npm ci, test/mcp/package-lock.json)"
	if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error \
		</dev/null >"$B/npm-ci.log" 2>&1); then
		tail -n 5 "$B/npm-ci.log" >&2
		say "npm ci failed: the MCP client tests skip"
		rm -rf "$dir/node_modules"
	fi
	# The test uid reads them from a copy (test/run.sh).
	chmod -R a+rX "$dir" 2>/dev/null || true
}

# --- libseccomp source via a private apt configuration ---------------------

# Print deb-src lines for the Debian "main" archives the system already uses,
# read from both the deb822 (*.sources) and the one-line (sources.list) formats.
# Only archives that look like Debian's (a /debian or /debian-security path or
# Debian's archive keyring) are taken: a third-party repository such as
# nodesource also calls its component "main" but has no libseccomp source.
system_deb_src_lines() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[[ -r $f ]] || continue
		awk '
		function flush(   nu, ns, u, s, i, j, opt, key) {
			key = tolower(enabled)
			if (types ~ /(^| )deb( |$)/ && comps ~ /(^| )main( |$)/ &&
			    key != "no") {
				nu = split(uris, u, " "); ns = split(suites, s, " ")
				opt = ""
				if (signedby ~ /^\//)
					opt = "[signed-by=" signedby "] "
				for (i = 1; i <= nu; i++)
					for (j = 1; j <= ns; j++)
						print "deb-src " opt u[i] " " s[j] " main"
			}
			types = uris = suites = comps = signedby = enabled = ""
		}
		/^[ \t]*#/ { next }
		/^[ \t]*$/ { flush(); last = ""; next }
		/^[ \t]/   { next }       # continuation (an inline key block)
		{
			k = tolower($1); sub(/:$/, "", k)
			v = $0; sub(/^[^:]*:[ \t]*/, "", v); gsub(/[ \t]+/, " ", v)
			if (k == "types") types = v
			else if (k == "uris") uris = v
			else if (k == "suites") suites = v
			else if (k == "components") comps = v
			else if (k == "signed-by") signedby = v
			else if (k == "enabled") enabled = v
		}
		END { flush() }' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[[ -r $f ]] || continue
		awk '
		$1 != "deb" { next }
		{
			opt = ""; i = 2
			if ($2 ~ /^\[/) {
				while (i <= NF) {
					w = $i; i++
					gsub(/[\[\]]/, "", w)
					if (w ~ /^signed-by=\//) opt = "[" w "] "
					if ($(i - 1) ~ /\]$/) break
				}
			}
			uri = $i; suite = $(i + 1)
			for (j = i + 2; j <= NF; j++)
				if ($j == "main")
					print "deb-src " opt uri " " suite " main"
		}' "$f"
	done
}

is_debian_archive() {
	[[ $1 =~ /debian(-security)?/?[[:space:]] ||
		$1 == *debian-archive-keyring* ]]
}

# apt-get with everything that is state or configuration redirected into
# build/apt/: the system's lists, caches and sources are never touched.
papt() {
	apt-get -c "$B/apt/apt.conf" "$@" </dev/null
}

setup_private_apt() {
	local line lines=()
	mkdir -p "$B/apt/lists/partial" "$B/apt/cache/archives/partial" \
		"$B/apt/sources.list.d"
	while IFS= read -r line; do
		is_debian_archive "$line" && lines+=("$line")
	done < <(system_deb_src_lines | sort -u)
	((${#lines[@]})) ||
		die "no Debian 'main' archive found in /etc/apt/sources.list{,.d}"
	printf '%s\n' "${lines[@]}" >"$B/apt/sources.list"
	cat >"$B/apt/apt.conf" <<-EOF
	Dir::Etc::SourceList "$B/apt/sources.list";
	Dir::Etc::SourceParts "$B/apt/sources.list.d";
	Dir::State::Lists "$B/apt/lists";
	Dir::Cache "$B/apt/cache";
	EOF
}

# Upstream part of a Debian version: no epoch, no Debian revision.
upstream_of() {
	local v=${1#*:}
	echo "${v%-*}"
}

fetch_libseccomp_source() {
	local v best="" all
	setup_private_apt
	say "fetching the libseccomp source index (private apt config in build/apt)"
	papt update >"$B/apt/update.log" 2>&1 ||
		{ cat "$B/apt/update.log" >&2; die "apt-get update (deb-src) failed"; }
	all=$(apt-cache -c "$B/apt/apt.conf" showsrc --only-source libseccomp \
		2>/dev/null | awk '/^Version:/ { print $2 }')
	for v in $all; do
		[[ $(upstream_of "$v") == "$LIBSECCOMP_UPSTREAM" ]] || continue
		if [[ -z $best ]] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done
	[[ -n $best ]] || die "libseccomp $LIBSECCOMP_UPSTREAM is not in the" \
		"configured Debian archives (they have: ${all:-nothing});" \
		"update LIBSECCOMP_UPSTREAM and LIBSECCOMP_ORIG_SHA256 in build.sh" \
		"after checking the new release"
	say "downloading libseccomp $best source"
	mkdir -p "$B/src"
	# apt checks each file against the hashes in the Sources index, which
	# is covered by the archive's signed InRelease. The .dsc's own
	# signature is by a Debian developer key (debian-keyring, not needed).
	(cd "$B/src" && papt source --download-only "libseccomp=$best") \
		>"$B/apt/source.log" 2>&1 ||
		{ cat "$B/apt/source.log" >&2; die "apt-get source libseccomp failed"; }
}

libseccomp_dsc() {
	local f
	for f in "$B"/src/libseccomp_"$LIBSECCOMP_UPSTREAM"-*.dsc; do
		if [[ -e $f ]]; then echo "$f"; fi
	done | sort -V | tail -n 1
}

# --- uapi headers for musl-gcc ----------------------------------------------

# musl-gcc's specs use -nostdinc, so the kernel headers from linux-libc-dev
# are not on its path; adding /usr/include itself would pull in glibc's
# headers. So expose just the kernel's header trees through symlinks.
setup_uapi() {
	local triplet d
	triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
		gcc -print-multiarch)
	d=$B/uapi/include
	mkdir -p "$d"
	ln -sfn /usr/include/linux "$d/linux"
	ln -sfn /usr/include/asm-generic "$d/asm-generic"
	ln -sfn "/usr/include/$triplet/asm" "$d/asm"
	ln -sfn /usr/include/mtd "$d/mtd"
	ln -sfn /usr/include/misc "$d/misc"
	[[ -e $d/asm/unistd.h ]] || die "no uapi asm headers in /usr/include/$triplet/asm"

	cat >"$B/uapi/check.c" <<-'EOF'
	#include <sys/mount.h>
	#include <linux/openat2.h>
	#include <linux/seccomp.h>
	#include <linux/capability.h>
	#include <linux/audit.h>
	#include <asm/unistd.h>
	int main(void)
	{
		struct open_how how = { .resolve = RESOLVE_NO_SYMLINKS };
		return (int)how.resolve + SECCOMP_RET_KILL_PROCESS +
			_LINUX_CAPABILITY_VERSION_3 + MS_NOSUID + __NR_openat2;
	}
	EOF
	musl-gcc -std=gnu11 -D_GNU_SOURCE -Wall -Werror -isystem "$d" \
		-c "$B/uapi/check.c" -o "$B/uapi/check.o" ||
		die "musl-gcc cannot compile against the uapi headers in $d"
}

# --- libseccomp (musl, static) ----------------------------------------------

build_libseccomp() {
	local prefix=$B/seccomp stamp=$B/seccomp/.stamp dsc ver src log
	if [[ -f $prefix/lib/libseccomp.a && -f $stamp ]] &&
		grep -qx "upstream=$LIBSECCOMP_UPSTREAM" "$stamp"; then
		return 0
	fi
	dsc=$(libseccomp_dsc)
	[[ -n $dsc ]] || { fetch_libseccomp_source; dsc=$(libseccomp_dsc); }
	[[ -n $dsc ]] || die "apt-get source left no libseccomp_$LIBSECCOMP_UPSTREAM-*.dsc in build/src"
	ver=$(basename "$dsc" .dsc)
	ver=${ver#libseccomp_}

	echo "$LIBSECCOMP_ORIG_SHA256  $B/src/libseccomp_$LIBSECCOMP_UPSTREAM.orig.tar.gz" |
		sha256sum -c --quiet - >/dev/null 2>&1 ||
		die "libseccomp_$LIBSECCOMP_UPSTREAM.orig.tar.gz does not match the" \
			"pinned sha256 $LIBSECCOMP_ORIG_SHA256"

	say "building libseccomp $LIBSECCOMP_UPSTREAM (musl, static; Debian $ver)"
	src=$B/src/libseccomp-$ver
	log=$B/src/libseccomp-build.log
	rm -rf "$src" "$prefix"
	# dpkg-source verifies the files against the .dsc and applies the
	# Debian patches (the bookworm one updates the syscall table).
	dpkg-source -x "$dsc" "$src" >"$log" 2>&1 ||
		{ cat "$log" >&2; die "dpkg-source -x $dsc failed"; }
	(
		cd "$src"
		./configure CC=musl-gcc \
			CPPFLAGS="-isystem $B/uapi/include" \
			CFLAGS="-O2 -g0" \
			--prefix="$prefix" --enable-static --disable-shared \
			--disable-python --disable-dependency-tracking
		# Only the library and its headers: the tools and tests are
		# not needed and would link dynamically-minded test programs.
		make -j"$JOBS" -C include
		make -j"$JOBS" -C src
		make -C include install
		make -C src install
		make install-pkgconfDATA
	) >>"$log" 2>&1 ||
		{ tail -n 40 "$log" >&2; die "libseccomp build failed (full log: $log)"; }
	[[ -f $prefix/lib/libseccomp.a ]] || die "libseccomp.a was not installed"
	rm -f "$prefix"/lib/*.la
	printf 'upstream=%s\ndebian=%s\ncc=musl-gcc\n' \
		"$LIBSECCOMP_UPSTREAM" "$ver" >"$stamp"
}

# --- main -------------------------------------------------------------------

prepare() {
	mkdir -p "$B"
	ensure_packages
	setup_uapi
	build_libseccomp
}

# pysbx refuses a policy, an include or one of its own programs that
# another user could change, and so a directory above one that is group-
# or other-writable (docs/SECURITY.md). Under umask 002 (Ubuntu, Fedora)
# a fresh clone is group-writable throughout: take group and other write
# permission off what the programs and the tests use, and say so.
fix_modes() {
	local n
	n=$(find "$ROOT" "$B" -maxdepth 0 -perm /022 ! -type l | wc -l)
	n=$((n + $(find "$ROOT/policies" "$ROOT/test" "$ROOT/scripts" "$B/bin" \
		"$B/test" -perm /022 ! -type l 2>/dev/null | wc -l)))
	((n)) || return 0
	chmod go-w "$ROOT" "$B"
	chmod -R go-w "$ROOT/policies" "$ROOT/test" "$ROOT/scripts" "$B/bin" \
		"$B/test" 2>/dev/null || true
	say "took group/other write permission off $n files and directories" \
		"(umask $(umask)): pysbx refuses policies and programs others can change"
}

run_make() {
	local quiet=-s
	[[ ${V:-0} == 1 ]] && quiet=
	make -j"$JOBS" --no-print-directory ${quiet:+"$quiet"} "$@"
}

# --- install and dist ------------------------------------------------------

# check_prefix PREFIX: an absolute path make can take, and a destination
# ($DESTDIR$PREFIX) whose nearest existing directory we may write into.
check_prefix() {
	local prefix=$1 dest a
	[[ $prefix == /* ]] || { echo "build.sh: PREFIX must be an absolute path, not '$prefix'" >&2; exit 100; }
	[[ $prefix != *[[:space:]\$\'\"]* && ${DESTDIR:-} != *[[:space:]\$\'\"]* ]] ||
		{ echo "build.sh: PREFIX and DESTDIR may not contain blanks, quotes or '\$'" >&2; exit 100; }
	dest=${DESTDIR:-}$prefix
	a=$dest
	while [[ ! -e $a ]]; do a=$(dirname "$a"); done
	if [[ ! -d $a || ! -w $a ]]; then
		echo "build.sh: fatal: unable to install into $dest: $a is not a directory $(id -un) can write to" >&2
		echo "build.sh: hint: run as root (sudo ./build.sh install $prefix), or choose a PREFIX of your own: ./build.sh install \$HOME/.local" >&2
		exit 111
	fi
}

# warn_untrusted DIR: pysbx refuses to run from a directory that another
# user could change (pkg/trust): say so at install time already.
warn_untrusted() {
	local d=$1 me owner mode
	me=$(id -u)
	while :; do
		read -r owner mode < <(stat -L -c '%u %a' "$d")
		if [[ $owner != 0 && $owner != "$me" ]] ||
			{ ((8#$mode & 8#022)) && ! ((8#$mode & 8#1000)); }; then
			say "warning: $d is owned by uid $owner with mode $mode: pysbx refuses to run from under it (docs/INSTALL.md)"
			return
		fi
		[[ $d == / ]] && return
		d=$(dirname "$d")
	done
}

# --- AppArmor (Ubuntu 23.10 and later) -------------------------------------

# Ubuntu lets an unconfined program create a user namespace but takes every
# capability in it (kernel.apparmor_restrict_unprivileged_userns = 1), so
# pysbx-mount's first mount fails. A profile with the `userns,` rule for
# the installed programs lifts that for them only, as Ubuntu ships for
# bwrap. Both pysbx (the front door probes whether namespaces work before
# it picks the mode, and `pysbx check`) and pysbx-mount (which builds the
# sandbox) need it; the steps after pysbx-mount and the target run under
# no profile of ours, and every shipped policy denies them new namespaces.
# PYSBX_APPARMOR_SYSCTL replaces the sysctl's path, for the tests only.
AA_SYSCTL=${PYSBX_APPARMOR_SYSCTL:-/proc/sys/kernel/apparmor_restrict_unprivileged_userns}

# The profile's name and file: the prefix's path with '.' for '/', as
# AppArmor names profiles of paths (usr.local.bin.pysbx), so that two
# installs (/usr/local, $HOME/.local) get one profile each.
aa_name() { local p=${1#/}; echo "${p//\//.}.bin.pysbx"; }

aa_profile() {
	local prefix=$1 name
	name=$(aa_name "$prefix")
	cat <<-EOT
	# $name: AppArmor profile written by pysbx's ./build.sh install.
	# The kernel restricts unprivileged user namespaces here
	# (kernel.apparmor_restrict_unprivileged_userns = 1): this lets
	# $prefix/bin/pysbx and pysbx-mount create them with the capabilities
	# a sandbox needs inside. Nothing else is confined or allowed.
	# ./build.sh uninstall removes it (docs/TROUBLESHOOTING.md).
	abi <abi/4.0>,
	include <tunables/global>

	profile $name $prefix/bin/{pysbx,pysbx-mount} flags=(unconfined) {
	  userns,

	  include if exists <local/$name>
	}
	EOT
}

# aa_install PREFIX: write the profile where /etc/apparmor.d exists and the
# kernel restricts user namespaces; load it when this is the live system
# (no DESTDIR) and we are root.
aa_install() {
	local prefix=$1 dir=${DESTDIR:-}/etc/apparmor.d f v
	[[ -d $dir ]] || return 0
	v=$(cat "$AA_SYSCTL" 2>/dev/null || true)
	[[ $v == 1 ]] || return 0
	# A glob character would widen the profile's attachment.
	if [[ $prefix == *[][*?{}^,#]* ]]; then
		say "warning: AppArmor restricts user namespaces here, but $prefix holds a character AppArmor reads as a pattern: no profile written (docs/TROUBLESHOOTING.md)"
		return 0
	fi
	f=$dir/$(aa_name "$prefix")
	if [[ ! -w $dir ]]; then
		say "warning: AppArmor restricts user namespaces here and $dir is not writable: pysbx runs in Landlock-only mode where its policy permits it; for namespaces: sudo ./build.sh install $prefix, or see docs/TROUBLESHOOTING.md"
		return 0
	fi
	aa_profile "$prefix" >"$f.tmp" && chmod 0644 "$f.tmp" && mv -f "$f.tmp" "$f" ||
		die "unable to write $f"
	say "wrote the AppArmor profile $f (user namespaces for $prefix/bin/pysbx and pysbx-mount)"
	[[ -z ${DESTDIR:-} ]] || return 0
	if [[ $(id -u) == 0 ]] && command -v apparmor_parser >/dev/null; then
		apparmor_parser -r "$f" || die "apparmor_parser -r $f failed"
		say "loaded it (apparmor_parser -r $f)"
	else
		say "load it with: sudo apparmor_parser -r $f"
	fi
}

# aa_uninstall PREFIX: remove (and unload) the profile install wrote.
aa_uninstall() {
	local f
	f=${DESTDIR:-}/etc/apparmor.d/$(aa_name "$1")
	[[ -f $f ]] || return 0
	if [[ -z ${DESTDIR:-} && $(id -u) == 0 ]] && command -v apparmor_parser >/dev/null; then
		apparmor_parser -R "$f" >/dev/null 2>&1 || true
	fi
	rm -f "$f" || die "unable to remove $f"
}

do_install() {
	local prefix=${1:-/usr/local}
	check_prefix "$prefix"
	prepare
	run_make bins || die "make failed"
	run_make install PREFIX="$prefix" DESTDIR="${DESTDIR:-}" ||
		die "make install failed"
	aa_install "$prefix"
	warn_untrusted "${DESTDIR:-}$prefix/bin"
	say "installed under ${DESTDIR:-}$prefix (remove with ./build.sh uninstall $prefix)"
}

do_uninstall() {
	local prefix=${1:-/usr/local}
	check_prefix "$prefix"
	run_make uninstall PREFIX="$prefix" DESTDIR="${DESTDIR:-}" ||
		die "make uninstall failed"
	aa_uninstall "$prefix"
}

version() {
	sed -n 's/^#define PYSBX_VERSION "\(.*\)"$/\1/p' "$ROOT/pkg/chain/chain.h"
}

# The tarball's timestamp: SOURCE_DATE_EPOCH, else the last commit's time.
source_date_epoch() {
	local t=${SOURCE_DATE_EPOCH:-}
	if [[ -z $t ]]; then
		t=$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null) ||
			{ echo "build.sh: fatal: SOURCE_DATE_EPOCH is not set and $ROOT is not a git checkout" >&2
			  echo "build.sh: hint: set it to the release's time, e.g. SOURCE_DATE_EPOCH=\$(date -d 2026-12-01 +%s) ./build.sh dist" >&2
			  exit 111; }
	fi
	[[ $t =~ ^[0-9]{1,11}$ ]] || { echo "build.sh: SOURCE_DATE_EPOCH must be seconds since 1970, not '$t'" >&2; exit 100; }
	echo "$t"
}

# A release tree laid out like PREFIX (bin/, share/...): unpacked anywhere,
# its pysbx finds its siblings and its policies. Reproducible: fixed
# modes, sorted names, owner 0/0, every mtime SOURCE_DATE_EPOCH, gzip
# without name or time; the binaries hold no build path (the Makefile's
# -ffile-prefix-map, and they are stripped).
do_dist() {
	local sde ver name stage out f
	sde=$(source_date_epoch)
	ver=$(version)
	[[ -n $ver ]] || die "no PYSBX_VERSION in pkg/chain/chain.h"
	[[ -f $ROOT/LICENSE ]] || die "no LICENSE file at the top of the tree"
	prepare
	run_make bins || die "make failed"
	name=pysbx-$ver-x86_64-linux
	stage=$B/dist/stage
	out=$B/dist/$name.tar.gz
	rm -rf "$stage" "$out"
	mkdir -p "$stage"
	run_make install PREFIX="$stage/$name" DESTDIR= >/dev/null ||
		die "make install into $stage failed"
	install -d -m 0755 "$stage/$name/share/doc/pysbx/docs"
	install -m 0644 README.md LICENSE "$stage/$name/share/doc/pysbx/"
	for f in docs/*.md; do
		install -m 0644 "$f" "$stage/$name/share/doc/pysbx/docs/"
	done
	install -m 0644 LICENSE "$stage/$name/LICENSE"
	chmod -R u=rwX,go=rX "$stage"
	(cd "$stage" && LC_ALL=C tar --sort=name --format=gnu \
		--owner=0 --group=0 --numeric-owner \
		--mtime="@$sde" -cf - "$name") |
		gzip -n -9 >"$out.tmp" || die "tar of $stage failed"
	mv -f "$out.tmp" "$out"
	rm -rf "$stage"
	say "$(cd "$B/dist" && sha256sum "$name.tar.gz")"
}

cmd=${1:-build}
case $cmd in
install | uninstall | apparmor-profile) [[ $# -le 2 ]] || usage ;;
*) [[ $# -le 1 ]] || usage ;;
esac
case $cmd in
build)
	prepare
	run_make all || die "make failed"
	fix_modes
	;;
test)
	prepare
	ensure_test_packages
	mcp_clients
	run_make all || die "make failed"
	fix_modes
	exec "$ROOT/test/run.sh"
	;;
fuzz)
	prepare
	run_make fuzz || die "make fuzz failed"
	;;
install)
	do_install "${2:-}"
	;;
uninstall)
	do_uninstall "${2:-}"
	;;
apparmor-profile)
	[[ ${2:-/usr/local} == /* ]] || usage
	aa_profile "${2:-/usr/local}"
	;;
dist)
	do_dist
	;;
clean)
	# Keep the downloaded source package and the built library: they
	# are the slow part, and they do not depend on our code.
	if [[ -d $B ]]; then
		find "$B" -mindepth 1 -maxdepth 1 ! -name src ! -name seccomp \
			-exec rm -rf {} +
		find "$B/src" -mindepth 1 -maxdepth 1 -type d -exec rm -rf {} + \
			2>/dev/null || true
	fi
	;;
clean-all)
	rm -rf "$B"
	;;
-h | --help | help)
	sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"
	;;
*)
	usage
	;;
esac
