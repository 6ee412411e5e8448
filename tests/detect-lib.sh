# Shared by the detector suites (tests/batch/detect*.sh), after tests/lib.sh:
# line FILE TEXT: the first line of fixture FILE holding TEXT; the
# patterns of any detector's report, of a normal exit, of an address.
F=tests/fixtures
line() { grep -nF -- "$2" "$F/$1" | head -1 | cut -d: -f1; }
report='^(Double free|Invalid free|Memory leak|NULL pointer dereference|Heap buffer overflow|Dangling pointer|Stack buffer overflow|Uninitialised value)'
normal='^\[Inferior 1 \(process [0-9]+\) exited normally\]$'
hex='0x[0-9a-f]+'
