#!/bin/sh
# Benchmark of shared-library tracking, sourced by tests/bench.sh (uses its
# figure, qzx, gdbx):
#   dlopen-cycle  a pending breakpoint (never placed) and `run` of
#                 dlopen_main-O0 doing NC dlopen/call/dlclose cycles: (that
#                 time - the same with 0 cycles) / NC, in us per cycle. Each
#                 cycle makes the dynamic linker report 4 changes, each
#                 re-reads the link map and re-resolves the breakpoint.
NC=${NC:-300}
DLBIN=$B/dlopen_main-O0
DLLIB=$B/libplugin.so
qf() { qzx -ex 'set breakpoint pending on' -ex 'break no_such_plugin_fn' -ex run $DLBIN $DLLIB $NC; }
qb() { qzx -ex 'set breakpoint pending on' -ex 'break no_such_plugin_fn' -ex run $DLBIN $DLLIB 0; }
gf() { gdbx -ex 'set breakpoint pending on' -ex 'break no_such_plugin_fn' -ex run --args $DLBIN $DLLIB $NC; }
gb() { gdbx -ex 'set breakpoint pending on' -ex 'break no_such_plugin_fn' -ex run --args $DLBIN $DLLIB 0; }
FMUST="plugin cycles $NC of $NC" FNOT="Breakpoint 1," BMUST="plugin cycles 0" BNOT="Breakpoint 1,"
figure dlopen-cycle us/cycle $NC
