/* memname: naming the memory of a recording from debug information, ELF
 * symbols and the frames the recording saw (memname.h). */
#include "memname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dinfo/dinfo.h"
#include "dinfo/image.h"
#include "rec.h"
#include "slice.h"
#include "target/objects.h"
#include "target/session.h"

void mn_free(struct mn_map *m)
{
	free(m->v);
	memset(m, 0, sizeof *m);
}

static const struct di_func *mn_func_at(struct qz *q, uint64_t pc)
{
	if (!q->exe.di || pc < q->exe.bias)
		return NULL;
	return di_func_at(q->exe.di, pc - q->exe.bias);
}

static struct mn_frame *mn_push(struct mn_map *m, uint64_t cfa, uint64_t from)
{
	XGROW(m->v, m->cap, m->n + 1);
	struct mn_frame *f = &m->v[m->n++];
	memset(f, 0, sizeof *f);
	f->cfa = cfa;
	f->from = from;
	f->to = UINT64_MAX;
	return f;
}

/* Frame indices open at the current record, innermost last. */
struct mn_open {
	size_t *v;
	size_t n, cap;
	bool pending;             /* the last record was a call: the next is */
	uint64_t slot, call_pc;   /* its callee's first instruction */
};

/* A frame already running when recording began: an access [rbp+D] in a
 * function whose frame base is the CFA gives it (rbp = CFA - 16 in gcc's
 * frames once set up). */
static void mn_base_frame(struct qz *q, struct mn_map *m, struct mn_open *o, uint64_t i,
			  const struct trace_insn *ti, const struct trace_rec *r)
{
	const struct di_func *f = mn_func_at(q, ti->pc);
	if (!f || f->frame_base.len != 1 || f->frame_base.ops[0] != 0x9c)
		return;
	for (int k = 0; k < ti->in.nmem; k++) {
		const struct insn_mem *im = &ti->in.mem[k];
		if (im->base != INSN_R_RBP || im->index != INSN_R_NONE || im->disp >= 0)
			continue;
		struct mn_frame *fr = mn_push(m, r->addr[k] - (uint64_t)im->disp + 16, 0);
		fr->func = f;
		fr->pc = ti->pc;
		fr->rbp_frame = true;
		(void)i;
		XGROW(o->v, o->cap, o->n + 1);
		o->v[o->n++] = (size_t)(fr - m->v);
		return;
	}
}

/* A return through slot: close that frame (and any a longjmp skipped). */
static void mn_ret(struct mn_map *m, struct mn_open *o, uint64_t i, uint64_t slot)
{
	for (size_t k = o->n; k-- > 0;) {
		if (m->v[o->v[k]].cfa - 8 != slot)
			continue;
		for (size_t j = k; j < o->n; j++)
			m->v[o->v[j]].to = i + 1;
		o->n = k;
		return;
	}
	if (o->n && m->v[o->v[0]].from == 0 && m->v[o->v[0]].cfa - 8 == slot)
		o->n = 0;
}

static void mn_record(struct qz *q, struct mn_map *m, struct mn_open *o, uint64_t i,
		      const struct trace_insn *ti, const struct trace_rec *r)
{
	if (o->pending) {   /* the callee's first instruction */
		struct mn_frame *fr = mn_push(m, o->slot + 8, i);
		fr->func = ti->user ? mn_func_at(q, ti->pc) : NULL;
		fr->call_pc = o->call_pc;
		fr->pc = ti->pc;
		XGROW(o->v, o->cap, o->n + 1);
		o->v[o->n++] = (size_t)(fr - m->v);
		o->pending = false;
	}
	if (o->n) {
		struct mn_frame *top = &m->v[o->v[o->n - 1]];
		if (ti->user)
			top->pc = ti->pc;
		if (i <= top->from + 1 && ti->in.nmem && (ti->in.mem[0].rw & INSN_MEM_W) &&
		    !r->skipped && r->addr[0] == top->cfa - 16)   /* push %rbp at entry */
			top->rbp_frame = true;
	} else if (ti->user && !r->skipped) {
		mn_base_frame(q, m, o, i, ti, r);
	}
	bool call = ti->in.kind == INSN_CALL || ti->in.kind == INSN_CALL_IND;
	for (int k = 0; k < ti->in.nmem && !r->skipped; k++) {
		if (call && (ti->in.mem[k].rw & INSN_MEM_W)) {
			o->pending = true;
			o->slot = r->addr[k];
			o->call_pc = ti->pc;
		} else if (ti->in.kind == INSN_RET && (ti->in.mem[k].rw & INSN_MEM_R)) {
			mn_ret(m, o, i, r->addr[k]);
		}
	}
}

