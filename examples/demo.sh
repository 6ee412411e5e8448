#!/bin/sh
# make demo: build the bundled example and open qzdb on it. With no
# terminal (CI, a pipe) it runs a short scripted session instead.
cd "$(dirname "$0")/.."
mkdir -p examples/build
gcc -g -O0 -o examples/build/nullp examples/nullp.c || exit 1
if [ -t 0 ] && [ -t 1 ]; then
	echo "qzdb on examples/nullp.c: try 'run', 'bt', 'break note_directory if name == 0', 'help'."
	exec ./qzdb examples/build/nullp
fi
exec ./qzdb --batch -ex 'break note_directory' -ex 'run' -ex 'bt' \
	-ex 'delete' -ex 'continue' -ex 'bt' examples/build/nullp
