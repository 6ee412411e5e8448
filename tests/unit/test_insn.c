/* test_insn: the recorder's def sets (slice/insn.c, from Zydis) checked
 * against the CPU itself: every instruction of whole runs of fixtures
 * (ld.so, libc's string, stdio and malloc functions, the program) is
 * single-stepped, and every general register, vector register (xmm0-15),
 * status flag and stack byte that changed must be in the decoded def set
 * (memory: inside a decoded write operand). Also fixed expectations for
 * the rules capstone 4 gets wrong (PLATFORM.md). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "../../slice/insn.h"

static void check(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unit_vcheck(ok, name, fmt, ap);
	va_end(ap);
}

static bool decode_hex(const char *hex, struct insn *in)
{
	uint8_t b[16];
	int n = 0;
	for (const char *p = hex; p[0] && p[1] && n < 16; p += 2) {
		unsigned v;
		sscanf(p, "%2x", &v);
		b[n++] = (uint8_t)v;
	}
	return insn_decode(b, n, 0x1000, in);
}

#define R(n) (1ull << (n))

/* The cases PLATFORM.md lists where capstone 4 is wrong. */
static void test_rules(void)
{
	struct insn in;
	memset(&in, 0, sizeof in);
	check(decode_hex("53", &in) && in.nmem == 1 && in.mem[0].disp == -8 &&
	      (in.mem[0].rw & INSN_MEM_W) && (in.use & R(3)), "push rbx writes [rsp-8]",
	      "nmem %d disp %lld", in.nmem, (long long)in.mem[0].disp);
	check(decode_hex("e800000000", &in) && in.nmem == 1 && in.mem[0].disp == -8 &&
	      in.kind == INSN_CALL, "call writes [rsp-8]", "nmem %d", in.nmem);
	check(decode_hex("c3", &in) && in.nmem == 1 && in.mem[0].disp == 0 &&
	      (in.mem[0].rw & INSN_MEM_R) && in.kind == INSN_RET, "ret reads [rsp]", "nmem %d", in.nmem);
	check(decode_hex("31c0", &in) && in.use == 0 && (in.def & R(0)) && in.zero_idiom,
	      "xor eax,eax reads nothing", "use %llx", (unsigned long long)in.use);
	check(decode_hex("488d0413", &in) && in.nmem == 0 && (in.use & (R(3) | R(2))) == (R(3) | R(2)),
	      "lea is no memory access", "nmem %d", in.nmem);
	check(decode_hex("0f44c1", &in) && (in.cond_def & R(0)) && (in.use & R(0)) &&
	      (in.use & R(INSN_R_FLAGS)), "cmove is a conditional write", "cond %llx",
	      (unsigned long long)in.cond_def);
	check(decode_hex("0f05", &in) && in.kind == INSN_SYSCALL && (in.def & R(1)) &&
	      (in.def & R(11)) && (in.def & R(0)) && (in.use & R(7)), "syscall defs rax rcx r11",
	      "def %llx", (unsigned long long)in.def);
	check(decode_hex("f3a4", &in) && in.rep && in.nmem == 2 && (in.use & R(1)),
	      "rep movsb: two accesses and the count", "nmem %d", in.nmem);
	check(decode_hex("48f7f1", &in) && (in.use & (R(0) | R(2))) == (R(0) | R(2)) &&
	      (in.def & (R(0) | R(2))) == (R(0) | R(2)), "div rcx uses and defines rdx:rax",
	      "use %llx", (unsigned long long)in.use);
	check(decode_hex("660fefc0", &in) && in.use == 0, "pxor xmm0,xmm0 reads nothing",
	      "use %llx", (unsigned long long)in.use);
	check(decode_hex("5b", &in) && in.save_restore && (in.def & R(3)), "pop rbx is a restore", "");
	check(decode_hex("88c8", &in) && (in.use & R(0)) && (in.def & R(0)),
	      "mov al,cl also reads rax (partial write)", "");
}

struct obs {
	struct user_regs_struct r;
	struct user_fpregs_struct fp;
	uint8_t stack[1024];
};

static void observe(pid_t pid, struct obs *o)
{
	ptrace(PTRACE_GETREGS, pid, 0, &o->r);
	ptrace(PTRACE_GETFPREGS, pid, 0, &o->fp);
	struct iovec l = { o->stack, sizeof o->stack };
	struct iovec rm = { (void *)(o->r.rsp - 512), sizeof o->stack };
	if (process_vm_readv(pid, &l, 1, &rm, 1, 0) != (ssize_t)sizeof o->stack)
		memset(o->stack, 0, sizeof o->stack);
}