void mn_update(struct qz *q, struct mn_map *m)
{
	const struct trace *t = &slice_rec(q)->tr;
	if (m->v && m->built_n == t->n)
		return;
	mn_free(m);
	struct mn_open o = {0};
	struct trace_rec *recs = xmalloc(TRACE_BLK * sizeof *recs);
	for (size_t b = 0; b < t->nblks; b++) {
		size_t n = trace_block(t, b, recs);
		for (size_t k = 0; k < n; k++)
			if (recs[k].id < t->ninsns)
				mn_record(q, m, &o, (uint64_t)b * TRACE_BLK + k, &t->insns[recs[k].id],
					  &recs[k]);
	}
	free(recs);
	free(o.v);
	m->built_n = t->n;
}

const char *mn_frame_func(const struct mn_frame *f)
{
	return f && f->func ? f->func->name : "a library function";
}

/* DW_OP_fbreg N: N. */
bool mn_fbreg(const struct di_var *v, uint64_t pc, int64_t *n)
{
	for (size_t i = 0; i < v->nlocs; i++) {
		const struct di_locexpr *l = &v->locs[i];
		if (!(l->always || (pc >= l->lo && pc < l->hi)) || l->len < 2 || l->ops[0] != 0x91)
			continue;
		int64_t val = 0;
		int shift = 0;
		size_t k = 1;
		uint8_t b;
		do {
			b = l->ops[k++];
			val |= (int64_t)(b & 0x7f) << shift;
			shift += 7;
		} while ((b & 0x80) && k < l->len);
		if ((b & 0x40) && shift < 64)
			val |= -((int64_t)1 << shift);
		*n = val;
		return true;
	}
	return false;
}

/* A variable of frame fr holding addr (the frame base is the CFA). */
static bool mn_local(struct qz *q, const struct mn_frame *fr, uint64_t addr, struct mn_obj *o)
{
	const struct di_func *f = fr->func;
	if (!f || f->frame_base.len != 1 || f->frame_base.ops[0] != 0x9c)
		return false;
	uint64_t pc = fr->pc - q->exe.bias;
	const struct di_var *vars[128];
	size_t n = di_vars_at(f, pc, vars, 128);
	for (size_t i = 0; i < n; i++) {
		int64_t fb;
		if (!vars[i]->type || !mn_fbreg(vars[i], pc, &fb))
			continue;
		uint64_t lo = fr->cfa + (uint64_t)fb, size = di_type_strip(vars[i]->type)->size;
		if (addr >= lo && addr < lo + (size ? size : 1)) {
			*o = (struct mn_obj){ .kind = MN_LOCAL, .name = vars[i]->name,
					      .type = vars[i]->type, .base = lo, .size = size,
					      .frame = fr };
			return true;
		}
	}
	return false;
}

/* addr in one of the frames live at rec, innermost first. */
static bool mn_stack(struct qz *q, const struct mn_map *m, uint64_t rec, uint64_t addr,
		     struct mn_obj *o)
{
	const struct mn_frame *inner = NULL;
	for (size_t k = m->n; k-- > 0;) {
		const struct mn_frame *fr = &m->v[k];
		if (rec < fr->from || rec >= fr->to || addr >= fr->cfa)
			continue;
		if (addr >= fr->cfa - 8) {
			*o = (struct mn_obj){ .kind = MN_RETADDR, .base = fr->cfa - 8, .size = 8, .frame = fr };
			return true;
		}
		if (fr->rbp_frame && addr >= fr->cfa - 16) {
			*o = (struct mn_obj){ .kind = MN_SAVED_RBP, .base = fr->cfa - 16, .size = 8,
					      .frame = fr };
			return true;
		}
		if (mn_local(q, fr, addr, o))
			return true;
		if (!inner || fr->cfa < inner->cfa)
			inner = fr;
	}
	for (size_t k = 0; inner && k < m->n; k++)   /* below no frame's locals */
		if (m->v[k].cfa < inner->cfa && m->v[k].cfa > addr && rec >= m->v[k].from &&
		    rec < m->v[k].to)
			inner = &m->v[k];
	if (!inner || inner->cfa - addr > (1u << 20))
		return false;
	*o = (struct mn_obj){ .kind = MN_FRAME, .base = addr, .size = 1, .frame = inner };
	return true;
}

