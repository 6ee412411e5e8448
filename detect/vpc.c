/* vpc: value propagation chains (Wang, chapter 3): from where a bad value
 * is used (the pointer passed to a second free), back through the copies
 * that carried it (loads, stores, register moves, pushes and pops) to
 * where it was produced: a library call's result (malloc, strdup) or a
 * computation. Read from the recorder's trace (slice/view.h) when the
 * region was recorded: each link is a statement instance, shown with its
 * source text; "copy" marks a statement that moved the value from memory
 * to memory (a struct or field copy: two owners of one pointer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect-int.h"
#include "dinfo/disasm.h"
#include "dinfo/source.h"
#include "slice/view.h"
#include "target/session.h"

#define VPC_MAX_LINKS 32
#define VPC_MAX_SCAN 50000000ull   /* records looked at, at most */
#define REG_RSP 4

/* Where the value lives: memory, or a register at a byte offset (an
 * 8-byte pointer in the upper half of xmm0 after a 16-byte struct load). */
struct vloc {
	bool mem;
	int reg;
	unsigned off;
	uint64_t addr;
	unsigned size;
};

enum link_kind { L_COPY, L_LIB, L_COMPUTED, L_START };

struct vlink {
	enum link_kind kind;
	const char *file;
	int line;
	int32_t inst;
	bool loaded, stored;     /* a copy that read / wrote memory */
	char fn[48];             /* L_LIB: the library function */
};

static bool defines(const struct slice_view_rec *r, const struct vloc *l)
{
	if (!l->mem)
		return ((r->def & ~r->cond_def) >> l->reg) & 1;
	for (int m = 0; m < r->nmem; m++)
		if ((r->mem[m].rw & SLICE_VIEW_MEM_W) && r->mem[m].addr < l->addr + l->size &&
		    l->addr < r->mem[m].addr + r->mem[m].size)
			return true;
	return false;
}

/* Instructions that move bits unchanged (a compiler copies a struct with
 * vector moves); movabs of a constant has no source: computed. */
static bool is_copy(const struct slice_view_rec *r)
{
	static const char *const moves[] = {
		"mov", "movq", "movd", "push", "pop", "movdqu", "movdqa", "movups", "movaps",
		"movupd", "movapd", "vmovdqu", "vmovdqa", "vmovups", "vmovaps", "vmovq", "movsq",
		"movsd", "movlps", "movhps", "movlpd", "movhpd",
	};
	for (size_t i = 0; i < sizeof moves / sizeof moves[0]; i++)
		if (!strcmp(r->text, moves[i]))
			return true;
	return false;
}

/* The copy's source (the value's bytes in it), or false when it has
 * several sources: not a plain copy. l is where the value is after r. */
static bool copy_source(const struct slice_view_rec *r, const struct vloc *l, struct vloc *src,
			bool *loaded)
{
	uint64_t addr_regs = 1ull << REG_RSP;
	unsigned off = l->off;
	for (int m = 0; m < r->nmem; m++)
		if (l->mem && (r->mem[m].rw & SLICE_VIEW_MEM_W) && l->addr >= r->mem[m].addr)
			off = (unsigned)(l->addr - r->mem[m].addr);
	for (int m = 0; m < r->nmem; m++) {
		if ((r->mem[m].rw & SLICE_VIEW_MEM_R) && !(r->mem[m].rw & SLICE_VIEW_MEM_W)) {
			*src = (struct vloc){ .mem = true, .addr = r->mem[m].addr + off, .size = l->size };
			*loaded = true;
			return true;
		}
		if (r->mem[m].base < 64)
			addr_regs |= 1ull << r->mem[m].base;
		if (r->mem[m].index < 64)
			addr_regs |= 1ull << r->mem[m].index;
	}
	uint64_t use = r->use & ~addr_regs;
	if (!use || (use & (use - 1)))
		return false;
	*src = (struct vloc){ .reg = __builtin_ctzll(use), .off = off, .size = l->size };
	*loaded = false;
	return true;
}

/* The library function the program's call at record i calls. */
static void call_name(struct qz *q, const struct slice_view_rec *r, char *buf, size_t len)
{
	uint8_t code[16];
	struct dis_insn d;
	snprintf(buf, len, "a library call");
	if (qz_read(q, r->pc, code, sizeof code) < 0 || !dis_decode(code, sizeof code, r->pc, &d) ||
	    !d.has_target || !qz_symbolize(q, d.target, buf, len))
		return;
	buf[strcspn(buf, "@+")] = 0;
}

