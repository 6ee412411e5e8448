/* mod: the registered modules of a session and the one dispatcher that
 * calls their hooks. */
#include "mod.h"

#include <stdlib.h>
#include <string.h>

#include "run.h"
#include "session.h"

/* Every module type registered by any session, for the command table. */
static const struct qz_mod *mod_all[QZ_MAX_MODS];
static int mod_nall;

static void mod_remember(const struct qz_mod *m)
{
	for (int i = 0; i < mod_nall; i++)
		if (mod_all[i] == m)
			return;
	if (mod_nall < QZ_MAX_MODS)
		mod_all[mod_nall++] = m;
}

const struct qz_mod *mod_known(int i)
{
	return i >= 0 && i < mod_nall ? mod_all[i] : NULL;
}

void mod_add(struct qz *q, const struct qz_mod *m)
{
	if (q->nmods >= QZ_MAX_MODS)
		abort();   /* a fixed set of modules registers: a programming error */
	mod_remember(m);
	int i = q->nmods++;   /* an init may add modules of its own after it */
	q->mods[i] = m;
	q->mod_state[i] = m->init ? m->init(q) : NULL;
}

const struct qz_mod *mod_find(struct qz *q, const char *name)
{
	for (int i = 0; i < q->nmods; i++)
		if (!strcmp(q->mods[i]->name, name))
			return q->mods[i];
	return NULL;
}

void *mod_state(struct qz *q, const struct qz_mod *m)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i] == m)
			return q->mod_state[i];
	return NULL;
}

void mod_start(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->on_start)
			q->mods[i]->on_start(q);
}

void mod_detach(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->on_detach)
			q->mods[i]->on_detach(q);
}

void mod_gone(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->on_gone)
			q->mods[i]->on_gone(q);
}

void mod_output(struct qz *q, enum qz_out_kind kind, const char *text)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->on_output)
			q->mods[i]->on_output(q, kind, text);
}

void mod_fini(struct qz *q)
{
	for (int i = q->nmods - 1; i >= 0; i--) {
		if (q->mods[i]->fini)
			q->mods[i]->fini(q);
		q->mod_state[i] = NULL;   /* freed by fini */
	}
}

bool mod_instance_count(struct qz *q, const char *file, int line, uint64_t *count)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->instance_count && q->mods[i]->instance_count(q, file, line, count))
			return true;
	return false;
}

int mod_reverse(struct qz *q, int how)
{
	for (int i = 0; i < q->nmods; i++) {
		int r = q->mods[i]->reverse ? q->mods[i]->reverse(q, how) : MOD_UNCLAIMED;
		if (r != MOD_UNCLAIMED)
			return r;
	}
	return MOD_UNCLAIMED;
}

bool mod_can_reverse(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->can_reverse && q->mods[i]->can_reverse(q))
			return true;
	return false;
}

int mod_break(struct qz *q, const char *spec, const char *cond, bool temp)
{
	for (int i = 0; i < q->nmods; i++) {
		int r = q->mods[i]->on_break ? q->mods[i]->on_break(q, spec, cond, temp) : 0;
		if (r)
			return r;
	}
	return 0;
}

int mod_trap(struct qz *q, uint64_t pc)
{
	for (int i = 0; i < q->nmods; i++) {
		int ev = q->mods[i]->on_trap ? q->mods[i]->on_trap(q, pc) : RUN_TARGET;
		if (ev != RUN_TARGET)
			return ev;
	}
	return RUN_TARGET;
}

int mod_sigtrap(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++) {
		int ev = q->mods[i]->on_sigtrap ? q->mods[i]->on_sigtrap(q) : RUN_TARGET;
		if (ev != RUN_TARGET)
			return ev;
	}
	return RUN_TARGET;
}

bool mod_signal(struct qz *q, int sig)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->on_signal && q->mods[i]->on_signal(q, sig) == RUN_AGAIN)
			return true;
	return false;
}

bool mod_keep_dying(struct qz *q, int sig)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->keep_dying && q->mods[i]->keep_dying(q, sig))
			return true;
	return false;
}

bool mod_explain_stop(struct qz *q, struct sbuf *out)
{
	bool made = false;
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->explain_stop)
			made |= q->mods[i]->explain_stop(q, out);
	return made;
}

/* The module that makes marks: both of a mark's calls go to the same one. */
static const struct qz_mod *mod_marker(struct qz *q)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->mark && q->mods[i]->back)
			return q->mods[i];
	return NULL;
}

int mod_mark(struct qz *q)
{
	const struct qz_mod *m = mod_marker(q);
	return m ? m->mark(q) : qz_error(q, "Checkpoints are not available.");
}

int mod_back(struct qz *q, int handle)
{
	const struct qz_mod *m = mod_marker(q);
	return m ? m->back(q, handle) : qz_error(q, "Checkpoints are not available.");
}

int mod_drive(struct qz *q, const struct run_target *t, bool one)
{
	return q->driver->drive(q, t, one);
}

void mod_save(struct qz *q, void **saved)
{
	for (int i = 0; i < q->nmods; i++)
		if (q->mods[i]->save)
			saved[i] = q->mods[i]->save(q);
}

void mod_restore(struct qz *q, void *const *saved)
{
	for (int i = 0; i < q->nmods; i++)
		if (saved[i] && q->mods[i]->restore)
			q->mods[i]->restore(q, saved[i]);
}

void mod_free_saved(struct qz *q, void **saved)
{
	for (int i = 0; i < q->nmods; i++)
		if (saved[i] && q->mods[i]->free_saved)
			q->mods[i]->free_saved(saved[i]);
}
