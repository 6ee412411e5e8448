#!/bin/sh
# Benchmark of shared-library tracking, sourced by tests/bench.sh (uses its
# best/report/per helpers, $N is not used here):
#   dlopen-cycle  a pending breakpoint (never placed) and `run` of
#                 dlopen_main-O0 doing NC dlopen/call/dlclose cycles: (that
#                 time - the same with 0 cycles) / NC, in us per cycle. Each
#                 cycle makes the dynamic linker report 4 changes, each
#                 re-reads the link map and re-resolves the breakpoint.
NC=${NC:-300}
DLBIN=$B/dlopen_main-O0
DLLIB=$B/libplugin.so
cyc="plugin cycles $NC of $NC"
set -- -ex 'set breakpoint pending on' -ex 'break no_such_plugin_fn'
g_full=$(best gdb-dlopen "$cyc" "Breakpoint 1," gdb "$@" -ex run --args $DLBIN $DLLIB $NC)
g_base=$(best gdb-dlopen-base "plugin cycles 0" "Breakpoint 1," gdb "$@" -ex run --args $DLBIN $DLLIB 0)
q=""
if [ $have_qz = 1 ]; then
	q_full=$(best qz-dlopen "$cyc" "Breakpoint 1," qz "$@" -ex run $DLBIN $DLLIB $NC)
	q_base=$(best qz-dlopen-base "plugin cycles 0" "Breakpoint 1," qz "$@" -ex run $DLBIN $DLLIB 0)
	q=$(awk -v f="$q_full" -v b="$q_base" -v n="$NC" 'BEGIN { if (f > b) printf "%.1f\n", (f - b) / n / 1000 }')
fi
g=$(awk -v f="$g_full" -v b="$g_base" -v n="$NC" 'BEGIN { if (f > b) printf "%.1f\n", (f - b) / n / 1000 }')
report dlopen-cycle us/cycle "$q" "$g"
