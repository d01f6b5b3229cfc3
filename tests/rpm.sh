#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The RPM package: 'make rpm' builds it from this tree (rpmbuild -bb
# rpm/thp.spec), rpmlint checks it with Fedora's settings
# (tests/rpm/rpmlint-fedora.toml) and the spec's filters (rpm/thp.rpmlintrc);
# then what it holds, with which modes, what it requires and recommends, its
# scriptlets and units; it is installed into a scratch root with its own rpm
# database (the host is left alone) and thp runs from there. The packages are
# left in build/rpm/RPMS/.
#
# rpmbuild runs here on Debian, as on Fedora but for:
# - --nodeps: the BuildRequires name RPM packages (pkgconfig(json-c), scdoc,
#   systemd-rpm-macros), which rpm cannot find in the dpkg database;
#   scripts/deps has installed their Debian counterparts
# - the debuginfo subpackage, which Fedora's redhat-rpm-config adds to every
#   spec by redefining %install, added the same way, so find-debuginfo strips
#   the binary as on Fedora
# - brp-compress, a bash script that Debian's rpm runs with sh (dash): run
#   with bash, so the man page is compressed as on Fedora
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
D=build/rpm
ver=$(sed -n 's/^VERSION := //p' Makefile)
arch=$(rpm --eval '%{_arch}')
expect "the spec's version is the Makefile's ($ver)" grep -qxE "Version: +$ver" rpm/thp.spec
mkdir -p build
# shellcheck disable=SC2016
flags="--nodeps --define '_enable_debug_packages 1'
	--define 'install %{?_enable_debug_packages:%{?buildsubdir:%{debug_package}}}%%install'
	--define '__brp_compress bash %{_rpmconfigdir}/brp-compress %{?_prefix}'"
if ! env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory rpm RPMBUILD_FLAGS="$(echo $flags)" > build/rpm.log 2>&1; then
	bad "make rpm failed; see build/rpm.log"
	tail -20 build/rpm.log
	summary rpm
	exit
fi
rpmf=$D/RPMS/$arch/thp-$ver-1.$arch.rpm
expect "make rpm wrote $rpmf" [ -f "$rpmf" ]
expect "make rpm wrote the debuginfo package" [ -f "$D/RPMS/$arch/thp-debuginfo-$ver-1.$arch.rpm" ]
rpmlint -c tests/rpm/rpmlint-fedora.toml -r rpm/thp.rpmlintrc "$rpmf" rpm/thp.spec > "$D/rpmlint" 2>&1
rc=$?
expect_sh "rpmlint is clean (exit $rc: $(grep -E ': [EW]: |checked' "$D/rpmlint"))" \
	'[ $rc -eq 0 ] && grep -q " 0 errors, 0 warnings" "$D/rpmlint"'

# contents, with their modes and owners
rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME}:%{FILEGROUPNAME} %{FILENAMES}\n]' "$rpmf" > "$D/contents"
has_file() { grep -q " root:root $2\$" "$D/contents" && grep -q "^$1 root:root $2\$" "$D/contents"; }
expect "package holds /usr/bin/thp, -rwxr-xr-x root" has_file -rwxr-xr-x /usr/bin/thp
for f in /usr/share/man/man1/thp.1.gz /usr/share/bash-completion/completions/thp \
	/usr/share/zsh/site-functions/_thp /usr/lib/systemd/system/thp-serve.service \
	/usr/lib/systemd/system/thp-metrics.service /usr/lib/systemd/system/thp-metrics.timer \
	'/usr/share/licenses/thp[^/]*/COPYING' '/usr/share/doc/thp[^/]*/thp.rules.yml'; do
	expect "package holds $f, -rw-r--r-- root" has_file -rw-r--r-- "$f"
done
expect "no file or directory writable by group or others" \
	[ -z "$(awk '$1 !~ /^l/ && (substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w")' "$D/contents")" ]

# dependencies: libarchive required, libmicrohttpd (thp serve alone) only recommended
req=$(rpm -qp --requires "$rpmf") rec=$(rpm -qp --recommends "$rpmf")
expect "requires libarchive (opened at run time)" grep -q "^libarchive" <<EOF2
$req
EOF2
expect_sh "libmicrohttpd is not required ($(echo "$req" | grep -i microhttpd))" '! echo "$req" | grep -qi microhttpd'
expect "libmicrohttpd is recommended ($rec)" grep -q "^libmicrohttpd" <<EOF2
$rec
EOF2

# scriptlets: the units follow the presets on installation (Fedora: disabled),
# nothing enables or starts them
post=$(rpm -qp --qf '%{POSTIN}' "$rpmf")
expect "%post applies the presets to thp-serve.service and thp-metrics.timer ($post)" \
	grep -qE 'preset.*thp-serve.service thp-metrics.timer|install-system-units.*thp-serve.service' <<EOF2
$post
EOF2
expect_sh "%post neither enables nor starts a unit" '! echo "$post" | grep -qE "enable|start"'

# the units as installed
x=$D/extract
mkdir -p "$x"
(cd "$x" && rpm2cpio "../RPMS/$arch/thp-$ver-1.$arch.rpm" | cpio -idm --quiet)
for u in thp-serve.service thp-metrics.service; do
	expect "$u runs /usr/bin/thp" grep -q '^ExecStart=/usr/bin/thp ' "$x/usr/lib/systemd/system/$u"
done
expect "no template mark left in the units" [ -z "$(grep -l '@[A-Z]*@' "$x"/usr/lib/systemd/system/*)" ]
expect_sh "the manual formats (man -l)" 'MANWIDTH=80 man -P cat -l "$x/usr/share/man/man1/thp.1.gz" 2> /dev/null | grep -q "^NAME"'

# installed into a scratch root with its own database; --nodeps, for the
# root holds no other package, and --noscripts, for it has no shell or systemd
r=$(realpath "$D")/root
expect "rpm --root initialises a database" rpm --root "$r" --initdb
expect "rpm --root installs the package" sh -c "rpm --root '$r' --nodeps --noscripts -i '$rpmf' > '$D/install.log' 2>&1"
expect "rpm --root -q knows it" sh -c "rpm --root '$r' -q thp | grep -qx 'thp-$ver-1.$arch'"
expect "rpm --root -V finds every file as packaged ($(rpm --root "$r" -V --nodeps thp 2>&1))" rpm --root "$r" -V --nodeps thp
expect "installed thp shows its version" sh -c "'$r/usr/bin/thp' --version | grep -q '^thp $ver'"
expect "installed thp runs 'thp status'" sh -c "'$r/usr/bin/thp' status > /dev/null"
summary rpm
