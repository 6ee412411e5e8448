/* view: the recording as other modules may read it (detect/'s value
 * propagation chains): one recorded instruction at a time, read-only, and
 * recording turned on. The only slice/ header another module includes
 * (tests/code/layers.sh checks that). */
#ifndef QZ_SLICE_VIEW_H
#define QZ_SLICE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qz;
struct slice_view;

enum { SLICE_VIEW_MEM_R = 1, SLICE_VIEW_MEM_W = 2 };

/* One recorded instruction. Register numbers as in the recorder's masks
 * (slice_view_reg gives a name's). */
struct slice_view_rec {
	uint64_t pc;
	bool user;               /* the program's own code */
	bool call;               /* a call instruction */
	const char *text;        /* its mnemonic: "mov", "pop" */
	const char *file;        /* the statement it belongs to (library code: */
	int line;                /* the program's statement that called it), or NULL */
	int32_t inst;            /* that statement instance, -1 if none */
	uint64_t def, use, cond_def;   /* register masks (1 << n) */
	int nmem;
	/* memory operands: address, size, SLICE_VIEW_MEM_*, and the registers
	 * that form the address (0xff: none) */
	struct { uint64_t addr; unsigned size; unsigned rw; uint8_t base, index; } mem[3];
};

/* Records in the current recording (0 if nothing was recorded), and
 * whether recording is on. */
uint64_t slice_view_count(struct qz *q);
bool slice_view_recording(struct qz *q);
/* Turn recording on (as `record on`); -1 with the error set. */
int slice_view_record(struct qz *q);
/* A reader (it keeps one decoded block): get record i into out, false
 * past the end. Valid until the recording changes. */
struct slice_view *slice_view_open(struct qz *q);
bool slice_view_get(struct slice_view *v, uint64_t i, struct slice_view_rec *out);
void slice_view_close(struct slice_view *v);
/* Decode the instruction at pc in the program's memory now (its memory
 * operands' addresses are 0: it has not run); false if it does not decode. */
bool slice_view_decode(struct qz *q, uint64_t pc, struct slice_view_rec *out);
/* The register number of a name ("rdi"), -1. */
int slice_view_reg(const char *name);

/* An instruction about to run and the memory it accesses (a rep string
 * instruction: one iteration, asked once per iteration; mem[] past nmem
 * is not set). */
struct slice_view_access {
	uint64_t pc;
	bool user;               /* the program's own code */
	bool again;              /* fire let it run: it runs now (check must
	                            not ask to look again) */
	int nmem;
	struct { uint64_t addr; unsigned size; unsigned rw; uint8_t base, index; } mem[3];
	/* with every (below): what the instruction is */
	uint64_t sp;             /* rsp before it */
	uint64_t use, def, cond_def;   /* register masks as slice_view_rec's */
	enum slice_view_kind {
		SLICE_VIEW_OTHER, SLICE_VIEW_JCC, SLICE_VIEW_JMP_IND, SLICE_VIEW_CALL,
		SLICE_VIEW_CALL_IND, SLICE_VIEW_RET, SLICE_VIEW_SYSCALL
	} kind;
	bool zero_idiom;         /* xor r,r and the like: defines without using */
	/* per general register n, 4 bits at 4n: the low bytes of it read
	 * (rd) and written (wr): 1, 2, 4 or 8; 0: all (a 4-byte write zeroes
	 * the upper half, 1 and 2 keep it) */
	uint64_t gpr_rd, gpr_wr;
	/* a general register's value before it runs (by number) */
	uint64_t (*reg)(void *rctx, int r);
	void *rctx;
	bool unhooked;           /* the engine runs some code without asking
	                            now (the emulator's hot loops): turning
	                            every on must wait for fire (below) */
	bool imm;                /* has an immediate operand */
	const char *text;        /* the mnemonic */
};

/* The machine at a heap call (slice_view_watch's at): the registers an
 * allocator's entry and return need, and its memory (read: 0, -1). */
struct slice_view_machine {
	uint64_t pc, sp, rdi, rsi, rdx, rax;
	bool site;               /* pc is a planted site */
	/* the return address of the innermost open call the program's own
	 * code made (the program's call site of a library's heap call), 0 if
	 * not known */
	uint64_t prog_ret;
	int (*read)(void *rctx, uint64_t addr, void *buf, size_t len);
	void *rctx;
};

