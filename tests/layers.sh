#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The layers include downwards only: core includes no other layer, control
# only core, render core and control (whose results it words), and a command
# (src/cmd/*.c) no other command's header: the headers of src/cmd are cmd.h,
# opt.h and target.h, the commands' context, their options and what they
# work on. Prints FILE:LINE: the include, for each one against that; fails
# on any. Checks the tree DIR when given (default: this one).
cd "${1:-$(dirname "$0")/..}" || exit 1
[ -f src/cmd/cmd.h ] || { echo "layers: no src/cmd/cmd.h below '$(pwd)'"; exit 1; }

# includes DIR PATTERN: the quoted includes of DIR's sources matching PATTERN
includes() {
	grep -nE "^[[:space:]]*#[[:space:]]*include[[:space:]]*\"$2" "$1"/*.[ch] 2> /dev/null
}

bad=$( {
	includes src/core '\.\./(cmd|control|render)/'
	includes src/control '\.\./(cmd|render)/'
	includes src/render '\.\./cmd/'
	includes src/cmd '[^./"][^"]*"' | grep -vE '"(cmd|opt|target)\.h"'
	ls src/cmd/*.h | grep -vxE 'src/cmd/(cmd|opt|target)\.h' | sed 's/$/: a header in src\/cmd other than cmd.h, opt.h and target.h/'
} )
[ -z "$bad" ] || {
	echo "layers: includes against the layers (core; control; render; commands, which include no other command's header):"
	echo "$bad"
	exit 1
}
echo "layers: core, control, render and the commands include downwards only"
