#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Persistence proven by rebooting: a Debian 12 system (systemd, its 6.1 kernel,
# tuned) with the project's own .deb installed, booted under QEMU twice from
# the same disk. Boot 1 runs 'thp persist' in each mode, 'thp hugetlb persist'
# and enables thp-serve; boot 2 checks what the kernel has (tests/vm/reboot-guest.sh).
#   tests/vm/reboot.sh DEB     (the image is cached in build/vm/reboot/)
set -u
cd "$(dirname "$0")/../.."
. tests/lib.sh
. tests/vm/accel.sh
V=build/vm/reboot
: "${VM_TIMEOUT:=900}"
deb=${1:?usage: tests/vm/reboot.sh DEB}
PKGS=systemd,systemd-sysv,udev,linux-image-amd64,initramfs-tools,tuned,curl,procps,libsmartcols1,libjson-c5,libtracefs1,libtraceevent1,libarchive13,libmicrohttpd12

# image: build/vm/reboot/tree, a Debian 12 system of PKGS, made once per PKGS
image() {
	[ -f $V/tree.ok ] && [ "$(cat $V/tree.ok)" = "$PKGS" ] && return
	rm -rf $V/tree $V/tree.ok && mkdir -p $V
	echo "reboot: building the Debian 12 image (mmdebstrap, a few minutes, once)" >&2
	mmdebstrap --quiet --variant=minbase --include="$PKGS" bookworm $V/tree > $V/mmdebstrap.log 2>&1 || {
		tail -n 5 $V/mmdebstrap.log >&2
		return 1
	}
	echo "$PKGS" > $V/tree.ok
}

# disk: build/vm/reboot/disk.img from a copy of the image with DEB installed,
# root's password removed and the test's unit enabled
disk() {
	S=$V/stage
	rm -rf $S && cp -a $V/tree $S || return 1
	cp "$deb" $S/tmp/thp.deb && chroot $S dpkg -i /tmp/thp.deb > $V/dpkg.log 2>&1 || { tail -n 5 $V/dpkg.log >&2; return 1; }
	rm -f $S/tmp/thp.deb
	echo thp-reboot > $S/etc/hostname
	printf '/dev/vda / ext4 rw 0 1\n' > $S/etc/fstab
	install -m 755 tests/vm/reboot-guest.sh $S/usr/local/sbin/thp-reboot-guest
	cat > $S/etc/systemd/system/thp-reboot-guest.service <<-'EOF'
	[Unit]
	Description=thp reboot test
	After=multi-user.target thp-serve.service systemd-sysctl.service systemd-tmpfiles-setup.service
	[Service]
	Type=oneshot
	ExecStart=/usr/local/sbin/thp-reboot-guest
	StandardOutput=tty
	StandardError=tty
	TTYPath=/dev/ttyS0
	[Install]
	WantedBy=multi-user.target
	EOF
	ln -sf /etc/systemd/system/thp-reboot-guest.service $S/etc/systemd/system/multi-user.target.wants/
	# no getty on the console: the test's lines alone
	ln -sf /dev/null $S/etc/systemd/system/serial-getty@ttyS0.service
	# tuned writes THP at boot from its own profile: off unless a check turns it on
	rm -f $S/etc/systemd/system/multi-user.target.wants/tuned.service
	rm -f $V/disk.img && truncate -s 3G $V/disk.img && mkfs.ext4 -q -F -d $S $V/disk.img || return 1
	rm -rf $S
}

# boot N: boots the disk; its checks are added to the counts
boot() {
	_log=$V/boot$1.log
	_t0=$(date +%s)
	_kvm=$(accel)
	timeout "$VM_TIMEOUT" qemu-system-x86_64 $_kvm -m 2048 -smp 2 -cpu max -nographic -no-reboot \
		-kernel $V/tree/vmlinuz -initrd $V/tree/initrd.img \
		-drive file=$V/disk.img,format=raw,if=virtio \
		-append "root=/dev/vda rw console=ttyS0 panic=-1 quiet systemd.show_status=0" < /dev/null 2>&1 | tr -d '\r' > "$_log"
	_s=$(($(date +%s) - _t0))
	if ! grep -q "^==== thp-reboot end $1" "$_log"; then
		bad "reboot: boot $1 did not finish in $VM_TIMEOUT s; its console's last lines:
$(tail -n 15 "$_log")"
		return
	fi
	grep '^FAIL - \|^  | ' "$_log" | while IFS= read -r _l; do printf 'FAIL: boot %s: %s\n' "$1" "$_l"; done
	_p=$(grep -c '^ok - ' "$_log")
	_f=$(grep -c '^FAIL - ' "$_log")
	pass=$((pass + _p))
	fail=$((fail + _f))
	printf 'reboot: boot %s: %d passed, %d failed, %d s\n' "$1" "$_p" "$_f" "$_s"
	grep '^ok - ' "$_log" | sed "s/^/  boot $1: /"
}

_t=$(date +%s)
image || { bad "reboot: cannot build the Debian image"; summary reboot; exit 1; }
echo "reboot: image ready in $(($(date +%s) - _t)) s"
disk || { bad "reboot: cannot build the disk"; summary reboot; exit 1; }
boot 1
boot 2
summary reboot
