#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The systemd unit contrib/thp-serve.service, checked offline by
# systemd-analyze: it parses cleanly, and its exposure stays at the measured
# level with no protection missing beyond those thp serve needs. What it
# does to a running thp serve is tested in tests/live/t_serve.sh.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
UNIT=contrib/thp-serve.service
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
	# verify checks that ExecStart= can run: point it at the thp under test
	sed "s|^ExecStart=/usr/bin/thp |ExecStart=$(realpath "$THP") |" $UNIT > "$tmp/thp-serve.service"
	expect "systemd-analyze verify $UNIT: no warning ($(systemd-analyze verify --man=no "$tmp/thp-serve.service" 2>&1))" \
		sh -c "systemd-analyze verify --man=no '$tmp/thp-serve.service' > '$tmp/verify' 2>&1 && [ ! -s '$tmp/verify' ]"
	systemd-analyze security --offline=yes --no-pager $UNIT > "$tmp/security" 2>&1
	score=$(sed -n 's/^→ Overall exposure level for .*: \([0-9.]*\) .*/\1/p' "$tmp/security")
	expect "systemd-analyze security: exposure '$score', at most $MAX_EXPOSURE" \
		awk -v s="$score" -v m=$MAX_EXPOSURE 'BEGIN { exit !(s != "" && s + 0 <= m + 0) }'
	failed=$(awk '$1 == "✗" {print $2}' "$tmp/security" | sort | tr '\n' ' ')
	needed=$(echo $NEEDED | tr ' ' '\n' | sort | tr '\n' ' ')
	expect "systemd-analyze security fails only the checks thp serve needs (fails: $failed)" [ "$failed" = "$needed" ]
	expect "the unit serves loopback only" grep -q '^ExecStart=/usr/bin/thp serve --listen 127.0.0.1:' $UNIT
fi
summary service
