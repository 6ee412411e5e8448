#!/bin/sh
# A walkthrough in the UI (--replay --step, tmux 80x24): between steps the
# student may run any command that changes nothing (print, info, list...)
# and use the view keys, but not step the program; Space goes on; a task
# waits until the student reaches its state (examples/avg.qzs: stop at the
# iteration that reads past the array, then print the address that names
# the variable there); the walkthrough's own checkpoints are hidden from
# `info checkpoints` and listed by `info checkpoints all`.
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
sh examples/build.sh >/dev/null || { fail "examples build" "examples/build.sh"; exit 0; }

tui_start 80 24 -- --replay "$(pwd)/examples/avg.qzs" --step
see "the walkthrough waits" 'Space: run it, Backspace: back, C-x: stop'
see "its first caption" '^# The average of five scores'
keys Space
see "Space runs the first command" '^Breakpoint 1 at 0x[0-9a-f]+: file examples/avg\.c, line 13\.'
type_cmd 'print sizeof(scores)'
see "a read-only command between steps" '^\$1 = 20$'
type_cmd 'start'
see "a command that runs the program is refused between steps" 'steps only commands that change nothing run'
see "... naming it" 'not `start`; go on'
keys Escape j k
keys Space
see "the program stops in average" 'stopped at avg\.c:13'
see "the task is shown" 'Task: Stop at the line that adds v\[i\] to total'
type_cmd 'print n'
see "the student looks around during a task" '^\$[0-9]+ = 5$'
type_cmd 'break 15 if i == 5'
type_cmd 'continue'
see "the student reaches the state: the task is done" 'Task done: every expectation holds\.'
see "the next task" 'Task: Print the address of the int'
type_cmd 'print v[i]'
keys Escape Space
see "Space on an unfinished task says why" 'Not done yet: `printed` printed: \$[0-9]+ = 1000'
type_cmd 'print &v[i]'
see "the walkthrough goes on after the tasks" 'total holds the five scores'
type_cmd 'info checkpoints'
see "the walkthrough's checkpoints are hidden" '^No checkpoints\.'
type_cmd 'info checkpoints all'
see "info checkpoints all lists them" '\(walkthrough\)'
keys C-x
see "C-x stops the walkthrough" 'replay (stopped|done)'
type_cmd 'quit'
see "quit" '^QZDB-EXITED 0'
no_leftover "no process left" "$(pwd)/examples/build/avg"
tui_end