/* The value was made inside a library: the program's last call before. */
static void lib_link(struct qz *q, struct slice_view *v, uint64_t j, struct vlink *k)
{
	struct slice_view_rec r;
	k->kind = L_LIB;
	snprintf(k->fn, sizeof k->fn, "a library call");
	for (uint64_t i = j + 1; i-- > 0 && j - i < VPC_MAX_SCAN;) {
		if (!slice_view_get(v, i, &r) || !r.user || !r.call)
			continue;
		call_name(q, &r, k->fn, sizeof k->fn);
		k->file = r.file, k->line = r.line, k->inst = r.inst;
		return;
	}
}

static size_t add_link(struct vlink *links, size_t n, const struct slice_view_rec *r,
		       enum link_kind kind, bool loaded, bool stored)
{
	if (n && links[n - 1].kind == L_COPY && links[n - 1].inst == r->inst) {
		links[n - 1].kind = kind;   /* a copy then a computation: one link */
		links[n - 1].loaded |= loaded;
		links[n - 1].stored |= stored;
		return n;
	}
	links[n] = (struct vlink){ .kind = kind, .file = r->file, .line = r->line,
				   .inst = r->inst, .loaded = loaded, .stored = stored };
	return n + 1;
}

/* Pointer arithmetic (p + i): the registers that may hold the pointer it
 * offsets, for the chain of an access's address: lea's base and index,
 * an add's two operands, a sub's destination. 0 for anything else. */
static int offset_sources(const struct slice_view_rec *r, const struct vloc *l, struct vloc *src)
{
	int n = 0;
	if (l->mem)
		return 0;
	if (!strcmp(r->text, "lea") && r->nmem) {
		if (r->mem[0].base < 16 && r->mem[0].base != REG_RSP)
			src[n++] = (struct vloc){ .reg = r->mem[0].base, .size = l->size };
		if (r->mem[0].index < 16)
			src[n++] = (struct vloc){ .reg = r->mem[0].index, .size = l->size };
		return n;
	}
	bool add = !strcmp(r->text, "add");
	if ((!add && strcmp(r->text, "sub")) || r->nmem || !((r->use >> l->reg) & 1))
		return 0;
	src[n++] = *l;
	uint64_t other = r->use & ~(1ull << l->reg) & 0xffff;
	if (add && other && !(other & (other - 1)))
		src[n++] = (struct vloc){ .reg = __builtin_ctzll(other), .size = l->size };
	return n;
}

static size_t vpc_walk(struct qz *q, uint64_t end, struct vloc l, struct vlink *links,
		       bool offsets);

/* Memory nothing in the recording wrote, inside a live heap block: the
 * value was there since the block was allocated (never written). */
static bool alloc_link(struct qz *q, uint64_t a, struct vlink *k)
{
	struct detect_state *st = det_state(q);
	for (size_t i = 0; i < st->nall; i++) {
		const struct det_block *b = st->all[i];
		if (!b->live || a < b->addr || a >= b->addr + b->size)
			continue;
		*k = (struct vlink){ .kind = L_LIB, .inst = -1 };
		snprintf(k->fn, sizeof k->fn, "%s, never written", b->alloc_fn[0] ? b->alloc_fn : "?");
		if (!det_site_line(q, b->alloc_site, &k->file, &k->line))
			k->file = NULL;
		return true;
	}
	return false;
}

/* Walk back from record end; the links found, in order. offsets: follow
 * pointer arithmetic (the chain of an access's address). */
static size_t vpc_walk(struct qz *q, uint64_t end, struct vloc l, struct vlink *links,
		       bool offsets)
{
	struct slice_view *v = slice_view_open(q);
	struct slice_view_rec r;
	size_t n = 0;
	uint64_t i = end, scanned = 0;
	while (n < VPC_MAX_LINKS - 1) {
		bool found = false;
		while (i-- > 0 && scanned++ < VPC_MAX_SCAN)
			if (slice_view_get(v, i, &r) && (found = defines(&r, &l)))
				break;
		if (!found) {
			if (!l.mem || !alloc_link(q, l.addr, &links[n]))
				links[n] = (struct vlink){ .kind = L_START };
			n++;
			break;
		}
		struct vloc src;
		bool loaded = false;
		bool copy = is_copy(&r) && copy_source(&r, &l, &src, &loaded);
		if (!r.user && copy && (!strcmp(r.text, "pop") || !strcmp(r.text, "push"))) {
			l = src;   /* a library saving and restoring a register */
			continue;
		}
		if (!r.user) {
			lib_link(q, v, i, &links[n++]);
			break;
		}
		struct vloc alt[2];
		int nalt = !copy && offsets ? offset_sources(&r, &l, alt) : 0;
		if (nalt) {   /* the operand whose chain reaches an allocation */
			if (!n || links[n - 1].file != r.file || links[n - 1].line != r.line)
				n = add_link(links, n, &r, L_COPY, false, false);
			l = alt[0];
			for (int k = 1; k < nalt && n < VPC_MAX_LINKS - 1; k++) {
				struct vlink sub[VPC_MAX_LINKS];
				size_t m = vpc_walk(q, i, alt[0], sub, true);
				if (m && sub[m - 1].kind == L_LIB)
					break;
				m = vpc_walk(q, i, alt[k], sub, true);
				if (m && sub[m - 1].kind == L_LIB) {
					l = alt[k];
					break;
				}
			}
			continue;
		}
		if (!copy) {
			n = add_link(links, n, &r, L_COMPUTED, false, false);
			break;
		}
		n = add_link(links, n, &r, L_COPY, loaded, l.mem);
		l = src;
	}
	slice_view_close(v);
	return n;
}

