#!/bin/sh
# prune resolves names at the slice's criterion (issue 23), not in the
# frame the program stopped in: a parameter of a function that has
# returned, locals behind a smashed stack, FUNC::VAR, a plain name of the
# criterion's function only (never another frame's), and whole scopes.
. tests/lib.sh
rec() { qz -ex 'break main' -ex run -ex 'record on' -ex continue "$@"; }
F=tests/fixtures
line() { grep -nF -- "$2" "$F/$1" | head -1 | cut -d: -f1; }

# The crash is in rename_one's `}` with its stack smashed; copy_name, whose
# parameter limit guards the loop, returned long before.
rec -ex slice -ex 'info slice 1' -ex 'prune 1 copy_name::limit' -ex 'prune 1 rename_one::src' \
	-ex 'prune 1 main::argv' -ex 'prune 1 function copy_name' -ex 'info slice 1' $B/ov_ret-O0
expect "ret slice" '^Slice 1 from ov_ret.c:21#2: 9 statements, 224 edges$'
expect "prune a returned function's parameter" '^Slice 1 from ov_ret.c:21#2: 9 statements, 208 edges$'
expect "prune behind a smashed stack" '^Slice 1 from ov_ret.c:21#2: 7 statements, 206 edges$'
expect "prune function: all of copy_name's variables" '^Slice 1 from ov_ret.c:21#2: 3 statements, 63 edges$'

rec -ex slice -ex 'prune 1 limit' -ex 'prune 1 copy_name::nosuch' -ex 'prune 1 nosuch::x' \
	-ex 'prune 1 file ov_ret.c' -ex 'prune 1 library libnosuch' -ex 'prune 1 library' $B/ov_ret-O0
expect "a plain name is the criterion's function's, never another frame's" \
	"^error: No variable \"limit\" in rename_one \\(the criterion's function\\) nor a global or static of that name; write FUNC::limit"
expect "FUNC::VAR that does not exist" '^error: No variable "nosuch" in copy_name\.$'
expect "FUNC that does not exist" '^error: No function "nosuch" in the program\.$'
expect "file without statics" '^error: ov_ret.c defines no global or static\.$'
expect "library not mapped" '^error: No library named libnosuch is mapped\.$'
expect "scope without a name" '^error: Usage: prune ID library NAME$'

# ov_calc: globals and file statics; a library's memory
rec -ex slice -ex 'prune 1 file ov_calc.c' -ex 'prune 1 library libc' $B/ov_calc-O0
expect "calc slice" '^Slice 1 from ov_calc.c:23#1: '
expect "prune file: arrays and genstr go, the slice is the statement alone" \
	'^Slice 1 from ov_calc.c:23#1: 1 statements, 0 edges$'
expect_count "prune library too" 2 '^Slice 1 from ov_calc.c:23#1: 1 statements, 0 edges$'
