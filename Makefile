# qzdb: a terminal debugger for C programs on x86-64 Linux.
# `make` builds ./qzdb, `make test` runs every test, `make bench` the
# benchmarks against gdb, `make demo` opens qzdb on a bundled example.

CC      ?= cc
PKGS    := libelf capstone
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra $(EXTRA_CFLAGS)
CPPFLAGS += -I. -Icore -I/usr/include/libdwarf $(shell pkg-config --cflags $(PKGS))
# Debian ships libdwarf 20210528 as a static library without a .pc file.
# libseccomp builds the sandbox's system-call filter (core/proc/sandbox.c).
LIBS    := -ldwarf $(shell pkg-config --libs $(PKGS)) -lZydis -lz -lseccomp -lunicorn -lzstd
TUILIBS := $(shell pkg-config --libs ncursesw 2>/dev/null || echo -lncursesw)

CORE_SRC   := $(wildcard core/*/*.c)
# A module is a top-level folder with a cmd-*.c (its commands), listed in
# modules.c; its sources join the engine library without an edit here.
MOD_DIRS   := $(patsubst %/,%,$(sort $(dir $(wildcard */cmd-*.c))))
ENGINE_SRC := $(CORE_SRC) $(foreach d,$(MOD_DIRS),$(wildcard $(d)/*.c)) modules.c
HEADERS    := $(wildcard core/*/*.h) $(foreach d,$(MOD_DIRS),$(wildcard $(d)/*.h)) modules.h
ENGINE_OBJ := $(ENGINE_SRC:.c=.o)
TUI_SRC    := $(wildcard tui/*.c)
TUI_OBJ    := $(TUI_SRC:.c=.o)
UNIT_SRC   := $(wildcard tests/unit/*.c)
UNIT_BIN   := $(UNIT_SRC:.c=)

all: qzdb

# The allocator qzdb preloads into programs run with only heap-call
# detectors on (detect/preload.c): a plain shared object, never built with
# the sanitizers (it runs inside the program).
qzheap.so: detect/preload/qzheap.c
	$(CC) -O2 -g -fPIC -shared -fno-omit-frame-pointer -Wall -Wextra -o $@ $<

# The undo engine's save agent (ckpt/agent/agent.c): freestanding code
# qzdb maps into the program, as one flat blob embedded in ckpt/agent.c;
# never built with the sanitizers (it runs inside the program, no libc).
AGENT_CFLAGS := -O2 -fPIC -ffreestanding -fno-builtin -nostdlib -fno-stack-protector \
	-fcf-protection=none -fno-asynchronous-unwind-tables -fno-tree-loop-distribute-patterns \
	-mno-sse -Wall -Wextra
ckpt/agent/agent-blob.h: ckpt/agent/agent.c ckpt/agent/agent-abi.h ckpt/agent/agent.ld
	gcc $(AGENT_CFLAGS) -c -o ckpt/agent/agent.o ckpt/agent/agent.c
	ld -T ckpt/agent/agent.ld -o ckpt/agent/agent.elf ckpt/agent/agent.o
	objcopy -O binary -j .text ckpt/agent/agent.elf ckpt/agent/agent.bin
	cd ckpt/agent && xxd -i agent.bin > agent-blob.h

ckpt/agent.o: ckpt/agent/agent-blob.h

libqzcore.a: $(ENGINE_OBJ)
	rm -f $@
	ar rcs $@ $^

qzdb: $(TUI_OBJ) libqzcore.a qzheap.so slice/emu-inline.list
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,--dynamic-list=slice/emu-inline.list -o $@ $(TUI_OBJ) libqzcore.a $(LIBS) $(TUILIBS)

%.o: %.c $(HEADERS) $(wildcard tui/*.h)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

tests/unit/%: tests/unit/%.c tests/unit/unit.h libqzcore.a
	$(CC) $(CPPFLAGS) -Itests/unit $(CFLAGS) -o $@ $< libqzcore.a $(LIBS)

deps:
	@sh .ci/deps.sh

test: deps
	$(MAKE) qzdb $(UNIT_BIN)
	@sh tests/run.sh

# `make difftest`: qzdb against gdb in random sessions on 20 csmith programs
# (tests/diff/sessions.sh, about 5,000 commands) and 10 on each of three real
# programs (about 1,900), with the tables of differences by command and
# optimisation level; make test runs 2 csmith programs and 1 session each.
difftest: deps
	$(MAKE) qzdb
	@SESS_PROGS=$${SESS_PROGS:-20} SESS_N=$${SESS_N:-4} SESS_MAX=$${SESS_MAX:-100000} \
		sh tests/diff/sessions.sh
	@SESS_REAL=1 SESS_N=$${SESS_REAL_N:-10} SESS_MAX=$${SESS_MAX:-100000} \
		sh tests/diff/sessions.sh

# `make bench QUICK=1`: fewer runs and iterations (tests/bench.sh).
bench: deps
	$(MAKE) qzdb
	@QUICK=$(QUICK) sh tests/bench.sh

# `make demo` prints nothing before the UI but deps' one line when it
# installs packages: the build is silent unless it fails.
demo: deps
	@$(MAKE) -s --no-print-directory qzdb >/dev/null
	@sh examples/demo.sh

# `make install PREFIX=DIR`: qzdb in DIR/bin, the manual page in
# DIR/share/man/man1, themes, detector specs and examples in
# DIR/share/qzdb (where an installed qzdb looks: util's path_beside_exe).
PREFIX ?= /usr/local
DATADIR = $(DESTDIR)$(PREFIX)/share/qzdb
install: qzdb
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DATADIR)/themes $(DATADIR)/detect/specs $(DATADIR)/examples
	install -m 755 qzdb $(DESTDIR)$(PREFIX)/bin/qzdb
	install -m 644 qzdb.1 $(DESTDIR)$(PREFIX)/share/man/man1/qzdb.1
	install -m 644 themes/*.theme $(DATADIR)/themes
	install -m 644 detect/specs/*.spec $(DATADIR)/detect/specs
	install -m 644 qzheap.so $(DATADIR)/qzheap.so
	install -m 644 examples/*.c examples/*.qzs examples/*.sh $(DATADIR)/examples

# `make asan`: every test with qzdb built with ASan and UBSan. Undefined
# behaviour is fatal (a report alone would pass unseen: tests read
# stdout); leaks inside ncurses (a terminal it cannot use) are its own.
asan:
	$(MAKE) clean
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp $(MAKE) \
		EXTRA_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" test

clean:
	rm -f qzdb qzheap.so libqzcore.a $(ENGINE_OBJ) $(TUI_OBJ) $(UNIT_BIN)
	rm -f ckpt/agent/agent.o ckpt/agent/agent.elf ckpt/agent/agent.bin ckpt/agent/agent-blob.h
	rm -rf tests/build

.PHONY: all deps test difftest bench demo install asan clean

# Fuzzing: libFuzzer harnesses in tests/fuzz/ over core/ built with clang
# and ASan/UBSan in tests/build/fuzz/ (apart from the normal objects).
# `make fuzz` runs each harness FUZZ_SECONDS over its seeds; new inputs go
# to tests/build/fuzz/corpus/, crashes to tests/build/fuzz/crash-*.
# fuzz_qzs replays each session sandboxed on a fixture program.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_DIR     := tests/build/fuzz
FUZZ_CFLAGS  := -std=gnu11 -g -O1 -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=undefined
# the whole engine: core's command table names the other modules' handlers
FUZZ_OBJ     := $(patsubst %.c,$(FUZZ_DIR)/%.o,$(ENGINE_SRC))
FUZZ_BIN     := $(FUZZ_DIR)/fuzz_expr $(FUZZ_DIR)/fuzz_elf $(FUZZ_DIR)/fuzz_qzs $(FUZZ_DIR)/fuzz_spec

$(FUZZ_DIR)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# the command table names slice/'s handlers: those objects link in too
$(FUZZ_DIR)/slice-%.o: slice/%.c $(HEADERS)
	@mkdir -p $(FUZZ_DIR)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_OBJ) $(LIBS)

fuzz-build: $(FUZZ_BIN)

fuzz: deps fuzz-build
	@sh -c '. tests/lib.sh && fixtures_build'
	@rc=0; for h in expr elf qzs spec; do \
		mkdir -p $(FUZZ_DIR)/corpus/$$h; \
		echo "fuzz: $$h for $(FUZZ_SECONDS)s"; \
		$(FUZZ_DIR)/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -timeout=10 \
			-artifact_prefix=$(FUZZ_DIR)/$$h- $$(cat tests/fuzz/$$h.options 2>/dev/null) \
			$(FUZZ_DIR)/corpus/$$h tests/fuzz/seeds/$$h || rc=1; \
	done; exit $$rc

.SECONDARY: $(FUZZ_OBJ)
.PHONY: fuzz fuzz-build
