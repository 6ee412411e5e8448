/* resume: out-of-line execution of instructions under breakpoints. */
#include "resume.h"

#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/user.h>

#include "dinfo/disasm.h"
#include "proc/inject.h"
#include "session.h"

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

enum {
	RESUME_PAGE = 4096,
	RESUME_SLOT = 32,     /* 15-byte instruction + 14-byte jump back */
};

void resume_reset(struct qz *q)
{
	q->scratch = 0;
	q->scratch_state = 0;
	q->scratch_used = 0;
}

static bool resume_near(uint64_t a, uint64_t b)
{
	uint64_t d = a > b ? a - b : b - a;
	return d < (1ull << 31) - 2 * RESUME_PAGE;
}

/* Map the scratch page just below the program, within reach of its
 * rip-relative operands. */
static bool resume_map(struct qz *q)
{
	if (q->scratch_state)
		return q->scratch_state > 0;
	q->scratch_state = -1;
	uint64_t near = q->exe.lo ? q->exe.lo : 0x555555554000ull;
	uint64_t args[6] = {
		near - 16 * RESUME_PAGE, RESUME_PAGE, PROT_READ | PROT_EXEC,
		MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, (uint64_t)-1, 0,
	};
	int64_t r;
	if (inj_syscall(q->proc, SYS_mmap, args, &r) < 0)
		return false;
	if (r < 0 && r > -4096) {
		args[3] = MAP_PRIVATE | MAP_ANONYMOUS;
		if (inj_syscall(q->proc, SYS_mmap, args, &r) < 0)
			return false;
	}
	if ((r < 0 && r > -4096) || !resume_near((uint64_t)r, near))
		return false;
	q->scratch = (uint64_t)r;
	q->scratch_state = 1;
	return true;
}

/* Short jcc (7x rel8) or near jcc (0f 8x rel32): its condition code. */
static int resume_jcc_cond(const uint8_t *code)
{
	if (code[0] >= 0x70 && code[0] <= 0x7f)
		return code[0] & 0xf;
	if (code[0] == 0x0f && code[1] >= 0x80 && code[1] <= 0x8f)
		return code[1] & 0xf;
	return -1;
}

static size_t resume_put_jump(uint8_t *buf, uint64_t to)
{
	static const uint8_t jmp_rip[6] = {0xff, 0x25, 0, 0, 0, 0};
	memcpy(buf, jmp_rip, 6);
	memcpy(buf + 6, &to, 8);
	return 14;
}

/* Build the out-of-line copy; false if it cannot run from elsewhere. */
static bool resume_build(const struct dis_insn *in, const uint8_t *code,
			 uint64_t addr, uint64_t slot, uint8_t *buf, size_t *n)
{
	int cond = in->is_cond_jump ? resume_jcc_cond(code) : -1;
	if (cond >= 0 && in->has_target) {
		int64_t rel = (int64_t)(in->target - (slot + 6));
		int32_t rel32 = (int32_t)rel;
		if (rel != rel32)
			return false;
		buf[0] = 0x0f;
		buf[1] = (uint8_t)(0x80 | cond);
		memcpy(buf + 2, &rel32, 4);
		*n = 6 + resume_put_jump(buf + 6, addr + in->len);
		return true;
	}
	if (in->uses_rip || in->is_jump || in->is_call || in->is_syscall ||
	    !strncmp(in->mnemonic, "int", 3) || !strncmp(in->mnemonic, "ud", 2))
		return false;
	memcpy(buf, code, in->len);
	if (in->rip_relative) {
		int32_t disp;
		memcpy(&disp, buf + in->disp_offset, 4);
		int64_t nd = (int64_t)disp + (int64_t)(addr - slot);
		int32_t nd32 = (int32_t)nd;
		if (nd != nd32 || !in->disp_offset)
			return false;
		memcpy(buf + in->disp_offset, &nd32, 4);
	}
	*n = in->len + resume_put_jump(buf + in->len, addr + in->len);
	return true;
}

static void resume_prepare(struct qz *q, struct bp_site *s)
{
	uint8_t code[16], buf[RESUME_SLOT];
	struct dis_insn in;
	size_t n;
	s->resume = BP_RESUME_SLOW;
	if (qz_read(q, s->addr, code, sizeof code) < 0 ||
	    !dis_decode(code, sizeof code, s->addr, &in))
		return;
	s->len = (uint8_t)in.len;
	if (in.has_target && in.is_call) {
		s->resume = BP_RESUME_CALL;
		s->target = in.target;
		return;
	}
	if (in.has_target && in.is_jump && !in.is_cond_jump) {
		s->resume = BP_RESUME_JUMP;
		s->target = in.target;
		return;
	}
	if (!resume_map(q) || q->scratch_used + RESUME_SLOT > RESUME_PAGE)
		return;
	uint64_t slot = q->scratch + q->scratch_used;
	if (!resume_build(&in, code, s->addr, slot, buf, &n) ||
	    proc_write(q->proc, slot, buf, n) < 0)
		return;
	q->scratch_used += RESUME_SLOT;
	s->slot = slot;
	s->resume = BP_RESUME_SLOT;
}

bool resume_fast(struct qz *q, struct bp_site *s, int sig)
{
	struct proc *p = q->proc;
	if (s->resume == BP_RESUME_UNKNOWN)
		resume_prepare(q, s);
	struct user_regs_struct *r = proc_regs(p);
	switch (s->resume) {
	case BP_RESUME_SLOT:
		r->rip = s->slot;
		break;
	case BP_RESUME_CALL: {
		uint64_t ret = s->addr + s->len;
		if (proc_write(p, r->rsp - 8, &ret, 8) < 0)
			return false;
		r->rsp -= 8;
		r->rip = s->target;
		break;
	}
	case BP_RESUME_JUMP:
		r->rip = s->target;
		break;
	default:
		return false;
	}
	proc_regs_dirty(p);
	return proc_cont(p, sig) == 0;
}