static const uint64_t *gpr(const struct user_regs_struct *r, int k)
{
	static const size_t off[16] = {
		offsetof(struct user_regs_struct, rax), offsetof(struct user_regs_struct, rcx),
		offsetof(struct user_regs_struct, rdx), offsetof(struct user_regs_struct, rbx),
		offsetof(struct user_regs_struct, rsp), offsetof(struct user_regs_struct, rbp),
		offsetof(struct user_regs_struct, rsi), offsetof(struct user_regs_struct, rdi),
		offsetof(struct user_regs_struct, r8), offsetof(struct user_regs_struct, r9),
		offsetof(struct user_regs_struct, r10), offsetof(struct user_regs_struct, r11),
		offsetof(struct user_regs_struct, r12), offsetof(struct user_regs_struct, r13),
		offsetof(struct user_regs_struct, r14), offsetof(struct user_regs_struct, r15),
	};
	return (const uint64_t *)((const char *)r + off[k]);
}

/* Is stack byte a written by one of in's write operands? */
static bool in_writes(const struct insn *in, const struct user_regs_struct *r, uint64_t a)
{
	for (int i = 0; i < in->nmem; i++) {
		uint64_t lo = insn_mem_addr(in, &in->mem[i], r, r->rip);
		if ((in->mem[i].rw & INSN_MEM_W) && a >= lo && a < lo + in->mem[i].size)
			return true;
	}
	return false;
}

struct tally { unsigned long steps, bad_reg, bad_flags, bad_vec, bad_mem; char first[160]; };

static void note(struct tally *t, const char *what, const struct insn *in, uint64_t pc)
{
	if (!t->first[0])
		snprintf(t->first, sizeof t->first, "%s at 0x%llx (%s)", what,
			 (unsigned long long)pc, in->text);
}

static void compare(struct tally *t, const struct insn *in, const struct obs *a, const struct obs *b)
{
	for (int k = 0; k < 16; k++)
		if (k != INSN_R_RSP && *gpr(&a->r, k) != *gpr(&b->r, k) && !(in->def & R(k))) {
			t->bad_reg++;
			note(t, insn_reg_name(k), in, a->r.rip);
		}
	if (((a->r.eflags ^ b->r.eflags) & 0x8d5) && !(in->def & R(INSN_R_FLAGS))) {
		t->bad_flags++;
		note(t, "eflags", in, a->r.rip);
	}
	for (int k = 0; k < 16; k++)
		if (memcmp(&a->fp.xmm_space[4 * k], &b->fp.xmm_space[4 * k], 16) &&
		    !(in->def & R(INSN_R_VEC0 + k))) {
			t->bad_vec++;
			note(t, insn_reg_name(INSN_R_VEC0 + k), in, a->r.rip);
		}
	if (a->r.rsp != b->r.rsp && in->kind != INSN_CALL && in->kind != INSN_CALL_IND &&
	    in->kind != INSN_OTHER)
		return;   /* compare stack bytes at the same addresses only */
	int64_t shift = (int64_t)(b->r.rsp - a->r.rsp);
	for (int i = 0; i < 1024; i++) {
		int64_t j = i - shift;   /* the same address in b's window */
		if (j < 0 || j >= 1024 || a->stack[i] == b->stack[j])
			continue;
		if (!in_writes(in, &a->r, a->r.rsp - 512 + (uint64_t)i)) {
			t->bad_mem++;
			note(t, "stack byte", in, a->r.rip);
			break;
		}
	}
}

static pid_t start(const char *path)
{
	pid_t pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		personality(ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	return pid;
}

static void run_program(const char *path, unsigned long max)
{
	struct tally t = {0};
	pid_t pid = start(path);
	struct obs *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	unsigned long undecoded = 0;
	observe(pid, a);
	while (t.steps < max) {
		uint8_t bytes[16];
		struct iovec l = { bytes, 16 }, rm = { (void *)a->r.rip, 16 };
		struct insn in;
		bool ok = process_vm_readv(pid, &l, 1, &rm, 1, 0) == 16 &&
			  insn_decode(bytes, 16, a->r.rip, &in);
		int st;
		ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
		waitpid(pid, &st, 0);
		if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
			break;
		observe(pid, b);
		t.steps++;
		if (!ok)
			undecoded++;
		else if (in.kind != INSN_SYSCALL)
			compare(&t, &in, a, b);
		struct obs *x = a;
		a = b;
		b = x;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(a);
	free(b);
	char name[256];
	snprintf(name, sizeof name, "def sets vs the CPU on %s", path);
	check(t.steps > 10000 && !undecoded, name, "only %lu steps, %lu undecoded", t.steps, undecoded);
	snprintf(name, sizeof name, "%s: registers changed are defined (%lu insns)", path, t.steps);
	check(!t.bad_reg && !t.bad_flags && !t.bad_vec, name, "%lu gpr, %lu flags, %lu vector misses; first: %s",
	      t.bad_reg, t.bad_flags, t.bad_vec, t.first);
	snprintf(name, sizeof name, "%s: stack bytes changed are written", path);
	check(!t.bad_mem, name, "%lu misses; first: %s", t.bad_mem, t.first);
}

int main(void)
{
	test_rules();
	run_program("tests/build/bug_dfree-O0", 400000);
	run_program("tests/build/sl_memcpy-O2", 400000);
	run_program("tests/build/bug_stack-O0", 400000);
	return 0;
}
