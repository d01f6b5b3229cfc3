#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every tracked source, test, script and build file names the project's
# licence in an SPDX line near its top (recorded trees and data excepted).
cd "$(dirname "$0")/.." || exit 1
git rev-parse --git-dir > /dev/null 2>&1 || { echo "licence: SKIP: not a git checkout (the file list comes from git)"; exit 0; }
missing=$(git ls-files | grep -vE '^tests/(fixtures|expected|fuzz/seeds)/|^debian/(changelog|copyright|source/format|thp\.docs|thp\.examples)$|^(README\.md|COPYING|\.gitignore)$|\.json$' |
	while read -r f; do
		head -5 "$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || echo "$f"
	done)
[ -n "$missing" ] || { echo "licence: every source file has its SPDX line"; exit 0; }
echo "licence: no 'SPDX-License-Identifier: GPL-2.0-or-later' line in:"
echo "$missing"
exit 1
