#!/bin/sh
# The locals pane: the function's arguments first, then its locals, each
# under a heading; after a step, the values that changed are drawn in the
# theme's `changed` colour (default theme: bright yellow, SGR 93), the
# others not.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
fixtures_build || exit 1
BIN=$B/basic-O0

tui_start 120 40 -- "$BIN"
type_cmd 'break 59'
keys F5
see "locals: stopped in main" 'Breakpoint 1, main'
see "locals: locals shown" 'list = 0x0$'
# the side pane's column: the text after the source pane's 80 columns
side=$(screen | cut -c81- | sed 's/^ *//')
at() { printf '%s\n' "$side" | grep -n -m1 -- "$1" | cut -d: -f1; }
a=$(at '^args$') g=$(at '^argc = 1$') v=$(at '^list = 0x0$')
l=$(printf '%s\n' "$side" | grep -n -- '^locals$' | sed -n 2p | cut -d: -f1)   # 1st: the title
if [ -n "$a" ] && [ -n "$g" ] && [ -n "$l" ] && [ -n "$v" ] &&
   [ "$a" -lt "$g" ] && [ "$g" -lt "$l" ] && [ "$l" -lt "$v" ]; then
	pass "locals: arguments first, then locals, under headings"
else
	fail "locals: arguments first, then locals, under headings" "lines args=$a argc=$g locals=$l list=$v in: $(echo $side)"
fi
keys F10
see "locals: list changed by the step" 'list = 0x[0-9a-f]{6,}'
line() { screen -e | grep -- "$1" | head -1; }
case "$(line 'list = 0x')" in
*'[93m'*) pass "locals: the changed value highlighted" ;;
*) fail "locals: the changed value highlighted" "$(line 'list = 0x' | cat -v)" ;;
esac
case "$(line 'acc = 0')" in
*'[93macc'*) fail "locals: an unchanged value not highlighted" "$(line 'acc = 0' | cat -v)" ;;
*) pass "locals: an unchanged value not highlighted" ;;
esac
type_cmd 'quit'
see "locals: quit" '^QZDB-EXITED 0'
no_leftover "locals: no process left" "$BIN"
