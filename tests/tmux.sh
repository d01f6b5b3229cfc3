# SPDX-License-Identifier: GPL-2.0-or-later
# A real interactive bash or zsh in a detached tmux session (its own server,
# its socket in a temporary directory removed at the end), driven by keys as
# a user types them (sourced by the suites that test completion on a
# terminal). The shell starts with only its own start-up file, a prompt of
# "$ " and PATH=DIRS:/usr/bin:/bin; bash lists the choices at the first Tab
# (readline's show-all-if-ambiguous), as zsh does.
#   tmux_start DIRS RCLINES bash|zsh   start the shell; RCLINES go in its start-up file
#   tmux_tab LINE                      type LINE, press Tab; prints the screen
#   tmux_stop                          end the session
tmux_home=
# tmux_keys ARG...: tmux send-keys to the session
tmux_keys() { tmux -S "$tmux_home/sock" send-keys -t t "$@"; }
# tmux_screen: the pane's text, empty lines left out
tmux_screen() { tmux -S "$tmux_home/sock" capture-pane -p -t t 2> /dev/null | sed '/^[[:space:]]*$/d'; }
# tmux_until SHELL-TEST: waits up to 10 s for the screen ($screen) to pass SHELL-TEST
tmux_until() {
	_n=0
	while [ $_n -lt 200 ]; do
		screen=$(tmux_screen)
		eval "$1" && return 0
		sleep 0.05
		_n=$((_n + 1))
	done
	return 1
}
tmux_start() {
	tmux_home=$(mktemp -d)
	_path=$1:/usr/bin:/bin
	printf '%s\n' "PS1='\$ '" "$2" > "$tmux_home/rc"
	case $3 in
	bash)
		echo "bind 'set show-all-if-ambiguous on'; bind 'set bell-style none'" >> "$tmux_home/rc"
		set -- bash --noprofile --rcfile "$tmux_home/rc" -i ;;
	zsh) cp "$tmux_home/rc" "$tmux_home/.zshrc" && set -- env ZDOTDIR="$tmux_home" zsh -d -i ;;
	esac
	tmux -S "$tmux_home/sock" -f /dev/null new-session -d -s t -x 200 -y 50 \
		env -i HOME="$tmux_home" TERM=xterm LANG=C.UTF-8 PATH="$_path" "$@"
	tmux_until '[ "$screen" = "\$" ]'
}
# tmux_tab LINE: on a cleared screen, types LINE and Tab (and a mark, #END, to
# see that the shell has done the Tab); prints the screen, the mark left out
tmux_tab() {
	tmux_keys C-u
	tmux_keys -l clear
	tmux_keys Enter
	tmux_until '[ "$screen" = "\$" ]' || { echo "tmux_tab: no prompt: $screen"; return 1; }
	tmux_keys -l "$1"
	tmux_keys Tab
	tmux_keys -l '#END'
	tmux_until 'case $screen in *"#END"*) true ;; *) false ;; esac' || { echo "tmux_tab: no answer: $screen"; return 1; }
	printf '%s\n' "$screen" | sed 's/#END$//'
}
tmux_stop() {
	[ -n "$tmux_home" ] || return 0
	tmux -S "$tmux_home/sock" kill-server 2> /dev/null
	rm -rf "$tmux_home"
	tmux_home=
}
