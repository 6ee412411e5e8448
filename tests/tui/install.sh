#!/bin/sh
# `make install PREFIX=DIR` gives a qzdb that works from anywhere: the
# program in DIR/bin, its manual page, and the themes, detector specs and
# examples in DIR/share/qzdb, where the installed qzdb finds them (the UI
# loads a theme from there; `detect on` reads the specs from there).
cd "$(dirname "$0")/../.." || exit 1
. tests/tui/common.sh
P=$(mktemp -d /tmp/qzdb-prefix-XXXXXX)
# -o qzdb: install the qzdb built for this run, never rebuild it here
if make -s --no-print-directory -o qzdb install PREFIX="$P" >/dev/null; then
	pass "make install PREFIX"
else
	fail "make install PREFIX" "failed"
fi
for f in bin/qzdb share/man/man1/qzdb.1 share/qzdb/themes/light.theme \
	 share/qzdb/detect/specs/leak.spec share/qzdb/examples/nullp.qzs; do
	[ -f "$P/$f" ] && pass "installed $f" || fail "installed $f" "missing"
done
if command -v groff >/dev/null; then
	w=$(groff -man -Tutf8 -ww "$P/share/man/man1/qzdb.1" 2>&1 >/dev/null)
	[ -z "$w" ] && pass "the manual page formats without warnings" ||
		fail "the manual page formats without warnings" "$w"
fi
# the installed qzdb, run from elsewhere, with the build tree out of sight
BIN=$(pwd)/$B/basic-O0
out=$(cd / && "$P/bin/qzdb" --batch -ex 'detect on' "$BIN" 2>&1)
echo "$out" | grep -q 'Detectors on: dangling double-free heap-overflow invalid-free leak null-deref stack-overflow uninit\.' &&
	pass "installed qzdb finds its detector specs" ||
	fail "installed qzdb finds its detector specs" "$out"
QZ_ABS=$P/bin/qzdb
tui_start 80 24 -- --theme light "$BIN"
type_cmd 'theme'
see "installed qzdb finds its themes" "Theme: light \\(themes in $P/bin/../share/qzdb/themes\\)"
type_cmd 'quit'
see "installed qzdb quits" '^QZDB-EXITED 0'
tui_end
rm -rf "$P"
