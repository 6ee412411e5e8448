#!/bin/sh
# Finding things as vim, cgdb and gdb -tui users do (tmux, 80x24): `/`
# and `?` regex search with n/N, `:N` to a line, G and g, the file picker
# (C-p, `tui files`, a fuzzy match on the name), C-r through the history,
# Tab completion of locals and of members after `->`; and the layout at
# 80x24: 14 source lines with the bottom region and the command pane.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/ui_twofile-O0

# source_lines NAME: the source pane shows 14 lines or more (empty ones too)
source_lines() {
	_n=$(screen | grep -cE '^[ WX][ 0-9+][ Bb][ >*][ 0-9]{3}[0-9]( |$)')
	[ "$_n" -ge 14 ] && pass "$1: $_n source lines" || fail "$1: 14 source lines" "$_n"
}

tui_start 80 24 -- "$BIN"
type_cmd 'break slot_for'
type_cmd 'run'
see "stopped in slot_for" 'stopped at table.c'
source_lines "80x24"
type_cmd 'pane show locals'
type_cmd 'pane show stack'
see "locals in the bottom region" 'locals \[stack\] F6|\[locals\] stack F6'
source_lines "80x24 with side panes"
keys Escape F6
see "F6 cycles the region" '\[output\] locals stack F6'
keys F6
see "F6 shows locals" 'key = [0-9]'

# search: regex forward, n, N, backward, a bad pattern
keys Escape
keys /
keys -l 'slot(s)?\['
keys Enter
see "regex search finds the line" 'line 14/'
keys n
see "n finds the next match" 'line (5|6|7|8|9)/'
keys N
see "N goes back" 'line 14/'
keys ?
keys -l 'int \*slot'
keys Enter
see "? searches backward" 'line 12/'
keys /
keys -l 'a(['
keys Enter
see "a bad regex is an error, once" 'Bad search pattern "a\(\[": '
# :N, G, g
keys :
keys -l '3'
keys Enter
see ":3 goes to line 3" 'line 3/'
keys Escape G
see "G to the end" 'line ([0-9]+)/\1'
keys g
see "g to the top" 'line 1/'

# the file picker
keys C-p
see "C-p opens the picker line" '^\(qzdb\) tui files ?$'
keys -l 'mn'
keys Enter
see "fuzzy 'mn' opens main.c" 'source: main.c'
keys Escape C-p
keys -l 'tbl'
keys Tab
see "Tab in the picker completes the one match" '^\(qzdb\) tui files .*ui_twofile/table\.c$'
keys Enter
see "tui files opens table.c" 'source: table.c'
type_cmd 'tui files zzz'
see "no match is an error" 'No source file matches "zzz"'

# C-r and completion
keys C-r
keys -l 'brea'
see "C-r finds a history line" "reverse-i-search\\)\`brea': break slot_for"
keys C-g C-u
keys -l 'print ke'
keys Tab
see "Tab completes a local" '^\(qzdb\) print key ?$'
keys C-u
type_cmd 'quit'
see "quit" '^QZDB-EXITED 0'
tui_end

# members after -> on a struct pointer
BIN=$B/bug_nullp-O0
tui_start 80 24 -- "$BIN"
type_cmd 'break 30'
type_cmd 'run'
see "nullp stopped" 'stopped at bug_nullp.c:30'
keys -l 'print e->va'
keys Tab
see "Tab completes a member after ->" '^\(qzdb\) print e->value ?$'
keys C-u
keys -l 'print e->'
keys Tab
see "Tab lists the members" '^key +value$'
keys C-u
type_cmd 'quit'
see "nullp quit" '^QZDB-EXITED 0'
tui_end
