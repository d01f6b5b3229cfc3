#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# 'make install' as a user meets it: into a DESTDIR, with the default PREFIX
# (/usr/local) and PREFIX=/usr. The installed thp runs, its manual formats
# with man -l, bash and zsh complete it on a terminal (tmux) from where it was
# installed, zsh's completion and the systemd units land where zsh and
# systemd look under that PREFIX, and the units run the installed thp.
# Without scdoc, 'make install' fails naming it and installs nothing; 'make
# deps' installs scdoc.
cd "$(dirname "$0")/.." || exit 1
. tests/lib.sh
. tests/tmux.sh
tmp=$(mktemp -d)
trap 'tmux_stop; rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
# make ARG...: the tree's Makefile, not the make that runs this suite
mk() { env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory "$@"; }
# in_list DIR LIST: DIR is one of the lines of LIST
in_list() { printf '%s\n' "$2" | grep -qxF -- "$1"; }
zsh_fpath=$(zsh -fc 'print -l $fpath' 2> /dev/null)
unit_paths=$(systemd-analyze unit-paths 2> /dev/null)

# install_check PREFIX: make install PREFIX=PREFIX into a DESTDIR and checks
# what it installed
install_check() {
	P=$1 d=$tmp/dest$(echo "$1" | tr / -)
	if ! mk install DESTDIR="$d" PREFIX="$P" > "$tmp/install.log" 2>&1; then
		bad "make install PREFIX=$P: $(tail -5 "$tmp/install.log")"
		return
	fi
	ok
	expect "PREFIX=$P: thp is installed executable" [ -x "$d$P/bin/thp" ]
	expect_sh "PREFIX=$P: the installed thp runs" '"$d$P/bin/thp" --version | grep -q "^thp [0-9]"'
	expect_sh "PREFIX=$P: man -l formats the installed manual" \
		'MANWIDTH=80 man -P cat -l "$d$P/share/man/man1/thp.1" 2> /dev/null | grep -q "^NAME"'
	expect "PREFIX=$P: bash completion installed" [ -f "$d$P/share/bash-completion/completions/thp" ]
	zdir=$(find "$d$P/share/zsh" -name _thp -printf '%h\n' 2> /dev/null)
	expect "PREFIX=$P: zsh completion in a directory zsh searches (${zdir#"$d"})" in_list "${zdir#"$d"}" "$zsh_fpath"
	for u in thp-serve.service thp-metrics.service thp-metrics.timer; do
		f=$(find "$d" -name "$u")
		expect "PREFIX=$P: $u in a directory systemd searches (${f#"$d"})" in_list "$(dirname "${f#"$d"}")" "$unit_paths"
	done
	for u in thp-serve.service thp-metrics.service; do
		expect "PREFIX=$P: $u runs $P/bin/thp" grep -q "^ExecStart=$P/bin/thp " "$(dirname "$f")/$u"
	done
	expect "PREFIX=$P: no template mark left in the units" [ -z "$(grep -l '@[A-Z]*@' "$(dirname "$f")"/thp-*)" ]
}
install_check /usr/local
install_check /usr

# bash and zsh complete the installed thp, as a user on a terminal sees it
d=$tmp/dest-usr-local/usr/local
for sh in bash zsh; do
	if [ $sh = bash ]; then
		rc=". $d/share/bash-completion/completions/thp"
	else
		rc="fpath=($(dirname "$(find "$d/share/zsh" -name _thp)") \$fpath); autoload -Uz compinit; compinit -u -D"
	fi
	if ! tmux_start "$d/bin" "$rc" $sh; then
		bad "$sh: the shell did not start under tmux: $screen"
		tmux_stop
		continue
	fi
	expect_sh "$sh: thp sta<Tab> completes to 'thp status' (the installed thp's commands)" \
		'tmux_tab "thp sta" | grep -qx "\$ thp status *"'
	expect_sh "$sh: thp status --by<Tab> completes to --bytes" \
		'tmux_tab "thp status --by" | grep -qx "\$ thp status --bytes *"'
	tmux_stop
done

# without scdoc: a PATH with every program of this host but scdoc, and a
# build directory without the manual
mkdir "$tmp/path" "$tmp/b"
cp -sn /usr/local/sbin/* /usr/local/bin/* /usr/sbin/* /usr/bin/* /sbin/* /bin/* "$tmp/path/" 2> /dev/null
rm -f "$tmp/path/scdoc"
cp "$THP" "$tmp/b/thp"
(PATH=$tmp/path; mk install B="$tmp/b" -o "$tmp/b/thp" DESTDIR="$tmp/noscdoc" > "$tmp/noscdoc.log" 2>&1)
rc=$?
expect "without scdoc, make install fails (exit $rc)" [ $rc -eq 2 ]
expect "without scdoc, make install names scdoc and 'make deps' ($(cat "$tmp/noscdoc.log"))" \
	grep -q "needs scdoc ('make deps' installs it" "$tmp/noscdoc.log"
expect "without scdoc, make install installs nothing" [ ! -e "$tmp/noscdoc" ]

# make deps (scripts/deps build) installs scdoc: dpkg-query says every
# package but scdoc is installed; apt-get records what it is asked for
mkdir "$tmp/stub"
cat > "$tmp/stub/dpkg-query" << 'EOF'
#!/bin/sh
for p; do :; done
[ "$p" = scdoc ] || printf 'install ok installed'
EOF
printf '#!/bin/sh\necho "$*" >> "%s"\n' "$tmp/apt" > "$tmp/stub/apt-get"
chmod +x "$tmp/stub/dpkg-query" "$tmp/stub/apt-get"
(PATH=$tmp/stub:$PATH; scripts/deps build > "$tmp/deps.log" 2>&1)
expect_sh "make deps installs scdoc ($(cat "$tmp/deps.log" "$tmp/apt" 2> /dev/null | tr '\n' ' '))" \
	'cat "$tmp/deps.log" "$tmp/apt" 2> /dev/null | grep -qw scdoc'
summary install