/* A watcher of memory accesses (detect/'s read and write events). check
 * is asked before each instruction with memory operands runs, under
 * either recording engine, and must be quick and read nothing of the
 * process; true: the watcher wants to look. fire is then called with the
 * process stopped before that instruction, in exactly the state native
 * execution would have it, and returns an enum run_ev: RUN_STOPPED to
 * stop there (it printed why), RUN_STEPPED to let the instruction run
 * (check is not asked again for it, nor after a stop when the program
 * goes on from there). One thread only: when the program starts a
 * second, the watcher is turned off and lost is told. */
struct slice_view_watch {
	bool (*check)(void *ctx, const struct slice_view_access *a);
	int (*fire)(void *ctx);
	/* The watcher was turned off by the engine (why: a reason). */
	void (*lost)(void *ctx, const char *why);
	/* Optional: after a system call, each range the kernel wrote (as
	 * slice/sys.c models it: len 0 once when its effects are unknown). */
	void (*sys)(void *ctx, uint64_t addr, uint64_t len);
	void *ctx;
	/* NULL: ask only for instructions with memory operands. Else *every
	 * says whether to ask for every instruction, read before each one:
	 * the watcher may change it in check or fire, and it takes effect at
	 * the next instruction, except that turning it on while the access
	 * says unhooked must be done in fire (check returns true; the
	 * instruction is then asked again, again set). */
	const bool *every;
	/* Optional, under the emulator only (heap calls without a ptrace
	 * stop): asked before the machine runs the instruction at a planted
	 * site (not a run target; not the first instruction of a step) or at
	 * one of the nrets addresses of rets, with the machine's registers
	 * and memory (m->read). true: handled, the machine runs on; false:
	 * the machine stops before pc as at any site (at plants what must
	 * then trap there). */
	bool (*at)(void *ctx, const struct slice_view_machine *m);
	const uint64_t *rets;
	const size_t *nrets;
	/* With at: the program is about to run outside the emulator (stepi,
	 * the single-step engine): nothing may be awaited in the machine. */
	void (*native)(void *ctx);
	/* Optional: library code the emulator ran without asking (maint
	 * emulator skip-libs, only while every is off) wrote [addr, addr+len). */
	void (*lib_wrote)(void *ctx, uint64_t addr, uint64_t len);
	/* Optional, while every is off: the emulator may run instructions
	 * with memory operands of the program's own hot code without asking
	 * check, and asks this instead before each of their loads and stores
	 * ([addr, addr+size); flags: SLICE_VIEW_STORE, and SLICE_VIEW_FIRST
	 * on an instruction's first access). It must be quicker still than
	 * check. true: the instruction is to be asked to check after all (the
	 * machine stops before it and check is then asked as usual). */
	bool (*quick)(void *ctx, uint64_t addr, uint32_t size, unsigned flags);
};
enum { SLICE_VIEW_STORE = 2, SLICE_VIEW_FIRST = 4 };

/* Run the program under the recorder's engine from now on (without
 * recording, unless recording is on) so that w sees every access: until
 * slice_view_unwatch or the process ends. -1 with the error set. */
int slice_view_watch(struct qz *q, const struct slice_view_watch *w);
void slice_view_unwatch(struct qz *q);
/* A system call's name ("write"), or its number as text. */
const char *slice_view_sys_name(long nr, char *buf, size_t size);
/* glibc's string functions of programs started from now on: the SSE2
 * ones the emulator runs (true) or the vector ones the CPU picks (set
 * record-libc); and which it is now. */
void slice_view_libc_baseline(bool on);
bool slice_view_libc_is_baseline(void);
/* Whether the watcher is on, and the engine running the program for it
 * ("emulate", "single-step"). */
bool slice_view_watching(struct qz *q, const char **engine);
/* Hot loops of the program's own code that touch no memory, run without
 * the per-instruction hook while it watched (since the session began). */
uint64_t slice_view_loops_unhooked(struct qz *q);
/* Blocks of library code run without the per-instruction hook while it
 * watched, and those of them run on the CPU up to an instruction the
 * emulator leaves to it (since the session began). */
void slice_view_lib_blocks(struct qz *q, uint64_t *looked, uint64_t *cpu);
/* Hot blocks of the program's own code translated with only the
 * instructions that need the per-instruction hook hooked (since the
 * session began); why that stopped for good, or NULL. */
uint64_t slice_view_lean_blocks(struct qz *q, const char **broken);

#endif
