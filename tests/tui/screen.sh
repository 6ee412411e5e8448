#!/bin/sh
# The full-screen UI in a real terminal (tmux) at 80x24 and 120x40: the
# prompt and main's source before run, the current-line mark at a
# breakpoint, a breakpoint toggled with Space, the program's output in its
# pane, resize, help, a theme switch seen in the colour codes, and a clean
# quit.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/basic-O0

one_size() {
	w=$1 h=$2 s=${1}x$2
	tui_start "$w" "$h" -- "$BIN"
	see "$s prompt" '^\(qzdb\)'
	see "$s main before run" '51 int main\(int argc, char \*\*argv\)'
	see "$s source title" 'source: basic.c'
	see "$s status not started" '^ not started'
	type_cmd 'break 58'
	type_cmd 'run'
	see "$s current-line mark" '^  B> +58 +acc \+= square\(i\);'
	see "$s status stopped" 'stopped at basic.c:58'
	keys F10
	see "$s F10 next" '^   > +59 +list = push'
	keys Escape
	see "$s Esc focuses source" 'source \| theme'
	keys j j Space
	see "$s Space sets a breakpoint" '^  B\* +61 +note_directory'
	see "$s Space says so" 'Breakpoint 2 at .*line 61'
	keys Space
	see "$s Space deletes it" '^   \* +61 +note_directory'
	keys :
	type_cmd 'delete'
	type_cmd 'continue'
	see "$s program output in its pane" '^acc=160 counter=1000 total=8 argc=1'
	see "$s exited in status" '^ exited 0'
	see "$s UI intact after output" 'program output'
	$TMUX_CMD resize-window -t 0 -x $((w + 10)) -y $((h + 6))
	wait_for 'exited 0' && sleep 0.2
	rows=$(screen | wc -l)
	last=$(screen | tail -n 1)
	if [ "$rows" = $((h + 6)) ] && echo "$last" | grep -q 'exited 0'; then
		pass "$s resize relayout"
	else
		fail "$s resize relayout" "rows $rows, last line '$last'"
	fi
	see "$s resize keeps source" 'source: basic.c'
	keys F1
	see "$s help" 'qzdb help'
	see "$s help from keymap" 'F10 +next'
	keys Escape
	wait_for 'qzdb help' || true
	sleep 0.2
	not_see "$s help closed" 'qzdb help'
	before=$(screen -e | tail -n 1)
	type_cmd 'theme light'
	see "$s theme light" 'theme light'
	_i=0   # the status line may be drawn after the command's echo (and a
	# capture taken mid-redraw may miss it)
	after=$(screen -e | tail -n 1)
	while [ $_i -lt 100 ] && { [ "$after" = "$before" ] || ! echo "$after" | grep -q '48;5;240'; }; do
		sleep 0.1
		_i=$((_i + 1))
		after=$(screen -e | tail -n 1)
	done
	if [ "$before" != "$after" ] && echo "$after" | grep -q '48;5;240'; then
		pass "$s theme colours change"
	else
		fail "$s theme colours change" "status SGR before '$before' after '$after'"
	fi
	type_cmd 'quit'
	see "$s clean quit" '^QZDB-EXITED 0'
	not_see "$s terminal restored" 'program output'
	no_leftover "$s no process left" "$BIN"
}

one_size 80 24
one_size 120 40

# Output while running, a prompt answered through the output pane, Ctrl-C.
B2=$B/tui_io-O0
tui_start 80 40 -- "$B2" slow
type_cmd 'pane size output 12'
type_cmd 'run'
see "io prompt in output pane" '^name\?'
see "io status running" 'running \(C-c interrupts\)'
keys -l 'world'
keys Enter
see "io keys reach the program" '^hello world'
see "io output flows" '^tick 2'
keys C-c
see "io Ctrl-C interrupts" 'Program received signal SIGINT'
see "io stopped status" 'stopped by SIGINT'
type_cmd 'kill'
type_cmd 'quit'
see "io quit" '^QZDB-EXITED 0'
no_leftover "io no process left" "$B2"

