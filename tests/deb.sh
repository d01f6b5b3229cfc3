#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the Debian package from a copy of the tree (dpkg-buildpackage -us -uc -b),
# runs lintian on it, installs it into a scratch root with its own dpkg database
# (the host's packages are left alone) and runs 'thp status' and 'thp --version'
# from there. The systemd units are real units of the package, installed
# disabled; libmicrohttpd (thp serve only) is recommended, not required. The
# .deb is left in build/deb/.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
D=build/deb
ver=$(sed -n '1s/^thp (\([^)]*\)).*/\1/p' debian/changelog)
rm -rf "$D"
mkdir -p "$D/thp-$ver"
tar --exclude=./build --exclude=./.git --exclude=./thp -cf - . | tar -xf - -C "$D/thp-$ver"
if ! (cd "$D/thp-$ver" && dpkg-buildpackage -us -uc -b) > "$D/build.log" 2>&1; then
	bad "dpkg-buildpackage failed; see $D/build.log"
	tail -20 "$D/build.log"
	summary deb
	exit
fi
deb=$(ls "$D"/thp_"$ver"_*.deb)
ok
dpkg-deb -c "$deb" > "$D/contents"
for f in usr/bin/thp usr/share/man/man1/thp.1.gz usr/share/bash-completion/completions/thp \
	usr/share/zsh/vendor-completions/_thp lib/systemd/system/thp-serve.service \
	lib/systemd/system/thp-metrics.service lib/systemd/system/thp-metrics.timer \
	usr/share/doc/thp/examples/ansible/ansible_collections/thp/thp/plugins/modules/thp_settings.py; do
	expect "package holds /$f" grep -q " \./$f\$" "$D/contents"
done
expect "no unit among the examples" [ -z "$(grep -E '/examples/.*\.(service|timer)$' "$D/contents")" ]
dep=$(dpkg-deb -f "$deb" Depends) rec=$(dpkg-deb -f "$deb" Recommends)
expect_sh "libmicrohttpd is recommended, not required (Depends: $dep; Recommends: $rec)" \
	'[ -n "$dep" ] && case "$dep" in *libmicrohttpd*) false ;; esac && case "$rec" in *libmicrohttpd12*) true ;; *) false ;; esac'
dpkg-deb -e "$deb" "$D/control"

# The maintainer scripts as on a host running systemd: /run/systemd/system is a
# directory of this test, systemctl records what it is asked (thp-serve.service
# enabled and running when STATE is 'running', disabled and stopped otherwise),
# the host's deb-systemd-invoke decides what to start (DPKG_ROOT: without the
# host's policy-rc.d)
m=$(realpath "$D")/maint
mkdir -p "$m/bin" "$m/run" "$m/root"
printf '%s\n' '#!/bin/sh' 'echo "systemctl $*" >> "$M/log"' 'for a; do :; done' \
	'case "$*" in' \
	'*is-enabled*) [ "$STATE" = running ] && [ "$a" = thp-serve.service ] && echo enabled || echo disabled ;;' \
	'*is-active*) [ "$STATE" = running ] && [ "$a" = thp-serve.service ] ;;' \
	'esac' > "$m/bin/systemctl"
printf '%s\n' '#!/bin/sh' 'echo "deb-systemd-helper $*" >> "$M/log"' '[ "$1" != debian-installed ]' > "$m/bin/deb-systemd-helper"
chmod +x "$m/bin/systemctl" "$m/bin/deb-systemd-helper"
for s in postinst prerm; do
	[ -f "$D/control/$s" ] && sed "s|/run/systemd/system|$m/run|g" "$D/control/$s" > "$m/$s"
done
# maint STATE SCRIPT ARG...: runs the package's SCRIPT; prints the systemctl
# calls that start, stop or enable a unit
maint() {
	: > "$m/log"
	[ -f "$m/$2" ] && (export M="$m" STATE="$1" PATH="$m/bin:$PATH" && shift && sh "$m/$@") > /dev/null 2>&1
	grep -E '^systemctl .*(start|stop|enable)' "$m/log" | grep -vE 'is-(enabled|active)'
}
expect_sh "install: the postinst starts and enables no unit ($(DPKG_ROOT=$m/root maint stopped postinst configure))" \
	'[ -z "$(DPKG_ROOT=$m/root maint stopped postinst configure)" ]'
expect_sh "upgrade: the postinst restarts thp-serve.service when it runs ($(DPKG_ROOT=$m/root maint running postinst configure 0.0.1))" \
	'DPKG_ROOT=$m/root maint running postinst configure 0.0.1 | grep -q "restart.* thp-serve.service"'
expect_sh "upgrade: the postinst starts no stopped unit ($(DPKG_ROOT=$m/root maint stopped postinst configure 0.0.1))" \
	'[ -z "$(DPKG_ROOT=$m/root maint stopped postinst configure 0.0.1)" ]'
# prerm's stop needs no DPKG_ROOT (the host's policy-rc.d would refuse it):
# its deb-systemd-invoke hands the stop to systemctl
printf '%s\n' '#!/bin/sh' '[ "$1" = stop ] && exec systemctl "$@"' > "$m/bin/deb-systemd-invoke"
chmod +x "$m/bin/deb-systemd-invoke"
expect_sh "remove: the prerm stops thp-serve.service ($(maint running prerm remove))" \
	'maint running prerm remove | grep -q "stop.* thp-serve.service"'
lintian --pedantic "$deb" > "$D/lintian" 2> /dev/null
expect "lintian --pedantic is clean" [ ! -s "$D/lintian" ]
cat "$D/lintian"

r=$D/root
mkdir -p "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/updates"
: > "$r/var/lib/dpkg/status"
# the maintainer scripts run outside a chroot, with DPKG_ROOT: the scratch
# root has no shell, and deb-systemd-helper then records units in DPKG_ROOT
r=$(realpath "$r")
expect "dpkg installs the package, maintainer scripts included" sh -c "dpkg --root='$r' --force-depends --force-not-root --force-script-chrootless -i '$deb' > '$D/install.log' 2>&1"
expect "installed thp runs 'thp status'" sh -c "'$r/usr/bin/thp' status > /dev/null"
expect "installed thp shows its version" sh -c "'$r/usr/bin/thp' --version | grep -q '^thp $ver'"
expect "installed man page formats" sh -c "zcat '$r/usr/share/man/man1/thp.1.gz' | grep -q '^.TH'"
for u in thp-serve.service thp-metrics.service; do
	expect "installed $u runs /usr/bin/thp" grep -qE '^ExecStart=/usr/bin/thp ' "$r/lib/systemd/system/$u"
done
expect "postinst recorded thp-serve.service for deb-systemd-helper" [ -f "$r/var/lib/systemd/deb-systemd-helper-enabled/thp-serve.service.dsh-also" ]
expect "postinst enabled no unit" [ -z "$(find "$r/etc/systemd" -name 'thp-*' 2> /dev/null)" ]
summary deb
