#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd unit thp-serve.service, as 'make units' makes it from
# contrib/thp-serve.service.in for the thp under test, checked offline by
# systemd-analyze: it parses cleanly, and its exposure stays at the measured
# level with no protection missing beyond those thp serve needs. What it
# does to a running thp serve is tested in tests/live/t_serve.sh.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
# the exposure 'systemd-analyze security' gives the unit (systemd 252: 1.6 of 10)
MAX_EXPOSURE=1.6
# the checks the unit fails on purpose: thp serve listens on the network,
# reads other processes' memory figures and environment (CAP_SYS_PTRACE and
# CAP_DAC_READ_SEARCH, ambient capabilities of a transient user) and the host's
# /proc files, in the host's root and user namespace; ProtectClock= leaves
# /dev/rtc readable
NEEDED="AmbientCapabilities= CapabilityBoundingSet=~CAP_(DAC_*|FOWNER|IPC_OWNER)
CapabilityBoundingSet=~CAP_SYS_PTRACE DeviceAllow= IPAddressDeny=
PrivateNetwork= PrivateUsers= ProcSubset= RestrictAddressFamilies=~AF_(INET|INET6)
RootDirectory=/RootImage="

if ! command -v systemd-analyze > /dev/null; then
	skip "service unit: systemd-analyze (Debian package systemd) is not installed"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# verify checks that ExecStart= can run: the units run the thp under test
	bindir=$(dirname "$(realpath "$THP")")
	expect "make units" sh -c "env -u MAKEFLAGS -u MAKELEVEL make -s units UNITS_DIR='$tmp' BINDIR='$bindir' > '$tmp/make.log' 2>&1"
	UNIT=$tmp/thp-serve.service
	expect "systemd-analyze verify thp-serve.service: no warning ($(systemd-analyze verify --man=no "$UNIT" 2>&1))" \
		sh -c "systemd-analyze verify --man=no '$UNIT' > '$tmp/verify' 2>&1 && [ ! -s '$tmp/verify' ]"
	systemd-analyze security --offline=yes --no-pager "$UNIT" > "$tmp/security" 2>&1
	score=$(sed -n 's/^→ Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$tmp/security")
	expect "systemd-analyze security: exposure '$score', at most $MAX_EXPOSURE" \
		awk -v s="$score" -v m=$MAX_EXPOSURE 'BEGIN { exit !(s != "" && s + 0 <= m + 0) }'
	failed=$(awk '$1 == "✗" {print $2}' "$tmp/security" | sort | tr '\n' ' ')
	needed=$(echo $NEEDED | tr ' ' '\n' | sort | tr '\n' ' ')
	expect "systemd-analyze security fails only the checks thp serve needs (fails: $failed)" [ "$failed" = "$needed" ]
	expect "the unit runs the thp of BINDIR and serves loopback only" grep -qx "ExecStart=$bindir/thp serve --listen 127.0.0.1:[0-9]*" "$UNIT"
fi
summary service