/* The data object that ends last at or before link. */
static const struct img_sym *mn_prev_object(const struct img *im, uint64_t link)
{
	uint64_t p = link, off;
	for (int k = 0; k < 64 && p; k++) {
		const struct img_sym *s = img_sym_at(im, p - 1, &off);
		if (!s || s->addr >= p)
			return NULL;
		if (!s->is_func && s->size && s->addr + s->size <= link)
			return s;
		p = s->addr;
	}
	return NULL;
}

/* A global or static of the program: its ELF symbol (the size the linker
 * knows) and, by name, its DWARF type; past every object: the gap after
 * the nearest one before it. */
static bool mn_static(struct qz *q, uint64_t addr, struct mn_obj *o)
{
	if (!q->exe.img || addr < q->exe.bias)
		return false;
	uint64_t link = addr - q->exe.bias, off, blo, bhi;
	const char *sec = img_section_at(q->exe.img, link);
	uint64_t probe = link;
	if (!sec && img_section_range(q->exe.img, ".bss", &blo, &bhi) && link >= bhi &&
	    link < ((bhi + 4095) & ~4095ull)) {
		sec = "the rest of .bss's last page";   /* mapped, in no object */
		probe = bhi;
	}
	if (!sec || !strcmp(sec, ".text") || !strcmp(sec, ".plt") || !strcmp(sec, ".plt.sec"))
		return false;
	const struct img_sym *s = img_sym_at(q->exe.img, link, &off);
	memset(o, 0, sizeof *o);
	snprintf(o->where, sizeof o->where, "%s", sec);
	o->kind = MN_STATIC;
	if (!s || s->is_func || off >= s->size) {   /* the object before the gap */
		o->kind = MN_STATIC_GAP;
		s = mn_prev_object(q->exe.img, probe);
	}
	if (!s)
		return false;
	o->name = s->name;
	o->base = s->addr + q->exe.bias;
	o->size = s->size;
	const struct di_var *v = q->exe.di ? di_static_named(q->exe.di, s->name, NULL) : NULL;
	o->type = v ? v->type : NULL;
	return true;
}

/* The line of the process's memory map that holds addr (name NULL) or is
 * named name: its range and its name ("[heap]", a path, "" anonymous). */
static bool mn_maps_find(struct qz *q, const char *name, uint64_t addr, uint64_t *lo,
			 uint64_t *hi, char *path, size_t len)
{
	char file[64], line[600];
	bool found = false;
	if (!q->proc)
		return false;
	snprintf(file, sizeof file, "/proc/%d/maps", (int)proc_pid(q->proc));
	FILE *f = fopen(file, "re");
	unsigned long long a, b;
	int off = 0;
	while (f && !found && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &a, &b, &off) < 2 || !off)
			continue;
		found = name ? strcmp(line + off, name) == 0 : addr >= a && addr < b;
		if (found) {
			*lo = a;
			*hi = b;
			snprintf(path, len, "%s", line + off);
		}
	}
	if (f)
		fclose(f);
	return found;
}

bool mn_mapping(struct qz *q, uint64_t addr, char *name, size_t len)
{
	uint64_t lo, hi;
	return mn_maps_find(q, NULL, addr, &lo, &hi, name, len);
}

/* A library's data by its symbols (libc's own, main_arena; the separate
 * debug file's local symbols when installed). */
