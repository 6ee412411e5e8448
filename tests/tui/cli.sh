#!/bin/sh
# The plain command line (--no-tui) on a terminal: line editing with
# cursor keys and kills, history (Up, kept in ~/.qzdb_history), completion,
# and the repeat of next on an empty line.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/basic-O0

tui_start 80 24 -- --no-tui "$BIN"
see "cli prompt" '^\(qzdb\)'
keys -l 'print 1+2'
keys Left BSpace
keys -l '*'
keys Enter
see "cli edit in the middle" '^\$1 = 2'
keys Up
see "cli history Up" '^\(qzdb\) print 1\*2$'
keys C-a
keys -l 'x'
keys C-e
keys -l '0'
keys C-a Delete Enter
see "cli C-a C-e Delete" '^\$2 = 20'
keys -l 'brea'
keys Tab
keys -l '58'
keys Enter
see "cli completion" 'Breakpoint 1 at .*line 58'
keys -l 'garbage words here'
keys C-w C-w C-u
keys -l 'run'
keys Enter
see "cli C-u kills" 'Breakpoint 1, main'
keys -l 'next'
keys Enter
see "cli next" '^59'
keys Enter
see "cli empty line repeats next" '^57'
keys C-c
see "cli C-c drops the line" '\^C'
keys C-d
see "cli C-d quits" '^QZDB-EXITED 0'
if grep -q '^print 1\*2$' "$TH/.qzdb_history"; then
	pass "cli history saved"
else
	fail "cli history saved" "not in ~/.qzdb_history"
fi
no_leftover "cli no process left" "$BIN"
tui_end

# Not a terminal: the plain reader, as before.
OUT=$(printf 'print 6*7\n' | timeout 20 $QZDB "$BIN" 2>&1)
expect "pipe stdin" '^\(qzdb\) \$1 = 42'
