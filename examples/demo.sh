#!/bin/sh
# make demo: build the bundled examples and open qzdb on one of them. With
# no terminal (CI, a pipe) it replays that example's walkthrough session
# instead. The examples are built with the source directory mapped to ".",
# so their build-ids match the ones the session files were recorded with.
cd "$(dirname "$0")/.."
sh examples/build.sh >/dev/null || exit 1
if [ -t 0 ] && [ -t 1 ]; then   # the UI's first line says where help is
	exec ./qzdb examples/build/nullp
fi
exec ./qzdb --replay examples/nullp.qzs