static bool mn_lib_static(struct qz *q, uint64_t addr, struct mn_obj *o)
{
	struct qz_module *m = qz_running(q) ? qz_module_at(q, addr) : NULL;
	const char *path = m ? (m->name ? m->name : m->path) : NULL;
	if (!m || m == &q->exe || !m->img || addr < m->bias || !path || path[0] == '[' ||
	    addr < m->lo || addr >= m->hi)
		return false;
	uint64_t link = addr - m->bias, off;
	const char *sec = img_section_at(m->img, link);
	const struct img_sym *s = sec ? img_sym_at(m->img, link, &off) : NULL;
	if (!sec || !strcmp(sec, ".text"))
		return false;
	memset(o, 0, sizeof *o);
	o->kind = MN_LIB;
	if (!s || s->is_func || (s->size && off >= s->size)) {   /* no symbol: its section */
		snprintf(o->where, sizeof o->where, "%s's %s", str_basename(m->name ? m->name : m->path),
			 sec);
		return true;
	}
	o->name = s->name;
	o->base = s->addr + m->bias;
	o->size = s->size;
	snprintf(o->where, sizeof o->where, "%s", str_basename(m->name ? m->name : m->path));
	return true;
}

/* The malloc block holding addr, by walking glibc's chunks of the main
 * heap as they are now (size at chunk+8, flags in its low bits; the user
 * bytes from chunk+16, usable up to the next chunk's size field). */
static bool mn_heap_block(struct qz *q, uint64_t addr, struct mn_obj *o)
{
	uint64_t lo = 0, hi = 0;
	char name[16];
	if (!mn_maps_find(q, "[heap]", 0, &lo, &hi, name, sizeof name) || addr < lo || addr >= hi)
		return false;
	for (uint64_t c = lo, n = 0; c + 16 <= hi && n < 100000; n++) {
		uint64_t size;
		if (qz_read(q, c + 8, &size, sizeof size) < 0)
			return false;
		size &= ~(uint64_t)7;
		if (size < 32 || size > hi - c)
			return false;   /* the top chunk, or not glibc's layout */
		if (addr >= c + 8 && addr < c + size + 8) {
			memset(o, 0, sizeof *o);
			o->kind = addr < c + 16 ? MN_HEAP_META : MN_HEAP;
			o->base = c + 16;
			o->size = size - 8;
			if (c == lo && size == 0x290)   /* glibc's tcache_perthread_struct */
				o->name = "malloc's tcache";
			return true;
		}
		c += size;
	}
	return false;
}

void mn_lookup(struct qz *q, const struct mn_map *m, uint64_t rec, uint64_t addr,
	       struct mn_obj *o)
{
	char map[512] = "";
	memset(o, 0, sizeof *o);
	if (mn_static(q, addr, o) || mn_stack(q, m, rec, addr, o) || mn_lib_static(q, addr, o))
		return;
	memset(o, 0, sizeof *o);
	uint64_t fs = q->proc ? proc_regs(q->proc)->fs_base : 0;
	if (fs && addr < fs + 0x800 && fs - addr < (1u << 20)) {   /* static TLS, the TCB */
		o->kind = MN_TLS;
		o->base = fs;
		return;
	}
	if (!mn_mapping(q, addr, map, sizeof map))
		return;
	if (!strcmp(map, "[heap]")) {
		if (!mn_heap_block(q, addr, o))
			o->kind = MN_HEAP;
	} else if (!strcmp(map, "[stack]"))
		o->kind = MN_STACK;
	else if (map[0] && (!q->prog || strcmp(map, q->prog) != 0)) {
		o->kind = MN_LIB;
		snprintf(o->where, sizeof o->where, "%s", str_basename(map));
	}
}

/* "[12]" or ".next" of a typed object at byte off, into buf. */
static void mn_part(const struct di_type *t, uint64_t off, char *buf, size_t len)
{
	t = t ? di_type_strip(t) : NULL;
	buf[0] = 0;
	if (t && t->kind == DI_ARRAY && t->target) {
		uint64_t es = di_type_strip(t->target)->size;
		if (es)
			snprintf(buf, len, "[%llu]", (unsigned long long)(off / es));
		return;
	}
	for (size_t i = 0; t && t->kind == DI_STRUCT && i < t->nmembers; i++) {
		const struct di_member *mb = &t->members[i];
		uint64_t ms = mb->type ? di_type_strip(mb->type)->size : 0;
		if (mb->name && off >= mb->offset && off < mb->offset + (ms ? ms : 1)) {
			snprintf(buf, len, ".%s", mb->name);
			return;
		}
	}
}

