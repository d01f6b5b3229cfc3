#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel matrix: Debian 12's own Linux 6.1 kernels (generic, cloud,
# PREEMPT_RT) booted under QEMU with several boot options and a two-node NUMA
# layout. Each guest boots an initramfs holding thp, the test programs and
# busybox, runs tests/vm/guest.sh and powers off; its checks are counted here.
#   tests/vm/run.sh [GUEST...]       (default: every guest of the table below)
# Environment: THP, HOG, NOTHP (the programs put in the guest), VM_TIMEOUT
# (seconds a guest may take, default 400), VM_DIR (default build/vm).
# Kernels are fetched once with apt-get download (not installed) and kept in
# VM_DIR/kernels; a newer Debian kernel is fetched when apt's lists name one.
set -u
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
: "${HOG:=build/tests/hog}" "${NOTHP:=build/tests/nothp}"
: "${VM_TIMEOUT:=400}" "${VM_DIR:=build/vm}"
V=$VM_DIR

# NAME  FLAVOUR  BOOT OPTIONS (commas for spaces, - for none)  QEMU (- or numa)
GUESTS='generic  amd64  -  -'

# kernel FLAVOUR: prints the path of the newest Debian 12 6.1 kernel of FLAVOUR,
# fetched into $V/kernels/PACKAGE/ the first time
kernel() {
	_re="^linux-image-6\\.1\\.0-[0-9]+-$1\$"
	_pkg=$(apt-cache search --names-only "$_re" 2> /dev/null | awk '{print $1}' | sort -V | tail -n 1)
	if [ -z "$_pkg" ] && [ "$(id -u)" = 0 ]; then
		apt-get update -qq -o DPkg::Lock::Timeout=600 > /dev/null 2>&1
		_pkg=$(apt-cache search --names-only "$_re" | awk '{print $1}' | sort -V | tail -n 1)
	fi
	if [ -z "$_pkg" ]; then
		echo "no package linux-image-6.1.0-N-$1 in apt's lists (a Debian 12 source and 'apt-get update' are needed)" >&2
		return 1
	fi
	_d=$V/kernels/$_pkg
	[ -s "$_d/vmlinuz" ] && { echo "$_d/vmlinuz"; return; }
	echo "vm: fetching $_pkg" >&2
	rm -rf "$_d.tmp" && mkdir -p "$_d.tmp" || return 1
	if ! (cd "$_d.tmp" && apt-get download -q "$_pkg" > dl.log 2>&1 && dpkg-deb -x ./*.deb x); then
		echo "cannot fetch $_pkg:" >&2
		tail -n 5 "$_d.tmp/dl.log" >&2
		return 1
	fi
	mkdir -p "$_d" && cp "$_d.tmp"/x/boot/config-* "$_d/config" &&
		cp "$_d.tmp"/x/boot/vmlinuz-* "$_d/vmlinuz" && rm -rf "$_d.tmp" && echo "$_d/vmlinuz"
}

# put FILE...: copies each FILE and the shared libraries it loads (ldd) into
# the initramfs tree $R, each at its own path
put() {
	ldd "$@" > /dev/null || return 1
	for _f in "$@" $(ldd "$@" | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' | sort -u); do
		mkdir -p "$R$(dirname "$_f")" && cp -L "$_f" "$R$_f" || return 1
	done
}

# initramfs: $V/initrd.gz with busybox, thp and the libraries it loads (also
# the ones it opens at run time: libarchive), jq, the test programs, guest.sh
# and an init that runs it between two marker lines and powers off
initramfs() {
	R=$V/root
	rm -rf "$R" && mkdir -p "$R/bin" "$R/etc" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/run" || return 1
	cp /bin/busybox "$R/bin/" || return 1
	cp "$THP" "$R/bin/thp" && put "$THP" || return 1
	# jq itself, not the wrapper of tests/bin
	for _p in "$HOG" "$NOTHP" "$(PATH=${PATH#"$PWD/tests/bin:"} command -v jq)"; do
		cp "$_p" "$R/bin/" && put "$_p" || return 1
	done
	_lib=$(pkg-config --variable=libdir libarchive) && put "$_lib/$(objdump -p "$_lib/libarchive.so" | awk '$1 == "SONAME" {print $2}')" || return 1
	cp tests/vm/guest.sh "$R/guest.sh" || return 1
	echo 'root:x:0:0:root:/root:/bin/sh' > "$R/etc/passwd"
	echo 'root:x:0:' > "$R/etc/group"
	cat > "$R/init" <<-'EOF'
	#!/bin/busybox sh
	/bin/busybox --install -s /bin
	# no tar: capture writes its archives itself
	rm -f /bin/tar
	export PATH=/bin
	mount -t proc proc /proc
	mount -t sysfs sysfs /sys
	mount -t devtmpfs devtmpfs /dev
	mount -t tmpfs tmpfs /tmp
	mount -t tmpfs tmpfs /run
	echo
	echo "==== thp-vm checks"
	sh /guest.sh 2>&1
	echo "==== thp-vm end"
	poweroff -f
	EOF
	chmod 755 "$R/init"
	(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$V/initrd.gz"
}

# boot NAME FLAVOUR OPTIONS QEMU: boots one guest; prints its counts and
# failures and adds them to the suite's; a guest that does not finish fails
# with its console's last lines
boot() {
	_name=$1 _opts=$(echo "$3" | tr , ' ')
	[ "$_opts" = - ] && _opts=
	_k=$(kernel "$2") || { bad "vm $_name: no $2 kernel"; return; }
	_mem=2048 _numa=
	if [ "$4" = numa ]; then
		_numa="-object memory-backend-ram,id=m0,size=1024M -object memory-backend-ram,id=m1,size=1024M
			-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1"
	fi
	_kvm=
	[ -w /dev/kvm ] && _kvm=-enable-kvm
	_log=$V/$_name.log
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 $_kvm -nodefaults -no-user-config -display none \
		-serial stdio -no-reboot -m $_mem -smp 2 -cpu max $_numa \
		-kernel "$_k" -initrd "$V/initrd.gz" -append "console=ttyS0 panic=-1 quiet thpvm=$_name $_opts" \
		< /dev/null 2>&1 | tr -d '\r' > "$_log"
	_s=$(($(date +%s) - _t0))
	_what="$_name ($(basename "$(dirname "$_k")")${_opts:+, $_opts})"
	if ! grep -q '^==== thp-vm end' "$_log"; then
		bad "vm $_what did not finish in $VM_TIMEOUT s (${_s} s); the console's last lines:
$(tail -n 20 "$_log")"
		return
	fi
	sed -n '/^==== thp-vm checks/,/^==== thp-vm end/p' "$_log" > "$_log.checks"
	_p=$(grep -c '^ok ' "$_log.checks")
	_f=$(grep -c '^FAIL ' "$_log.checks")
	pass=$((pass + _p)) fail=$((fail + _f))
	printf 'vm %s: %d passed, %d failed, %d s\n' "$_what" "$_p" "$_f" "$_s"
	grep -A 6 '^FAIL ' "$_log.checks" | grep '^FAIL \|^  ' | sed "s/^FAIL /FAIL: vm $_name: /; s/^  /    /"
	if ! grep -q "^$_p passed, $_f failed\$" "$_log.checks"; then
		bad "vm $_name: the guest's own count is not $_p passed, $_f failed (it stopped early?): $(tail -n 3 "$_log.checks")"
	fi
}

mkdir -p "$V"
start=$(date +%s)
initramfs || { bad "vm: cannot build the initramfs"; summary vm-check; exit 1; }
echo "vm: initramfs $(($(stat -c %s "$V/initrd.gz") / 1048576)) MiB in $(($(date +%s) - start)) s"
while read -r name flavour opts qemu; do
	[ $# -eq 0 ] || case " $* " in *" $name "*) ;; *) continue ;; esac
	boot "$name" "$flavour" "$opts" "$qemu"
done <<EOF
$GUESTS
EOF
echo "vm: $(($(date +%s) - start)) s in all"
summary vm-check
