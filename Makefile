# qzdb: a terminal debugger for C programs on x86-64 Linux.
# `make` builds ./qzdb, `make test` runs every test, `make bench` the
# benchmarks against gdb, `make demo` opens qzdb on a bundled example.

CC      ?= cc
PKGS    := libelf capstone
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra $(EXTRA_CFLAGS)
CPPFLAGS += -Icore -I/usr/include/libdwarf $(shell pkg-config --cflags $(PKGS))
# Debian ships libdwarf 20210528 as a static library without a .pc file.
LIBS    := -ldwarf $(shell pkg-config --libs $(PKGS)) -lz
TUILIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

ENGINE_SRC := $(wildcard core/*.c alter/*.c ckpt/*.c slice/*.c)
ENGINE_OBJ := $(ENGINE_SRC:.c=.o)
TUI_SRC    := $(wildcard tui/*.c)
TUI_OBJ    := $(TUI_SRC:.c=.o)
UNIT_SRC   := $(wildcard tests/unit/*.c)
UNIT_BIN   := $(UNIT_SRC:.c=)

all: qzdb

libqzcore.a: $(ENGINE_OBJ)
	rm -f $@
	ar rcs $@ $^

qzdb: $(TUI_OBJ) libqzcore.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TUI_OBJ) libqzcore.a $(LIBS) $(TUILIBS)

%.o: %.c $(wildcard core/*.h alter/*.h ckpt/*.h slice/*.h tui/*.h)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

tests/unit/%: tests/unit/%.c tests/unit/unit.h libqzcore.a
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -o $@ $< libqzcore.a $(LIBS)

deps:
	@sh .ci/deps.sh

test: deps
	$(MAKE) qzdb $(UNIT_BIN)
	@sh tests/run.sh

bench: deps
	$(MAKE) qzdb
	@sh tests/bench.sh

demo: deps
	$(MAKE) qzdb
	@sh examples/demo.sh

asan:
	$(MAKE) clean
	$(MAKE) EXTRA_CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" LDFLAGS="-fsanitize=address,undefined" test

clean:
	rm -f qzdb libqzcore.a $(ENGINE_OBJ) $(TUI_OBJ) $(UNIT_BIN)
	rm -rf tests/build

.PHONY: all deps test bench demo asan clean