static void link_text(const struct vlink *k, struct sbuf *out)
{
	const char *why = NULL;
	const char *src = k->file ? src_line(k->file, k->line, &why) : NULL;
	char *t = src ? str_trim(src) : NULL;
	size_t tl = t ? strlen(t) : 0;
	if (tl > 1 && t[tl - 1] == ';')
		t[tl - 1] = 0;   /* the statement, not its terminator */
	if (k->kind == L_LIB)
		sbuf_printf(out, " ← %s", k->fn);
	else if (t && *t)
		sbuf_printf(out, " ← %s", t);
	else
		sbuf_add(out, " ← ?");
	if (k->file)
		sbuf_printf(out, " (%s:%d%s%s)", str_basename(k->file), k->line,
			    k->kind == L_COPY && k->loaded && k->stored ? ", copy" : "",
			    k->kind == L_COMPUTED ? ", computed" : "");
	free(t);
}

static bool brace_only(const struct vlink *k)
{
	const char *why = NULL;
	const char *src = k->file ? src_line(k->file, k->line, &why) : NULL;
	if (!src)
		return false;
	src = str_skip_space(src);
	return (*src == '{' || *src == '}') && !*str_skip_space(src + 1);
}

void det_links_free(struct detect_state *st)
{
	for (size_t i = 0; i < st->nlinks; i++)
		free(st->links[i].text);
	free(st->links);
	st->links = NULL;
	st->nlinks = 0;
}

/* A shown link, kept for `info vpc links` and `vpc N` (its text made
 * safe to print: source lines are a file's bytes). */
static void keep_link(struct detect_state *st, const char *text, const struct vlink *k)
{
	struct sbuf safe = {0};
	str_sanitize(&safe, text, strlen(text));
	st->links = xrealloc(st->links, (st->nlinks + 1) * sizeof *st->links);
	st->links[st->nlinks++] = (struct det_link){ sbuf_take(&safe),
						     k->kind == L_START ? NULL : k->file, k->line };
}

static void vpc_from(struct qz *q, const char *what, struct vloc start, uint64_t value,
		     uint64_t faulted)
{
	struct detect_state *st = det_state(q);
	free(st->last_chain);
	st->last_chain = NULL;
	det_links_free(st);
	uint64_t end = slice_view_count(q);
	if (!end || (!start.mem && start.reg < 0))
		return;
	struct slice_view *v = slice_view_open(q);
	struct slice_view_rec last;
	if (faulted && slice_view_get(v, end - 1, &last) && last.pc == faulted)
		end--;   /* recorded, but it did not complete */
	slice_view_close(v);
	struct vlink links[VPC_MAX_LINKS];
	size_t n = vpc_walk(q, end, start, links, st->vpc_offsets);
	struct sbuf out = {0};
	sbuf_printf(&out, "Value propagation chain of 0x%llx:\n%s", (unsigned long long)value, what);
	for (size_t i = 0; i < n; i++) {
		if (links[i].kind == L_COPY && brace_only(&links[i]))
			continue;   /* a function's entry storing its parameter */
		size_t at = out.len;
		if (links[i].kind == L_START)
			sbuf_add(&out, " ← (before the recording began)");
		else
			link_text(&links[i], &out);
		keep_link(st, out.s + at + strlen(" ← "), &links[i]);
	}
	sbuf_addc(&out, '\n');
	struct sbuf safe = {0};   /* source lines are a file's bytes */
	str_sanitize(&safe, out.s, out.len);
	sbuf_free(&out);
	st->last_chain = sbuf_take(&safe);
}

void det_vpc(struct qz *q, const char *what, int reg, uint64_t value, uint64_t faulted)
{
	vpc_from(q, what, (struct vloc){ .reg = reg, .size = 8 }, value, faulted);
}

void det_vpc_mem(struct qz *q, const char *what, uint64_t addr, uint64_t value)
{
	vpc_from(q, what, (struct vloc){ .mem = true, .addr = addr, .size = 8 }, value, 0);
}
