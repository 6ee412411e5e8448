/* tailcall: the frames a tail call left no trace of, found as gdb 13 finds
 * them (dwarf2/loc.c's call_site_find_chain, dwarf2/frame-tailcall.c).
 *
 * A function that ends in a jump to another has no frame once the jump is
 * made: the return address on the stack is its caller's call site, which
 * calls some other function than the one running. The call sites of the
 * debug information say which function each call or jump goes to and which
 * are tail calls (DW_AT_call_tail_call); every path of tail calls from the
 * function the caller's call site calls down to the running function is
 * searched, and the part all paths share (their common start and common
 * end) becomes frames. No path, an ambiguous one, an indirect call or an
 * unknown function anywhere: no frames, as in gdb. */
#include "tailcall.h"

#include <string.h>

#include "objects.h"
#include "session.h"

enum {
	TAIL_LIST_MAX = 64,      /* tail calls of one function considered */
	TAIL_BUDGET = 4096,      /* call sites visited by one search */
};

struct tail_site {
	uint64_t pc;             /* runtime address after the jump */
};

struct tail_search {
	struct qz *q;
	uint64_t callee;             /* entry of the running function */
	struct tail_site path[TAILCALL_MAX];
	size_t depth;
	struct tail_site best[TAILCALL_MAX];
	size_t len, callers, callees;
	bool found;
	bool failed;                 /* gdb's NO_ENTRY_VALUE_ERROR: no frames */
	unsigned budget;
};

/* A function by its name, as gdb's lookup_minimal_symbol finds a call
 * site's declared target: the program first, then each library, a global
 * symbol before a local one. */
static int tailcall_by_name(struct qz *q, const char *name, uint64_t *addr)
{
	for (int global = 1; global >= 0; global--) {
		for (size_t i = 0; i <= q->nlibs; i++) {
			struct qz_module *m = i ? &q->libs[i - 1] : &q->exe;
			const struct img_sym *s = !m->img ? NULL : global ?
				img_sym_named_global(m->img, name) : img_sym_named(m->img, name);
			if (s && s->is_func && !s->is_ifunc) {
				*addr = s->addr + m->bias;
				return 0;
			}
		}
	}
	return -1;
}

int tailcall_target(struct qz *q, const struct qz_module *m, const struct di_callsite *cs,
		    uint64_t *addr)
{
	if (cs->has_target) {
		*addr = cs->target + m->bias;
		return 0;
	}
	return cs->target_name ? tailcall_by_name(q, cs->target_name, addr) : -1;
}

/* The tail calls of the function entered at entry (runtime); -1 if no
 * function with debug information begins there. */
static int tailcall_list(struct qz *q, uint64_t entry, struct qz_module **mod,
			 const struct di_callsite **list, size_t *n)
{
	struct qz_module *m = qz_module_at(q, entry);
	struct di_info *di = m ? qz_mod_di(q, m) : NULL;
	const struct di_func *f = di ? di_func_at(di, entry - m->bias) : NULL;
	if (!f || f->lo + m->bias != entry)
		return -1;
	*mod = m;
	*n = di_tail_calls(di, entry - m->bias, list, TAIL_LIST_MAX);
	return 0;
}

bool tailcall_may_reenter(struct qz *q, uint64_t func)
{
	uint64_t todo[TAIL_BUDGET / 16], seen[TAIL_BUDGET / 16];
	size_t ntodo = 0, nseen = 0;
	todo[ntodo++] = func;
	while (ntodo) {
		const struct di_callsite *list[TAIL_LIST_MAX];
		struct qz_module *m;
		size_t n;
		if (tailcall_list(q, todo[--ntodo], &m, list, &n) < 0)
			return true;   /* gdb: not verified, no entry values */
		for (size_t i = 0; i < n; i++) {
			uint64_t t;
			if (tailcall_target(q, m, list[i], &t) < 0 || t == func)
				return true;
			bool old = false;
			for (size_t k = 0; k < nseen && !old; k++)
				old = seen[k] == t;
			if (old)
				continue;
			if (nseen == sizeof seen / sizeof seen[0])
				return true;
			seen[nseen++] = t;
			todo[ntodo++] = t;
		}
	}
	return false;
}

/* gdb's chain_candidate: the first path found is kept whole; each next
 * one cuts it to the calls both start with (callers) and end with
 * (callees); nothing in common is ambiguous. */
static void tailcall_candidate(struct tail_search *s)
{
	if (!s->found) {
		memcpy(s->best, s->path, s->depth * sizeof s->path[0]);
		s->len = s->callers = s->callees = s->depth;
		s->found = true;
		return;
	}
	size_t n = s->callers < s->depth ? s->callers : s->depth;
	for (size_t i = 0; i < n; i++) {
		if (s->best[i].pc != s->path[i].pc) {
			s->callers = i;
			break;
		}
	}
	n = s->callees < s->depth ? s->callees : s->depth;
	for (size_t i = 0; i < n; i++) {
		if (s->best[s->len - 1 - i].pc != s->path[s->depth - 1 - i].pc) {
			s->callees = i;
			break;
		}
	}
	if (s->callers == 0 && s->callees == 0)
		s->failed = true;
}

static bool tailcall_on_path(const struct tail_search *s, uint64_t pc)
{
	for (size_t i = 0; i < s->depth; i++)
		if (s->path[i].pc == pc)
			return true;
	return false;
}

/* Every path of tail calls from the function at target to the callee. */
static void tailcall_visit(struct tail_search *s, uint64_t target)
{
	if (s->failed)
		return;
	if (target == s->callee) {
		tailcall_candidate(s);
		return;
	}
	const struct di_callsite *list[TAIL_LIST_MAX];
	struct qz_module *m;
	size_t n;
	if (tailcall_list(s->q, target, &m, list, &n) < 0) {
		s->failed = true;   /* gdb: "failed to find function name" */
		return;
	}
	for (size_t i = 0; i < n && !s->failed; i++) {
		uint64_t pc = list[i]->return_pc + m->bias, next;
		if (tailcall_on_path(s, pc) || s->depth == TAILCALL_MAX)
			continue;
		if (s->budget-- == 0 || tailcall_target(s->q, m, list[i], &next) < 0) {
			s->failed = true;
			return;
		}
		s->path[s->depth++].pc = pc;
		tailcall_visit(s, next);
		s->depth--;
	}
}

size_t tailcall_chain(struct qz *q, uint64_t caller_pc, uint64_t callee,
		      uint64_t pcs[TAILCALL_MAX])
{
	struct qz_module *m = qz_module_at(q, caller_pc);
	struct di_info *di = m ? qz_mod_di(q, m) : NULL;
	const struct di_callsite *cs = di ? di_callsite_at(di, caller_pc - m->bias) : NULL;
	uint64_t target;
	if (!cs || !callee || tailcall_target(q, m, cs, &target) < 0)
		return 0;
	struct tail_search s = {.q = q, .callee = callee, .budget = TAIL_BUDGET};
	tailcall_visit(&s, target);
	if (!s.found || s.failed || s.len == 0)
		return 0;
	/* gdb's pretend_pc, from the callee up: the common end, then the
	 * common start (the whole path if it is the only one) */
	size_t n = 0;
	for (size_t k = 0; k < s.callees; k++)
		pcs[n++] = s.best[s.len - 1 - k].pc;
	if (s.callees != s.len)
		for (size_t k = 0; k < s.callers; k++)
			pcs[n++] = s.best[s.callers - 1 - k].pc;
	return n;
}
