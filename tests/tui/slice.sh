#!/bin/sh
# Slicing and alterations in the full-screen UI (tmux, 80x24): slice
# members in the slice colour, the dependence pane's edges, following
# them into the other file where the root cause is and back, switch from
# the cursor line, rollback from the checkpoints pane, the slices pane,
# and the recording / slice / checkpoint slots of the status line.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1

# highlighted NAME PATTERN / plain NAME PATTERN: that row carries the
# slice colour (yellow background, SGR 43) or does not.
highlighted() {
	wait_for "$2" >/dev/null
	row_sgr "$1" "$2" 43   # the row may be drawn before its colour
}
plain() {
	if row_of "$2" | grep -q '\[[0-9;]*43m'; then
		fail "$1" "row /$2/ has the slice colour: $(row_of "$2" | cat -v)"; else pass "$1"; fi
}

# Two files: the crash in main.c, its cause in table.c.
BIN=$B/ui_twofile-O0
tui_start 80 24 -- "$BIN"
type_cmd 'break main'
type_cmd 'run'
wait_for '^ stopped at'   # keys typed while it runs go to the program
keys Escape
keys F8
see "two record key" 'REC [0-9]+'
keys :
type_cmd 'continue'
see "two crash" 'stopped by SIGSEGV at main.c:13'
type_cmd 'slice'
see "two slice in status" 'slice 1: 5 stmts'
see "two deps pane" 'deps: slice 1, main.c:13'
see "two edge to p" '^p ← slot_for\(key\)  \(main\.c:12 #4\)'
highlighted "two member row coloured" '^ 1    12 +int \*p = slot_f'
plain "two non-member row plain" '^ +15 +printf'
see "two instance count in gutter" '^ 4    11 +for'
keys Escape I
see "two instance numbers toggled on" '^ 4    11 +for .* #1,#2,#3,#4 *$'
keys I
wait_for '#1,#2,#3,#4' >/dev/null
sleep 0.3
not_see "two instance numbers toggled off" '#1,#2,#3,#4'
keys Tab
see "two deps focused" '\| deps'
keys Enter
see "two followed to main.c:12" 'deps: slice 1, main.c:12'
see "two edge into table.c" '^returned ← slot  \(table\.c:15 #4\)'
keys Enter
see "two other file" 'source: table.c +line 15/16'
see "two edge to the root cause" '^slot ← NULL  \(table\.c:12 #4\)'
keys Enter
see "two root cause selected" 'source: table.c +line 12/16'
highlighted "two root cause coloured" '^ 1 \* +12 +int \*slot = NULL;'
plain "two non-member plain" '^ +13 +if \(key < 3\)'
keys BSpace
see "two back" 'source: table.c +line 15/16'
keys BSpace
see "two back to main.c" 'source: main.c +line 12/17'
keys M-Right
see "two forward" 'source: table.c +line 15/16'
keys Escape
keys ]
see "two next member" 'source: table.c +line 15/16'
keys [
see "two previous member" 'source: table.c +line 12/16'
keys [
see "two no earlier member" 'No earlier line of slice 1'
keys :
type_cmd 'tui follow-edge 9'
see "two bad edge number" 'No edge 9 here'
type_cmd 'tui slice-select 7'
see "two bad slice" 'No slice number 7'
type_cmd 'tui forward'
see "two forward to the root cause" 'source: table.c +line 12/16'
type_cmd 'tui forward'
see "two end of history" 'Nothing to go forward to\.'
type_cmd 'tui prune-edge'
see "two control edge not prunable" 'A control edge has no variable to prune\.'
type_cmd 'tui sbreak-line'
see "two sbreak from the cursor" '\(qzdb\) sbreak 1 [^ ]*table\.c:12'
type_cmd 'tui goto main.c:13'
see "two goto the crash line" 'deps: slice 1, main.c:13'
type_cmd 'tui prune-edge'
see "two prune from the edge" '\(qzdb\) prune 1 p'
see "two pruned slice" 'Slice 1 from main\.c:13#4: [0-9]+ statements'
keys F1
see "two help open" 'qzdb help'
# page_to PATTERN: PgDn, one page drawn at a time, until PATTERN shows
page_to() {
	_p=0
	while [ $_p -lt 40 ] && ! screen | grep -Eq -- "$1"; do
		_before=$(screen)
		keys PgDn
		_w=0
		while [ $_w -lt 40 ] && [ "$(screen)" = "$_before" ]; do sleep 0.05; _w=$((_w + 1)); done
		_p=$((_p + 1))
	done
}
page_to 'deps:'
see "two help lists deps keys" 'deps:'
page_to 'follow-edge +follow the selected'
see "two help lists follow-edge" 'follow-edge +follow the selected'
keys Escape
type_cmd 'tui'
see "two tui lists actions" 'tui walk-stop +a walkthrough: stop it'
type_cmd 'quit'
see "two quit" '^QZDB-EXITED 0'
no_leftover "two no process left" "$BIN"

# bug_nullp: checkpoint, record, crash, slice; switch the predicate's
# slice instance from the cursor line, roll back from the checkpoints
# pane, continue: no crash.
BIN=$B/bug_nullp-O0
tui_start 80 24 -- "$BIN"
type_cmd 'break main'
type_cmd 'run'
wait_for '^ stopped at'
keys Escape F2
see "nullp checkpoint key" 'Checkpoint 1 at'
see "nullp checkpoint slot" 'ckpt 1'
keys :
type_cmd 'record on'
type_cmd 'continue'
see "nullp crash" 'stopped by SIGSEGV at bug_nullp.c:30'
type_cmd 'slice'
see "nullp deps" '^control ← if \(strlen\(keys\[k\]\) > 4\)  \(bug_nullp\.c:29 #3\)'
see "nullp slots fit at 80 columns beside a long state" 'stopped by SIGSEGV at bug_nullp.c:30 +REC [0-9]+ \| slice 1: [0-9]+ stmts \| ckpt 1'
highlighted "nullp predicate coloured" '^ 1  +29 +if \(strlen'
plain "nullp printf plain" '^ +32 +printf'
type_cmd 'theme mono'
see "nullp mono theme" 'theme mono'
if row_of '^ 1  +28 +struct entry' | grep -q '\[[0-9;]*4m'; then pass "nullp mono underlines members"
else fail "nullp mono underlines members" "$(row_of '^ 1  +28 +struct entry' | cat -v)"; fi
type_cmd 'theme default'
keys Escape k
see "nullp cursor on predicate" 'source: bug_nullp.c +line 29/'
keys S-F3
see "nullp switch from the cursor" 'Switch 2 at bug_nullp.c:29, every instance'
see "nullp switch mark" '^W1 \* +29 +if \(strlen'
keys :
type_cmd 'pane show ckpts'
keys Escape Tab Tab
see "nullp ckpts pane" 'checkpoints \(Enter'
keys Enter
see "nullp rollback from pane" '^26 +int sum = 0;$'
see "nullp rolled back" 'stopped at bug_nullp.c:26'
keys :
type_cmd 'continue'
see "nullp no crash" 'exited normally'
see "nullp region lists its panes, output marked unseen" 'output\* deps \[ckpts\] F6'
keys Escape F6
see "nullp F6 shows the output" '\[output\] deps ckpts F6'
see "nullp program ran on" '^sum 2'
type_cmd 'pane show slices'
see "nullp slices pane" 'Slice 1 from bug_nullp.c:30#3'
type_cmd 'quit'
see "nullp quit" '^QZDB-EXITED 0'
no_leftover "nullp no process left" "$BIN"
tui_end
