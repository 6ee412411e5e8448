#!/bin/sh
# Every descriptor qzdb opens is close-on-exec: qzdb runs threads (the UI,
# the engine, the checkpoint protector), so one opened without the flag
# can leak into a program another thread is starting (kill.sh checks the
# descriptors of a running qzdb; this checks the sources, where a new
# fopen without "e" or open without O_CLOEXEC would otherwise wait for a
# test to catch it at the right moment).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

src=$(git ls-files '*.c' 2>/dev/null | grep -v '^tests/')
[ -n "$src" ] || src=$(find . -name '*.c' ! -path './tests/*')
# fopen(..., "MODE") with a literal mode lacking e
bad=$(grep -nE 'fopen\([^;]*, *"[rwa+]*"\)' $src | grep -vE 'fopen\([^;]*, *"[rwa+]*e[rwa+]*"\)')
[ -z "$bad" ] && pass "fopen modes all have e (O_CLOEXEC)" ||
	fail "fopen modes all have e (O_CLOEXEC)" "$bad"
# open/openat calls whose flags lack O_CLOEXEC (one-line calls)
bad=$(grep -nE '[^_a-z](open|openat)\([^;]*O_(RDONLY|WRONLY|RDWR)' $src | grep -v O_CLOEXEC)
[ -z "$bad" ] && pass "open flags all have O_CLOEXEC" ||
	fail "open flags all have O_CLOEXEC" "$bad"
