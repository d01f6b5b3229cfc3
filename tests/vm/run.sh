#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The kernel matrix: Debian 12's own 6.1 kernels (generic, cloud, PREEMPT_RT)
# booted under QEMU with several boot options and a two-node NUMA layout, each
# running tests/vm/guest.sh from an initramfs that holds thp.
#   tests/vm/run.sh [GUEST...]     (default: every guest; VM_TIMEOUT seconds a boot)
# Kernels are downloaded once into build/vm/ (apt-get download, no install).
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/vm/accel.sh
V=${VM_DIR:-build/vm}
: "${HOG:=build/tests/hog}"
: "${VM_TIMEOUT:=600}"

# name  kernel  boot options (comma-separated)  QEMU options
GUESTS='generic  amd64        -
cloud    cloud-amd64  -
rt       rt-amd64     -
never    amd64        transparent_hugepage=never
madvise  amd64        transparent_hugepage=madvise
pool64   amd64        hugepages=64
gig      amd64        default_hugepagesz=1G,hugepagesz=1G,hugepages=1
numa     amd64        hugepages=32 numa'

# newest FLAVOUR: the package name of Debian 12's newest 6.1 kernel of FLAVOUR
newest() { apt-cache search --names-only "^linux-image-6\\.1\\.0-[0-9]+-$1\$" | awk '{print $1}' | sort -V | tail -n 1; }
# kernel FLAVOUR: the path of Debian 12's newest 6.1 kernel of FLAVOUR, fetched once
kernel() {
	_k=$V/kernels/$1/vmlinuz
	[ -s "$_k" ] && { echo "$_k"; return; }
	_pkg=$(newest "$1")
	[ -n "$_pkg" ] || { apt-get update -qq -o DPkg::Lock::Timeout=600 > /dev/null 2>&1; _pkg=$(newest "$1"); }
	[ -n "$_pkg" ] || { echo "no linux-image-6.1.0-N-$1 in the package lists (apt-get update?)" >&2; return 1; }
	rm -rf "$V/kernels/$1.tmp" && mkdir -p "$V/kernels/$1.tmp"
	(cd "$V/kernels/$1.tmp" && apt-get download -q -o APT::Sandbox::User=root "$_pkg" > /dev/null && dpkg-deb -x ./*.deb x) || return 1
	mkdir -p "$V/kernels/$1"
	cp "$V/kernels/$1.tmp"/x/boot/vmlinuz-* "$_k.new" && cp "$V/kernels/$1.tmp"/x/boot/config-* "$V/kernels/$1/config" &&
		mv "$_k.new" "$_k" && rm -rf "$V/kernels/$1.tmp" && echo "$_k"
}

# copy_lib FILE...: FILE and the libraries it needs, at their paths in the initramfs
copy_lib() {
	for _f in "$@" $(ldd "$@" 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\/lib/ {print $1}' | sort -u); do
		mkdir -p "$R$(dirname "$_f")" && cp -L "$_f" "$R$_f"
	done
}

# initramfs: build/vm/initrd.gz with busybox, thp, the libraries it loads and the hog
initramfs() {
	R=$V/root
	rm -rf "$R" && mkdir -p "$R/bin" "$R/proc" "$R/sys" "$R/dev" "$R/tmp" "$R/run"
	cp /bin/busybox "$R/bin/busybox" && cp "$THP" "$R/bin/thp" && cp "$HOG" "$R/bin/hog" && cp tests/vm/guest.sh "$R/guest.sh" || return 1
	copy_lib "$THP" "$HOG"
	for _so in libarchive libmicrohttpd; do
		copy_lib "$(pkg-config --variable=libdir $_so)/$(objdump -p "$(pkg-config --variable=libdir $_so)/$_so.so" | awk '/SONAME/ {print $2}')"
	done
	cat > "$R/init" <<-'EOF'
	#!/bin/busybox sh
	/bin/busybox --install -s /bin
	export PATH=/bin
	mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev; mount -t tmpfs tmp /tmp
	mount -t tracefs tracefs /sys/kernel/tracing 2> /dev/null
	echo; echo "==== thp-vm begin"
	sh /guest.sh 2>&1
	echo "==== thp-vm end"
	poweroff -f
	EOF
	chmod 755 "$R/init"
	(cd "$R" && find . | cpio -o -H newc --quiet | gzip -1) > "$V/initrd.gz"
}

# boot NAME FLAVOUR OPTIONS QEMUOPTS: boots the guest, adds its checks to the counts
boot() {
	_k=$(kernel "$2") || { bad "$1: no kernel $2"; return; }
	_opts=$(echo "$3" | tr , ' ')
	[ "$_opts" = - ] && _opts=
	_numa=
	_mem=3072
	if [ "${4:-}" = numa ]; then
		_numa="-object memory-backend-ram,id=m0,size=1536M -object memory-backend-ram,id=m1,size=1536M
			-numa node,nodeid=0,memdev=m0,cpus=0 -numa node,nodeid=1,memdev=m1,cpus=1"
	fi
	_kvm=$(accel)
	_log=$V/$1.log
	_t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout "$VM_TIMEOUT" qemu-system-x86_64 $_kvm -m $_mem -smp 2 -cpu max -nographic -no-reboot \
		$_numa -kernel "$_k" -initrd "$V/initrd.gz" \
		-append "console=ttyS0 panic=-1 quiet thpvm=$1 $_opts" < /dev/null 2>&1 | tr -d '\r' > "$_log"
	_s=$(($(date +%s) - _t0))
	if ! grep -q '^==== thp-vm end' "$_log"; then
		bad "guest $1 ($2 $_opts) did not finish in ${VM_TIMEOUT} s; its console's last lines:
$(tail -n 15 "$_log")"
		return
	fi
	sed -n '/^==== thp-vm begin/,/^==== thp-vm end/p' "$_log" | grep '^FAIL - \|^  | ' | sed "s/^/$1: /" | while IFS= read -r _l; do
		printf 'FAIL: %s\n' "$_l"
	done
	_p=$(grep -c '^ok - ' "$_log")
	_f=$(grep -c '^FAIL - ' "$_log")
	pass=$((pass + _p))
	fail=$((fail + _f))
	printf 'vm %-8s %-12s %-48s %3d passed, %d failed, %d s\n' "$1" "$2" "${_opts:--}" "$_p" "$_f" "$_s"
	grep -q "^$_p passed, $_f failed" "$_log" || bad "guest $1: the guest's own count does not match its lines"
}

initramfs || { bad "cannot build the initramfs"; summary vm; exit 1; }
echo "$GUESTS" | while read -r name flavour opts qemu; do
	[ $# -eq 0 ] || case " $* " in *" $name "*) ;; *) continue ;; esac
	boot "$name" "$flavour" "$opts" "$qemu"
	echo "$pass $fail" > "$V/counts"
done
[ -s "$V/counts" ] && read -r pass fail < "$V/counts" && rm -f "$V/counts"
summary vm
