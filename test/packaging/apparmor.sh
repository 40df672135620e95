#!/usr/bin/env bash
# apparmor.sh - ./build.sh install writes an AppArmor profile that grants
# the installed pysbx and pysbx-mount the `userns` permission, exactly
# where /etc/apparmor.d exists and the kernel restricts unprivileged user
# namespaces (Ubuntu 23.10+); DESTDIR stages it; uninstall removes it.
#
# This machine has no AppArmor in its kernel: the sysctl is faked
# (PYSBX_APPARMOR_SYSCTL, for tests only) and /etc is the DESTDIR's.
# Debian 12's apparmor_parser (3.0) knows neither abi 4.0 nor the
# `userns,` rule (AppArmor 4.0, Ubuntu 24.04): it parses the profile with
# those two lines set back to what 3.0 knows (the attachment, the
# flags, the include), and shows that it rejects exactly the userns
# line. Loading it into a kernel is not tested here.
. "$PYSBX_SRC/test/packaging/common.inc"

if ! is_root; then
	echo "1..0 # SKIP needs root (./build.sh install under a DESTDIR owned by root)"
	exit 0
fi
echo "1..11"

scratch_dir T
P=/usr/local
NAME=usr.local.bin.pysbx
install_into() {	# install_into DESTDIR SYSCTL-VALUE
	local v=$T/sysctl.$RANDOM
	[[ $2 == none ]] || echo "$2" >"$v"
	DESTDIR=$1 PYSBX_APPARMOR_SYSCTL=$v "$SRC/build.sh" install "$P" 2>&1
}

want=$(cat <<EOF
# $NAME: AppArmor profile written by pysbx's ./build.sh install.
# The kernel restricts unprivileged user namespaces here
# (kernel.apparmor_restrict_unprivileged_userns = 1): this lets
# $P/bin/pysbx and pysbx-mount create them with the capabilities
# a sandbox needs inside. Nothing else is confined or allowed.
# ./build.sh uninstall removes it (docs/TROUBLESHOOTING.md).
abi <abi/4.0>,
include <tunables/global>

profile $NAME $P/bin/{pysbx,pysbx-mount} flags=(unconfined) {
  userns,

  include if exists <local/$NAME>
}
EOF
)
same "./build.sh apparmor-profile: the profile's exact text" "$want" \
	"$("$SRC/build.sh" apparmor-profile "$P")"

D=$T/ubuntu
mkdir -p "$D/etc/apparmor.d"
out=$(install_into "$D" 1)
rc=$?
if [[ $rc == 0 && $out == *"wrote the AppArmor profile $D/etc/apparmor.d/$NAME"* ]]; then
	ok "restricting kernel and /etc/apparmor.d: install writes the profile and says so"
else
	not_ok "restricting kernel and /etc/apparmor.d: install writes the profile and says so" "rc $rc: $out"
fi
same "the written profile is the printed one" "$want" "$(cat "$D/etc/apparmor.d/$NAME" 2>&1)"
is "$(stat -c %u:%a "$D/etc/apparmor.d/$NAME")" "0:644" "owned by root, mode 0644"
if [[ $out != *"apparmor_parser -r"* ]]; then
	ok "under a DESTDIR the profile is not loaded into this kernel"
else
	not_ok "under a DESTDIR the profile is not loaded into this kernel" "$out"
fi
out=$(DESTDIR=$D "$SRC/build.sh" uninstall "$P" 2>&1)
is "$?:$(find "$D" ! -type d)" "0:" "uninstall removes the profile with every other file"

D=$T/unrestricted
mkdir -p "$D/etc/apparmor.d"
install_into "$D" 0 >/dev/null
is "$(ls -A "$D/etc/apparmor.d")" "" "the sysctl at 0: no profile"
D=$T/nosysctl
mkdir -p "$D/etc/apparmor.d"
install_into "$D" none >/dev/null
is "$(ls -A "$D/etc/apparmor.d")" "" "no such sysctl (a kernel without AppArmor): no profile"
D=$T/noapparmor
install_into "$D" 1 >/dev/null
is "$(test -e "$D/etc" && echo made)" "" "no /etc/apparmor.d: no profile and no /etc made"

if ! command -v apparmor_parser >/dev/null; then
	skip "apparmor_parser is not installed (apt-get install apparmor)"
	skip "apparmor_parser is not installed (apt-get install apparmor)"
	exit 0
fi
# -Q: no kernel load; -K: no cache. Debian 12's parser (3.0): abi 3.0,
# and no userns rule.
sed -e 's|<abi/4.0>|<abi/3.0>|' -e '/^  userns,$/d' <<<"$want" >"$T/p30"
out=$(apparmor_parser -Q -K "$T/p30" 2>&1 | grep -v '^Cache read/write disabled')
is "$out" "" "apparmor_parser $(apparmor_parser --version | sed -n '1s/.* //p') parses the profile but for the abi and the userns rule"
sed -e 's|<abi/4.0>|<abi/3.0>|' <<<"$want" >"$T/p30u"
out=$(apparmor_parser -Q -K "$T/p30u" 2>&1 | grep -v '^Cache read/write disabled')
if [[ $out == *"at line 11: syntax error"* ]]; then
	ok "and refuses only the userns line (line 11), which it does not know ($out)"
else
	not_ok "and refuses only the userns line (line 11), which it does not know" "$out"
fi