const char *mn_decl(const struct mn_obj *o, char *buf, size_t len)
{
	if (o->kind == MN_HEAP) {
		snprintf(buf, len, "the heap block at 0x%llx (%llu usable bytes)",
			 (unsigned long long)o->base, (unsigned long long)o->size);
		return buf;
	}
	const struct di_type *t = o->type ? di_type_strip(o->type) : NULL;
	if (t && t->kind == DI_ARRAY && t->target && di_type_strip(t->target)->size)
		snprintf(buf, len, "%s[%llu]", o->name, (unsigned long long)(o->size /
			 di_type_strip(t->target)->size));
	else
		snprintf(buf, len, "%s (%llu bytes)", o->name ? o->name : "?",
			 (unsigned long long)o->size);
	return buf;
}

const char *mn_text(struct qz *q, const struct mn_obj *o, uint64_t addr, char *buf, size_t len)
{
	char part[64], d[160];
	(void)q;
	switch (o->kind) {
	case MN_STATIC:
	case MN_LOCAL:
		mn_part(o->type, addr - o->base, part, sizeof part);
		if (!part[0] && addr != o->base)
			snprintf(part, sizeof part, "+%llu", (unsigned long long)(addr - o->base));
		if (o->kind == MN_LOCAL)
			snprintf(buf, len, "%s's %s%s", mn_frame_func(o->frame), o->name, part);
		else
			snprintf(buf, len, "%s%s", o->name, part);
		break;
	case MN_STATIC_GAP:
		snprintf(buf, len, "%s+%llu (past the end of %s, in %s)", o->name,
			 (unsigned long long)(addr - o->base), mn_decl(o, d, sizeof d), o->where);
		break;
	case MN_RETADDR:
		snprintf(buf, len, "the return address of %s", mn_frame_func(o->frame));
		break;
	case MN_SAVED_RBP:
		snprintf(buf, len, "%s's saved rbp", mn_frame_func(o->frame));
		break;
	case MN_FRAME:
		snprintf(buf, len, "%s's frame at CFA-%llu", mn_frame_func(o->frame),
			 (unsigned long long)(o->frame->cfa - addr));
		break;
	case MN_TLS:
		snprintf(buf, len, "thread-local storage at fs%s0x%llx", addr < o->base ? "-" : "+",
			 (unsigned long long)(addr < o->base ? o->base - addr : addr - o->base));
		break;
	case MN_HEAP_META:
		snprintf(buf, len, "malloc's size field of the heap block at 0x%llx",
			 (unsigned long long)o->base);
		break;
	case MN_HEAP:
		if (o->name)
			snprintf(buf, len, "%s+%llu (malloc's own first block)", o->name,
				 (unsigned long long)(addr - o->base));
		else if (o->size)
			snprintf(buf, len, "heap block 0x%llx+%llu (%llu usable bytes)",
				 (unsigned long long)o->base, (unsigned long long)(addr - o->base),
				 (unsigned long long)o->size);
		else
			snprintf(buf, len, "heap memory at 0x%llx", (unsigned long long)addr);
		break;
	case MN_STACK:
		snprintf(buf, len, "the stack at 0x%llx", (unsigned long long)addr);
		break;
	case MN_LIB:
		if (o->name && addr != o->base)
			snprintf(buf, len, "%s+%llu (%s's own data)", o->name,
				 (unsigned long long)(addr - o->base), o->where);
		else if (o->name)
			snprintf(buf, len, "%s (%s's own data)", o->name, o->where);
		else
			snprintf(buf, len, "%s at 0x%llx (a library's own data)", o->where,
				 (unsigned long long)addr);
		break;
	default:
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	}
	return buf;
}
