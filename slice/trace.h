/* trace: the recording's storage. One compact variable-length record per
 * executed instruction (decode-cache id, then each memory address as a
 * delta from the previous one), plus side tables that change rarely: the
 * statement instance in effect, the control-dependence parent in effect,
 * and system-call memory writes. Every TRACE_BLK records a block header
 * keeps the byte offset and a summary of what the block defines, so the
 * slicer can decode blocks backwards and skip those that cannot matter. */
#ifndef QZ_SLICE_TRACE_H
#define QZ_SLICE_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "insn.h"
#include "trace-tab.h"

#define TRACE_BLK 256
#define TRACE_NRANGE 4

/* A decoded instruction at a runtime address, shared by all its executions. */
struct trace_insn {
	uint64_t pc;
	struct insn in;
	int32_t stmt;            /* statement (user line) index, -1: none */
	bool row_start;          /* starts an is_stmt line-table row */
	bool user;               /* in the program's own code */
};

struct trace_stmt { const char *file; int line; };
/* The side tables' rows (trace-tab.h, kept compressed): an instance is its
 * statement's n-th; a seg says which instance is in effect from record at
 * on (-1: none), a cd which control parent (a record, -1: none). */
struct trace_inst { uint32_t stmt; uint32_t n; };
/* Record numbers in the side tables are 32-bit: a recording stops at
 * TRACE_MAX records (at 4 bytes each that is 8 GiB already). */
#define TRACE_MAX 0x7fffffffull
struct trace_seg { uint32_t at; int32_t inst; };     /* from record `at` on */
struct trace_cd { uint32_t at; int32_t parent; };    /* parent record or -1 */
/* A system call's write into memory; for a read of a file, which file
 * (its device and inode, hashed: 0 unknown) and at what offset (-1). */
struct trace_sys { uint64_t at; uint64_t addr, len; uint64_t file; int64_t off; };

struct trace_blk {
	uint64_t off;            /* byte offset of its first record */
	uint64_t last_addr;      /* delta base at its start */
	uint64_t regdef;         /* registers any record in it defines */
	uint64_t lo[TRACE_NRANGE], hi[TRACE_NRANGE];   /* memory it writes */
	int nrange;
};

/* One decoded record, for the slicer. */
struct trace_rec {
	uint32_t id;             /* index into insns */
	bool skipped;            /* a rep instruction with count 0 */
	uint64_t addr[INSN_MAX_MEM];
};

/* Records beyond this many bytes in memory go to a temporary file,
 * compressed (zstd) a frame of whole blocks at a time, with an index
 * of frames; the frame in progress always stays in memory. */
#define TRACE_SPILL_DEFAULT ((size_t)4 << 20)   /* a frame a MiB: costs nothing measurable */
#define TRACE_FRAME_BYTES ((size_t)1 << 20)

/* A compressed frame in the file: blocks blk0 up to the next frame's. */
struct trace_frame { uint64_t file_off; uint32_t csize, size; uint64_t blk0; };
/* The frame last decompressed, for reading blocks backwards. */
struct trace_zcache { int64_t frame; uint8_t *buf; size_t cap; };

struct trace {
	uint8_t *buf;             /* record bytes [spilled, len) */
	size_t len, cap;          /* len: logical, counting spilled bytes */
	FILE *spill;              /* bytes [0, spilled) live here, in frames */
	size_t spilled;
	struct trace_frame *frames;
	size_t nframes, frames_cap;
	uint64_t file_bytes;      /* compressed bytes in the file */
	struct trace_zcache *zc;
	size_t spill_at;          /* 0: TRACE_SPILL_DEFAULT */
	bool spill_none;          /* no file could be made: no more tries */
	uint64_t n;              /* records */
	uint64_t last_addr;
	struct trace_blk *blks;
	size_t nblks, blks_cap;
	struct trace_insn *insns;
	size_t ninsns, insns_cap;
	struct trace_stmt *stmts;
	size_t nstmts, stmts_cap;
	struct trace_tab insts;   /* rows: struct trace_inst, by instance id */
	struct trace_tab segs;    /* rows: struct trace_seg, by at */
	struct trace_tab cds;     /* rows: struct trace_cd, by at */
	struct trace_tab_file *tabfile;   /* where the three keep full chunks */
	struct trace_sys *sys;
	size_t nsys, sys_cap;
};

/* Where the trace ends, to truncate back to (rollback). */
struct trace_mark { uint64_t n; size_t len, nblks, nsegs, ncds, nsys, ninsts; uint64_t last_addr; };

void trace_free(struct trace *t);
void trace_reset(struct trace *t);
/* Append a record of insns[id] with its memory addresses (nmem of them;
 * skipped: a rep instruction that did nothing). */
void trace_add(struct trace *t, uint32_t id, const uint64_t *addr, bool skipped);
/* A system call's write of [addr, addr+len) by the last record. */
void trace_add_sys(struct trace *t, uint64_t addr, uint64_t len);
void trace_set_inst(struct trace *t, int32_t inst);
void trace_set_cd(struct trace *t, int64_t parent);
/* A new statement instance (its id is the count before). */
int32_t trace_new_inst(struct trace *t, uint32_t stmt, uint32_t n);
static inline struct trace_inst trace_inst_get(const struct trace *t, int32_t inst)
{
	struct trace_row r = trace_tab_get(&t->insts, (size_t)inst);
	return (struct trace_inst){ r.a, r.b };
}
struct trace_seg trace_seg_get(const struct trace *t, size_t k);
/* Walking the records backwards (i never grows): the instance or control
 * parent in effect at record i, from segs or cds. */
struct trace_back { const struct trace_tab *tab; const struct trace_row *rows; size_t first, count, k; };
void trace_back_init(struct trace_back *c, const struct trace_tab *tab);
int32_t trace_back_at(struct trace_back *c, uint64_t i);
/* The first and last records of instance inst in the recording; false if
 * none is (either pointer may be NULL). */
bool trace_inst_span(const struct trace *t, int32_t inst, uint64_t *first, uint64_t *last);
/* Decode block b into recs (TRACE_BLK entries); returns how many. */
size_t trace_block(const struct trace *t, size_t b, struct trace_rec *recs);
/* The side-table value in effect at record i (binary search). */
int32_t trace_inst_at(const struct trace *t, uint64_t i);
int64_t trace_cd_at(const struct trace *t, uint64_t i);
/* Syscall writes of record i: index of the first in t->sys, count in *n. */
size_t trace_sys_of(const struct trace *t, uint64_t i, size_t *n);
void trace_mark(const struct trace *t, struct trace_mark *m);
void trace_truncate(struct trace *t, const struct trace_mark *m);
/* How many records the file holds (the first ones). */
uint64_t trace_spilled_records(const struct trace *t);
/* The spill file's path ("" if none) for `info record`. */
const char *trace_file_name(const struct trace *t, char *buf, size_t len);
/* Bytes held in memory by the trace (records, blocks, side tables). */
size_t trace_bytes(const struct trace *t);

#endif
