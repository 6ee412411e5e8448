/* slice-input: the narrow, read-only view of a recording that reduce/
 * uses for relevant-input analysis (issue 21): after recording a failing
 * run up to its failure, which input bytes the failure depends on (data
 * and control, through the backward slice of everything the last
 * recorded statement instance uses), who used each, and the slice's
 * dependence edges to build the input decomposition tree from. Nothing
 * here changes the session's slices or recording. */
#ifndef QZ_SLICE_INPUT_H
#define QZ_SLICE_INPUT_H

#include <stddef.h>
#include <stdint.h>

struct qz;

/* A recorded system-call write; for a read, the file it read (an id from
 * slice_input_file_id, 0 unknown) and the offset of addr in it (-1). */
struct slice_input_sys { uint64_t addr, len, file; int64_t off; };
/* Statement instance user used the byte at addr, written by sys[sys], or
 * (sys -1) already in memory when recording began (argv, environment). */
struct slice_input_use { int32_t user, sys; uint64_t addr; };
/* from depends on to: through data, or control (to is from's dynamic
 * control parent, the branch instance that decided it ran); again: to is
 * an earlier instance of from's own statement (a loop's next iteration,
 * decided by the last). */
struct slice_input_edge { int32_t from, to; uint8_t control, again; };

struct slice_input {
	int32_t crit;             /* the failure's statement instance */
	struct slice_input_sys *sys;
	size_t nsys;
	struct slice_input_use *uses;
	size_t nuses;
	struct slice_input_edge *edges;
	size_t nedges;
	size_t nmembers;          /* statement instances in the slice */
	size_t ninsts;            /* instances recorded (user ids are below) */
};

/* Slice back from the last statement instance of the recording; 0, or -1
 * with the session's error set (nothing recorded). */
int slice_input_deps(struct qz *q, struct slice_input *out);
void slice_input_free(struct slice_input *in);
/* The id struct slice_input_sys.file has for a file (from stat). */
uint64_t slice_input_file_id(uint64_t dev, uint64_t ino);

#endif