# F11 step, Shift-F11 finish; a crash in the status line; side panes.
tui_start 120 40 -- "$B/crash-O0"
see "side panes at 120 cols" ' locals$'
type_cmd 'break check'
keys F5
see "F5 runs" 'Breakpoint 1, check'
see "locals pane follows" '^ .*len = '
see "stack pane follows" '#1 +0x[0-9a-f]+ in main'
keys F11
see "F11 steps into" 'name_len \(r=0x'
keys S-F11
see "S-F11 finishes" 'Run till exit from #0 +name_len'
see "finish value" 'Value returned is \$1 = 5'
type_cmd 'pane show disasm'
see "disasm pane" '=> 0x[0-9a-f]+ <\+[0-9]+>:'
type_cmd 'pane show bps'
see "bps pane" '1 +breakpoint +keep y +0x'
type_cmd 'delete'
type_cmd 'continue'
see "program crash stops" 'Program received signal SIGSEGV'
see "status stopped by signal" 'stopped by SIGSEGV'
type_cmd 'continue'
see "status crashed" '^ crashed SIGSEGV'
type_cmd 'quit'
see "crash quit" '^QZDB-EXITED 0'
no_leftover "crash no process left" "$B/crash-O0"

# Search in the source pane, focus and scroll a side pane.
tui_start 80 24 -- "$BIN"
keys Escape /
see "search prompt" '^/$'
keys -l 'note_dir'
keys Enter
see "search moves the cursor" '^   \* +61 +note_directory'
see "search match highlighted" '30m.\[43mnote_dir' -e
keys n
see "search next wraps" '^   \* +29 void note_directory'
keys N
see "search prev" '^   \* +61 +note_directory'
keys -l '/nosuchtext'
keys Enter
see "search not found" 'Pattern not found: nosuchtext'
keys Escape G
see "G goes to the end" 'line 68/68'
keys g
see "g goes to the top" 'line 1/68'
keys :
type_cmd 'start'
wait_for '^ stopped at'   # keys typed while it runs go to the program
type_cmd 'pane show regs'
see "regs pane" '(^| )rax +0x'
keys Escape Tab
see "Tab focuses a side pane" ' regs \| theme'
keys G
see "side pane scrolls" '(^| )(gs|fs_base|k[0-7]) +0x'
keys Escape
see "Esc back to source" ' source \| theme'
type_cmd 'pane hide regs'
$TMUX_CMD resize-window -t 0 -x 80 -y 34   # the output pane: 4 lines then
long=$(printf 'W%.0s' $(seq 1 90))END
type_cmd "run $long"
see "long output line wraps" "^$(printf 'W%.0s' $(seq 1 80))\$"
see "long output line rest" '^WWWWWWWWWWEND$'
see "exit with args" 'argc=2'
keys Escape O PgUp
see "output scrolls back" 'program output \(scrolled back: PgDn\)'
keys PgDn
see "output back to the end" 'program output - keys go to the program'
keys Escape :
type_cmd 'quit'
see "search quit" '^QZDB-EXITED 0'

# A flood of output: the UI keeps up and C-c still stops the program.
# (30 rows: a stop inside libc's write, with its debug info, prints three
# lines, more than the command pane shows at 24)
tui_start 80 30 -- "$B/tui_flood-O0"
type_cmd 'run'
see "flood shows" '^flood line [0-9]+$'
see "flood status running" 'running \(C-c interrupts\)'
keys C-c
see "flood Ctrl-C" 'Program received signal SIGINT'
# (the stop is complete when the status line says so: keys typed before
# still go to the program, and the first stop in libc reads its debug file)
see "flood stopped" 'stopped by SIGINT'
type_cmd 'quit'
see "flood quit" '^QZDB-EXITED 0'
no_leftover "flood no process left" "$B/tui_flood-O0"

# -x FILE and -ex run in the UI; quit in the script leaves it.
printf 'break 58\nrun\n' > "$TH/cmds"
tui_start 80 30 -- -x "$TH/cmds" -ex next "$BIN"
see "-x in the UI stops" '^   > +59 +list = push'
see "-x commands echoed" '^\(qzdb\) run$'
type_cmd 'quit'
see "-x quit" '^QZDB-EXITED 0'
printf 'break 58\nrun\nquit\n' > "$TH/cmds"
tui_start 80 24 -- -x "$TH/cmds" "$BIN"
see "quit in -x leaves the UI" '^QZDB-EXITED 0'
no_leftover "quit in -x no process left" "$BIN"

# UTF-8 source and tabs
tui_start 80 24 -- "$B2"
type_cmd 'tui goto 1'
see "utf-8 source" 'ünïcödé ✓'
see "tab expanded" '^ +2  \* tab  in its source'   # col 6 to 8
type_cmd 'quit'
see "utf-8 quit" '^QZDB-EXITED 0'
tui_end
