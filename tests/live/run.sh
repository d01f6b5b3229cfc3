#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Live tests: thp against the running kernel. Every check that needs a kernel
# feature or root says why when it is skipped.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
for t in tests/live/t_*.sh; do
	. "$t"
done
summary live
