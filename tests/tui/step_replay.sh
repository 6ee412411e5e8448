#!/bin/sh
# `qzdb --no-tui --replay FILE --step` on a real terminal (tmux; the
# full-screen replay is tests/tui/replay.sh): one command per
# key, captions shown before their command, `b` goes back one step (the
# re-run command gives the same output), q stops.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
sh examples/build.sh || { fail "step replay: examples build" "examples/build.sh failed"; exit 0; }

tui_start 100 40 -- --no-tui --replay examples/nullp.qzs --step
see "step: waits for a key" '^-- space or Enter: run, b: back, q: stop --'
see "step: caption before the first command" '^# The program adds up the values of four keys'
not_see "step: nothing run before the key" 'Breakpoint 1 at'
keys Space
see "step: Space runs one command" '^Breakpoint 1 at 0x[0-9a-f]+: file examples/nullp.c, line 29\.'
not_see "step: only one" 'Breakpoint 1, main'
keys Space
see "step: the next key runs the next" '^Breakpoint 1, main \(\) at examples/nullp.c:29'
keys Enter
see "step: Enter runs one too" '^Checkpoint 1 at nullp.c:29 '
keys Space
wait_for '\(qzdb\) continue'
keys b
see "step: b goes back one step" '^\[back one step\]'
keys Space
wait_for '\(qzdb\) continue'
not_see "step: record on again after going back" 'Recording is already on'
keys Space
see "step: the program crashes as recorded" 'Program received signal SIGSEGV'
n=$(screen -S -200 | grep -c 'Program received signal SIGSEGV')
[ "$n" = 1 ] && pass "step: one crash" || fail "step: one crash" "$n"
keys q
see "step: q stops the replay" 'QZDB-EXITED 0'
tui_end
