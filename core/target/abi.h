/* abi: System V x86-64 argument and return value classification. */
#ifndef QZ_ABI_H
#define QZ_ABI_H

#include <stdint.h>

struct di_type;

/* The class of one eightbyte of a value. */
enum abi_class { ABI_NONE, ABI_INT, ABI_SSE };

enum abi_kind {
	ABI_VOID,          /* nothing returned */
	ABI_REGS,          /* in rax/rdx and xmm0/xmm1, per eightbyte class */
	ABI_MEMORY,        /* in the caller's memory; rax holds its address */
	ABI_UNSUPPORTED,   /* x87 long double, packed fields, functions */
};

/* How a value of type t is passed or returned; cls[0..1] the classes of
 * its eightbytes when ABI_REGS. */
enum abi_kind abi_classify(const struct di_type *t, enum abi_class cls[2]);

/* The 16 bytes of a value of classes cls from the integer registers ints
 * (rax, rdx) and the low halves of the SSE registers sses (xmm0, xmm1),
 * taken in order. */
void abi_gather(const enum abi_class cls[2], const uint64_t ints[2], const uint64_t sses[2],
		uint8_t out[16]);

#endif
