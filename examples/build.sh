#!/bin/sh
# Build the examples the way their session files expect (-g -O0, the
# checkout's path mapped to "." so the build-id is the same everywhere).
cd "$(dirname "$0")/.."
mkdir -p examples/build
for p in stack dfree heap dangle nullp avg list; do
	[ examples/build/$p -nt examples/$p.c ] && continue
	gcc -g -O0 -fdebug-prefix-map="$(pwd)"=. -o examples/build/$p examples/$p.c || exit 1
done
