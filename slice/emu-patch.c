/* emu-patch.c: Unicorn 2.0.1's stores on its fast path (emu-patch.h).
 *
 * In tlb_set_page_with_attrs (QEMU's softmmu TLB fill) Unicorn 2.0.1
 * does, for every writable RAM page:
 *     testb $PAGE_WRITE, prot        f6 44 24 1c 02
 *     je    <not writable>           0f 84 rel32
 *     mov   0x8(%rsp), %rsi          48 8b 74 24 08
 *     or    $TLB_NOTDIRTY, %r9       49 81 c9 00 04 00 00
 * because its cpu_physical_memory_is_clean() is a stub that says yes.
 * TLB_NOTDIRTY sends each store to notdirty_write, which looks for code
 * to invalidate. The `or` becomes a 7-byte nop; a write hook still sees
 * every store (Unicorn routes stores through its helper while one
 * exists), and qzdb's own writes into the machine (uc_mem_write)
 * invalidate code as before. Only a store of the program into a page
 * that is writable and executable needs the original path: the first
 * such mapping restores it. */
#define _GNU_SOURCE
#include "emu-patch.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <unicorn/unicorn.h>

#include "util/util.h"

#define EP_ANY 0x100   /* a byte the signature does not fix (rel32) */

static const uint16_t ep_sig[] = {
	0xf6, 0x44, 0x24, 0x1c, 0x02,                        /* testb $2,0x1c(%rsp) */
	0x0f, 0x84, EP_ANY, EP_ANY, EP_ANY, EP_ANY,          /* je ... */
	0x48, 0x8b, 0x74, 0x24, 0x08,                        /* mov 0x8(%rsp),%rsi */
	0x49, 0x81, 0xc9, 0x00, 0x04, 0x00, 0x00,            /* or $0x400,%r9 */
};
enum { EP_SIGLEN = sizeof ep_sig / sizeof ep_sig[0], EP_OR = 16, EP_ORLEN = 7,
       EP_SPAN = 4096 };
static const uint8_t ep_nop7[EP_ORLEN] = { 0x0f, 0x1f, 0x80, 0, 0, 0, 0 };

static struct {
	bool looked;        /* the library was searched */
	uint8_t *at;        /* the `or`, NULL if not found */
	uint8_t orig[EP_ORLEN];
	bool patched;
	bool refused;       /* maint emulator-stores exact */
	bool wx;            /* a writable and executable mapping was mapped */
	bool stuck;         /* maint emulator-stores stuck: restores fail */
	char why[160];      /* why stores take the slow path */
} ep;

static bool ep_match(const uint8_t *b)
{
	for (int i = 0; i < EP_SIGLEN; i++)
		if (ep_sig[i] != EP_ANY && b[i] != ep_sig[i])
			return false;
	return true;
}

/* The `or` in the function: exactly one match, or none is trusted. */
static void ep_find(void)
{
	ep.looked = true;
	unsigned major = 0, minor = 0;
	uc_version(&major, &minor);
	if (major != 2 || minor != 0) {
		snprintf(ep.why, sizeof ep.why, "Unicorn %u.%u: its stores need no mending", major,
			 minor);
		return;
	}
	const uint8_t *fn = dlsym(RTLD_DEFAULT, "tlb_set_page_with_attrs_x86_64");
	uint8_t code[EP_SPAN];
	if (!fn || vm_read(getpid(), (uint64_t)(uintptr_t)fn, code, sizeof code) != sizeof code) {
		snprintf(ep.why, sizeof ep.why, "Unicorn's TLB fill was not found");
		return;
	}
	int hits = 0, at = -1;
	for (int i = 0; i + EP_SIGLEN <= EP_SPAN; i++)
		if (ep_match(code + i)) {
			hits++;
			at = i;
		}
	if (hits != 1) {
		snprintf(ep.why, sizeof ep.why,
			 "Unicorn's TLB fill is not the code known (%d matches)", hits);
		return;
	}
	ep.at = (uint8_t *)fn + at + EP_OR;
	memcpy(ep.orig, code + at + EP_OR, EP_ORLEN);
}

/* Write bytes over the instruction (its pages writable for the time). */
static bool ep_write(const uint8_t *bytes)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t lo = (uintptr_t)ep.at & ~(uintptr_t)(pg - 1);
	size_t len = (uintptr_t)ep.at + EP_ORLEN - lo;
	if (mprotect((void *)lo, len, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
		snprintf(ep.why, sizeof ep.why, "Unicorn's code cannot be written (%m)");
		return false;
	}
	memcpy(ep.at, bytes, EP_ORLEN);
	__builtin___clear_cache((char *)ep.at, (char *)ep.at + EP_ORLEN);
	if (mprotect((void *)lo, len, PROT_READ | PROT_EXEC) != 0)
		snprintf(ep.why, sizeof ep.why, "Unicorn's code page stays writable (%m)");
	return true;
}

void emu_patch_stores(void)
{
	if (!ep.looked)
		ep_find();
	if (!ep.at || ep.patched || ep.refused || ep.wx)
		return;
	if (ep_write(ep_nop7))
		ep.patched = true;
}

/* The original instruction back: false if it stays patched. */
static bool ep_restore(void)
{
	if (ep.patched && !ep.stuck && ep_write(ep.orig))
		ep.patched = false;
	return !ep.patched;
}

bool emu_stores_exact(void)
{
	if (!ep.wx) {
		ep.wx = true;
		snprintf(ep.why, sizeof ep.why,
			 "a writable and executable mapping: stores look for the code they change");
	}
	return ep_restore();
}

void emu_patch_stuck(void)
{
	ep.stuck = true;
}

bool emu_patch_allow(bool on, char *why, size_t whylen)
{
	ep.refused = !on;
	if (!on) {
		if (!ep_restore()) {
			snprintf(why, whylen, "Unicorn's code could not be put back");
			return false;
		}
		snprintf(ep.why, sizeof ep.why, "maint emulator-stores exact");
		return true;
	}
	ep.why[0] = 0;
	if (ep.wx)
		snprintf(ep.why, sizeof ep.why,
			 "a writable and executable mapping: stores look for the code they change");
	emu_patch_stores();
	if (!ep.patched) {
		snprintf(why, whylen, "%s", ep.why);
		return false;
	}
	return true;
}

const char *emu_patch_state(void)
{
	static char line[256];
	if (!ep.looked)
		ep_find();
	if (ep.patched && ep.wx)
		snprintf(line, sizeof line,
			 "Stores in the emulator take its fast path (Unicorn 2.0.1 mended in place); "
			 "its code could not be put back: writable and executable mappings run on the CPU.");
	else if (ep.patched)
		snprintf(line, sizeof line,
			 "Stores in the emulator take its fast path (Unicorn 2.0.1 mended in place).");
	else
		snprintf(line, sizeof line, "Stores in the emulator take its slow path: %s.",
			 ep.why[0] ? ep.why : "not mended yet (no machine made)");
	return line;
}
