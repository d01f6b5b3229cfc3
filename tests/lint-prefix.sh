#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# No message of thp_err() names its command by hand: the error function adds
# "thp: CMD: " from the context, so a literal "CMD: " prints the name twice
# ("thp: collapse: collapse: which process?"). The commands are the cmd_NAME
# entry points of src/cmd; a call's first two lines are searched (a format
# chosen by a ternary sits on either).
cd "$(dirname "$0")/.." || exit 1
names=$(grep -ho 'int cmd_[a-z_]*(' src/cmd/*.h src/cmd/*.c | sed 's/int cmd_//; s/(//' | sort -u | paste -sd'|')
[ -n "$names" ] || { echo "lint-prefix: no command entry points found in src/cmd"; exit 1; }
found=$(grep -n -A1 'thp_err(' src/*/*.c src/*.c | grep -E "\"($names)( [a-z-]+)?: ")
[ -z "$found" ] || { echo "lint-prefix: a message names its command by hand (thp_err adds it):"; echo "$found"; exit 1; }
echo "lint-prefix: no message names its command by hand"
