# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by tests/vm/*.sh. accel: QEMU's accelerator option. KVM only with
# hardware virtualisation (kvm_intel or kvm_amd loaded): a /dev/kvm served by
# another module (kvm_pvm, for guests built for it) never boots Debian's
# kernels, so TCG there. THP_VM_ACCEL=kvm|tcg overrides.
accel() {
	case "${THP_VM_ACCEL:-}" in
	kvm) echo -enable-kvm; return ;;
	tcg) return ;;
	esac
	[ -w /dev/kvm ] && { [ -d /sys/module/kvm_intel ] || [ -d /sys/module/kvm_amd ]; } && echo -enable-kvm
}
