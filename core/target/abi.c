/* abi: the System V x86-64 calling convention as a debugger needs it:
 * which registers a value of a C type travels in (the classification of
 * its eightbytes), to read what a function returned (finish) and to pass
 * arguments and read the result of a call made from the debugger. */
#include "abi.h"

#include <string.h>

#include "dinfo/dinfo.h"

#define ABI_DW_ATE_float 0x04

static void abi_merge(enum abi_class *c, enum abi_class add)
{
	if (*c == ABI_NONE || add == ABI_INT)
		*c = add;
}

/* Classify the scalars of t laid at byte off into cls[]; false for what
 * this does not pass in registers (x87 long double, unaligned fields). */
static bool abi_walk(const struct di_type *t, uint64_t off, enum abi_class cls[2])
{
	t = di_type_strip(t);
	if (!t || off + t->size > 16)
		return false;
	switch (t->kind) {
	case DI_BASE:
		if (t->encoding == ABI_DW_ATE_float && t->size > 8)
			return false;   /* long double: x87 */
		if (t->size && off % t->size)
			return false;   /* unaligned (packed) */
		abi_merge(&cls[off / 8], t->encoding == ABI_DW_ATE_float ? ABI_SSE : ABI_INT);
		return true;
	case DI_PTR:
	case DI_ENUM:
		abi_merge(&cls[off / 8], ABI_INT);
		return true;
	case DI_STRUCT:
	case DI_UNION:
		for (size_t i = 0; i < t->nmembers; i++) {
			const struct di_member *m = &t->members[i];
			if (m->bit_size)
				abi_merge(&cls[(off + m->offset) / 8], ABI_INT);
			else if (!abi_walk(m->type, off + m->offset, cls))
				return false;
		}
		return true;
	case DI_ARRAY: {
		const struct di_type *e = di_type_strip(t->target);
		if (!e || !e->size)
			return false;
		for (uint64_t at = 0; at < t->size; at += e->size)
			if (!abi_walk(e, off + at, cls))
				return false;
		return true;
	}
	default:
		return false;
	}
}

enum abi_kind abi_classify(const struct di_type *t, enum abi_class cls[2])
{
	const struct di_type *s = di_type_strip(t);
	cls[0] = cls[1] = ABI_NONE;
	if (!s || s->kind == DI_VOID)
		return ABI_VOID;
	if (s->kind == DI_FUNC)
		return ABI_UNSUPPORTED;
	if (s->size > 16)
		return (s->kind == DI_STRUCT || s->kind == DI_UNION || s->kind == DI_ARRAY) ?
			ABI_MEMORY : ABI_UNSUPPORTED;
	if (!abi_walk(s, 0, cls))
		return ABI_UNSUPPORTED;
	return ABI_REGS;
}

void abi_gather(const enum abi_class cls[2], const uint64_t ints[2], const uint64_t sses[2],
		uint8_t out[16])
{
	int ni = 0, ns = 0;
	memset(out, 0, 16);
	for (int i = 0; i < 2; i++) {
		if (cls[i] == ABI_INT)
			memcpy(out + 8 * i, &ints[ni++], 8);
		else if (cls[i] == ABI_SSE)
			memcpy(out + 8 * i, &sses[ns++], 8);
	}
}
