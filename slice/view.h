/* view: the recording as other modules may read it (detect/'s value
 * propagation chains): one recorded instruction at a time, read-only, and
 * recording turned on. The only slice/ header another module includes
 * (tests/code/layers.sh checks that). */
#ifndef QZ_SLICE_VIEW_H
#define QZ_SLICE_VIEW_H

#include <stdbool.h>
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

#endif
