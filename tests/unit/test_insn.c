/* test_insn: the recorder's def/use sets (slice/insn.c, from Zydis) checked
 * against the CPU itself: every instruction of whole runs of fixtures
 * (ld.so, libc's string, stdio and malloc functions, the program) is
 * single-stepped, and every general register, vector register (xmm0-15),
 * status flag and stack byte that changed must be in the decoded def set
 * (memory: inside a decoded write operand). Then every instruction of
 * the fixtures' functions and of libc's string and malloc functions is
 * compared with a second decoder, capstone 4, corrected for its known
 * gaps. Also fixed expectations for the rules capstone 4 gets wrong
 * (PLATFORM.md). */
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

#include <capstone/capstone.h>

#include "dinfo/image.h"
#include "proc/proc.h"
#include "unit.h"
#include "../../slice/insn.h"

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
	unit_check(decode_hex("53", &in) && in.nmem == 1 && in.mem[0].disp == -8 &&
	      (in.mem[0].rw & INSN_MEM_W) && (in.use & R(3)), "push rbx writes [rsp-8]",
	      "nmem %d disp %lld", in.nmem, (long long)in.mem[0].disp);
	unit_check(decode_hex("e800000000", &in) && in.nmem == 1 && in.mem[0].disp == -8 &&
	      in.kind == INSN_CALL, "call writes [rsp-8]", "nmem %d", in.nmem);
	unit_check(decode_hex("c3", &in) && in.nmem == 1 && in.mem[0].disp == 0 &&
	      (in.mem[0].rw & INSN_MEM_R) && in.kind == INSN_RET, "ret reads [rsp]", "nmem %d", in.nmem);
	unit_check(decode_hex("31c0", &in) && in.use == 0 && (in.def & R(0)) && in.zero_idiom,
	      "xor eax,eax reads nothing", "use %llx", (unsigned long long)in.use);
	unit_check(decode_hex("488d0413", &in) && in.nmem == 0 && (in.use & (R(3) | R(2))) == (R(3) | R(2)),
	      "lea is no memory access", "nmem %d", in.nmem);
	unit_check(decode_hex("0f44c1", &in) && (in.cond_def & R(0)) && (in.use & R(0)) &&
	      (in.use & R(INSN_R_FLAGS)), "cmove is a conditional write", "cond %llx",
	      (unsigned long long)in.cond_def);
	unit_check(decode_hex("0f05", &in) && in.kind == INSN_SYSCALL && (in.def & R(1)) &&
	      (in.def & R(11)) && (in.def & R(0)) && (in.use & R(7)), "syscall defs rax rcx r11",
	      "def %llx", (unsigned long long)in.def);
	unit_check(decode_hex("f3a4", &in) && in.rep && in.nmem == 2 && (in.use & R(1)),
	      "rep movsb: two accesses and the count", "nmem %d", in.nmem);
	unit_check(decode_hex("48f7f1", &in) && (in.use & (R(0) | R(2))) == (R(0) | R(2)) &&
	      (in.def & (R(0) | R(2))) == (R(0) | R(2)), "div rcx uses and defines rdx:rax",
	      "use %llx", (unsigned long long)in.use);
	unit_check(decode_hex("660fefc0", &in) && in.use == 0, "pxor xmm0,xmm0 reads nothing",
	      "use %llx", (unsigned long long)in.use);
	unit_check(decode_hex("5b", &in) && in.save_restore && (in.def & R(3)), "pop rbx is a restore", "");
	unit_check(decode_hex("88c8", &in) && (in.use & R(0)) && (in.def & R(0)),
	      "mov al,cl also reads rax (partial write)", "");
}

#define F R(INSN_R_FLAGS)
#define V(n) R(INSN_R_VEC0 + (n))
#define K(n) R(INSN_R_K0 + (n))
#define AX R(0)
#define CX R(1)
#define DX R(2)
#define BX R(3)
#define SI R(6)
#define DI R(7)

/* Instruction by instruction, the exact register sets insn.c must give:
 * idioms, flags (one unit: a write of some flags keeps the others, so it
 * reads them), rep string instructions (one record per iteration: the
 * pointers and the count are conditional writes), exchanges, masks. */
static const struct insn_case {
	const char *hex, *text;
	uint64_t use, def, cond;
	int nmem, mem_rw, mem_size;
} insn_cases[] = {
	{ "31c0", "xor eax,eax", 0, AX | F, 0, 0, 0, 0 },
	{ "31c8", "xor eax,ecx", AX | CX, AX | F, 0, 0, 0, 0 },
	{ "4829c9", "sub rcx,rcx", 0, CX | F, 0, 0, 0, 0 },
	{ "19d2", "sbb edx,edx (reads only the carry)", F, DX | F, 0, 0, 0, 0 },
	{ "4839c0", "cmp rax,rax", 0, F, 0, 0, 0, 0 },
	{ "660fefdb", "pxor xmm3,xmm3", 0, V(3), 0, 0, 0, 0 },
	{ "0f57c9", "xorps xmm1,xmm1", 0, V(1), 0, 0, 0, 0 },
	{ "c5e9efd2", "vpxor xmm2,xmm2,xmm2", 0, V(2), 0, 0, 0, 0 },
	{ "62f1d548efed", "vpxorq zmm5,zmm5,zmm5", 0, V(5), 0, 0, 0, 0 },
	{ "62f14d49eff6", "vpxord zmm6{k1},zmm6,zmm6 (merges)", V(6) | K(1), V(6), V(6), 0, 0, 0 },
	{ "62f17d48fec1", "vpaddd zmm0,zmm0,zmm1 (k0: no mask)", V(0) | V(1), V(0), 0, 0, 0, 0 },
	{ "c5f893c1", "kmovw eax,k1", K(1), AX, 0, 0, 0, 0 },
	{ "c5dc57e4", "vxorps ymm4,ymm4,ymm4", 0, V(4), 0, 0, 0, 0 },
	{ "660f76ff", "pcmpeqd xmm7,xmm7 (all ones)", 0, V(7), 0, 0, 0, 0 },
	{ "f5", "cmc", F, F, 0, 0, 0, 0 },
	{ "f8", "clc", F, F, 0, 0, 0, 0 },
	{ "f9", "stc", F, F, 0, 0, 0, 0 },
	{ "48ffc0", "inc rax (keeps CF)", AX | F, AX | F, 0, 0, 0, 0 },
	{ "ffc9", "dec ecx (keeps CF)", CX | F, CX | F, 0, 0, 0, 0 },
	{ "4811d8", "adc rax,rbx", AX | BX | F, AX | F, 0, 0, 0, 0 },
	{ "4819d8", "sbb rax,rbx", AX | BX | F, AX | F, 0, 0, 0, 0 },
	{ "48d3e0", "shl rax,cl (cl = 0 keeps the flags)", AX | CX | F, AX | F, F, 0, 0, 0 },
	{ "48c1e003", "shl rax,3", AX, AX | F, 0, 0, 0, 0 },
	{ "0fa3c8", "bt eax,ecx (keeps ZF)", AX | CX | F, F, 0, 0, 0, 0 },
	{ "480fbae805", "bts rax,5 (keeps ZF)", AX | F, AX | F, 0, 0, 0, 0 },
	{ "0f94c0", "sete al", AX | F, AX, 0, 0, 0, 0 },
	{ "480f45c3", "cmovne rax,rbx", AX | BX | F, AX, AX, 0, 0, 0 },
	{ "7208", "jb", F, 0, 0, 0, 0, 0 },
	{ "f3a4", "rep movsb", CX | SI | DI | F, CX | SI | DI, CX | SI | DI, 2, -1, 1 },
	{ "f348ab", "rep stosq", AX | CX | DI | F, CX | DI, CX | DI, 1, INSN_MEM_W | INSN_MEM_CW, 8 },
	{ "f3a6", "repe cmpsb", CX | SI | DI | F, CX | SI | DI | F, CX | SI | DI | F, 2, INSN_MEM_R, 1 },
	{ "f2ae", "repne scasb", AX | CX | DI | F, CX | DI | F, CX | DI | F, 1, INSN_MEM_R, 1 },
	{ "4891", "xchg rcx,rax", AX | CX, AX | CX, 0, 0, 0, 0 },
	{ "f0480fb10a", "lock cmpxchg [rdx],rcx", AX | CX | DX, AX | F, AX, 1,
	  INSN_MEM_R | INSN_MEM_W | INSN_MEM_CW, 8 },
	{ "f0480fc10a", "lock xadd [rdx],rcx", CX | DX, CX | F, 0, 1, INSN_MEM_R | INSN_MEM_W, 8 },
	{ "c5f892c8", "kmovw k1,eax", AX, K(1), 0, 0, 0, 0 },
	{ "c5f441d3", "kandw k2,k1,k3", K(1) | K(3), K(2), 0, 0, 0, 0 },
	{ "f20f1008", "movsd xmm1,[rax] (writes all 128 bits)", AX, V(1), 0, 1, INSN_MEM_R, 8 },
	{ "f20f10c1", "movsd xmm0,xmm1 (merges)", V(0) | V(1), V(0), 0, 0, 0, 0 },
	{ "0f28c1", "movaps xmm0,xmm1", V(1), V(0), 0, 0, 0, 0 },
	{ "f2480f2ac0", "cvtsi2sd xmm0,rax (merges)", V(0) | AX, V(0), 0, 0, 0, 0 },
	{ "88d8", "mov al,bl", AX | BX, AX, 0, 0, 0, 0 },
	{ "89d8", "mov eax,ebx", BX, AX, 0, 0, 0, 0 },
};

static void test_table(void)
{
	for (size_t i = 0; i < sizeof insn_cases / sizeof *insn_cases; i++) {
		const struct insn_case *c = &insn_cases[i];
		struct insn in;
		bool ok = decode_hex(c->hex, &in);
		bool mem = in.nmem == c->nmem;
		for (int k = 0; mem && k < in.nmem; k++)
			mem = in.mem[k].size == c->mem_size &&
			      (c->mem_rw < 0 || in.mem[k].rw == c->mem_rw);
		unit_check(ok && in.use == c->use && in.def == c->def && in.cond_def == c->cond && mem,
		      c->text, "use %llx def %llx cond %llx nmem %d (want %llx %llx %llx %d)",
		      (unsigned long long)in.use, (unsigned long long)in.def,
		      (unsigned long long)in.cond_def, in.nmem, (unsigned long long)c->use,
		      (unsigned long long)c->def, (unsigned long long)c->cond, c->nmem);
	}
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

/* The program under the one stepping primitive (core/proc/proc.c), which steps
 * over instructions whose trap this machine delivers late (platform.c). */
static struct proc *start(const char *path)
{
	char *argv[] = {(char *)path, NULL}, err[256];
	struct proc_launch l = {.path = path, .argv = argv, .stdout_path = "/dev/null"};
	struct proc *p = proc_launch(&l, err, sizeof err);
	if (!p)
		fprintf(stderr, "%s: %s\n", path, err);
	return p;
}

static void run_program(const char *path, unsigned long max)
{
	struct tally t = {0};
	struct proc *p = start(path);
	if (!p)
		return;
	pid_t pid = proc_pid(p);
	struct obs *a = malloc(sizeof *a), *b = malloc(sizeof *b);
	unsigned long undecoded = 0;
	observe(pid, a);
	while (t.steps < max) {
		uint8_t bytes[16];
		struct iovec l = { bytes, 16 }, rm = { (void *)a->r.rip, 16 };
		struct insn in;
		bool ok = process_vm_readv(pid, &l, 1, &rm, 1, 0) == 16 &&
			  insn_decode(bytes, 16, a->r.rip, &in);
		struct proc_stop st;
		proc_step(p, 0);
		proc_wait(p, &st);
		if (st.ev != PROC_TRAP)
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
	proc_kill(p);
	free(a);
	free(b);
	char name[256];
	snprintf(name, sizeof name, "def sets vs the CPU on %s", path);
	unit_check(t.steps > 10000 && !undecoded, name, "only %lu steps, %lu undecoded", t.steps, undecoded);
	snprintf(name, sizeof name, "%s: registers changed are defined (%lu insns)", path, t.steps);
	unit_check(!t.bad_reg && !t.bad_flags && !t.bad_vec, name, "%lu gpr, %lu flags, %lu vector misses; first: %s",
	      t.bad_reg, t.bad_flags, t.bad_vec, t.first);
	snprintf(name, sizeof name, "%s: stack bytes changed are written", path);
	unit_check(!t.bad_mem, name, "%lu misses; first: %s", t.bad_mem, t.first);
}

/* The second decoder: capstone 4's register lists, corrected for its
 * known gaps (PLATFORM.md): its reads of rsp/rip/flags and of a zero
 * idiom's source are not compared, nor lea's "memory read"; and `test`,
 * which capstone 4 says writes its first operand (it writes only flags). */
struct cs_tally { unsigned long insns, len, reads, writes, mem; char first[400]; };

static int cs_to_mine(csh h, uint16_t reg)
{
	const char *name = cs_reg_name(h, reg);
	if (!name || !strcmp(name, "rsp") || !strcmp(name, "esp") || !strcmp(name, "rip"))
		return -1;
	return strcmp(name, "rflags") == 0 || strcmp(name, "eflags") == 0 ? -1 : insn_reg_by_name(name);
}

static void cs_note(struct cs_tally *t, const char *what, const cs_insn *ci)
{
	if (getenv("TEST_INSN_VERBOSE"))
		fprintf(stderr, "%s: %s %s at 0x%llx\n", what, ci->mnemonic, ci->op_str,
			(unsigned long long)ci->address);
	if (!t->first[0])
		snprintf(t->first, sizeof t->first, "%s: %s %s at 0x%llx", what, ci->mnemonic,
			 ci->op_str, (unsigned long long)ci->address);
}

static void cs_compare(csh h, const cs_insn *ci, const struct insn *in, struct cs_tally *t)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	t->insns++;
	if (in->len != ci->size) {
		t->len++;
		cs_note(t, "length", ci);
		return;
	}
	if (cs_regs_access(h, ci, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return;
	bool test = strcmp(ci->mnemonic, "test") == 0;
	if (test)
		nwr = 0;
	for (int i = 0; i < nwr; i++) {
		int r = cs_to_mine(h, wr[i]);
		if (r >= 0 && r < 64 && !(in->def & (1ull << r))) {
			t->writes++;
			cs_note(t, "write", ci);
		}
	}
	for (int i = 0; i < nrd && !in->zero_idiom; i++) {
		int r = cs_to_mine(h, rd[i]);
		if (r >= 0 && r < 64 && !(in->use & (1ull << r))) {
			t->reads++;
			cs_note(t, "read", ci);
		}
	}
	const cs_x86 *x = &ci->detail->x86;
	for (int i = 0; i < x->op_count && strcmp(ci->mnemonic, "lea") && !test; i++) {
		if (x->operands[i].type != X86_OP_MEM || !(x->operands[i].access & CS_AC_WRITE))
			continue;
		bool found = false;
		for (int k = 0; k < in->nmem; k++)
			found |= (in->mem[k].rw & INSN_MEM_W) != 0;
		if (!found) {
			t->mem++;
			cs_note(t, "memory write", ci);
		}
	}
}

static void cs_function(csh h, const struct img *code, uint64_t lo, uint64_t size, struct cs_tally *t)
{
	uint8_t *bytes = malloc(size + 16);
	memset(bytes, 0, size + 16);
	if (!img_read(code, lo, bytes, size)) {
		free(bytes);
		return;
	}
	for (uint64_t off = 0; off < size;) {
		struct insn in;
		cs_insn *ci;
		if (!insn_decode(bytes + off, 15, lo + off, &in))
			break;
		if (cs_disasm(h, bytes + off, in.len, lo + off, 1, &ci) == 1) {
			cs_compare(h, ci, &in, t);
			cs_free(ci, 1);
		}
		off += in.len;
	}
	free(bytes);
}

/* Every instruction of a fixture's functions, and of libc's string and
 * malloc functions (symbols from its debug file, bytes from libc). */
static void test_static(const char *what, const char *code_path, const char *sym_path,
			const char *const *names)
{
	char err[256];
	struct img *code = img_open(code_path, err, sizeof err);
	struct img *syms = sym_path ? img_open(sym_path, err, sizeof err) : code;
	csh h;
	struct cs_tally t = {0};
	size_t nf = 0;
	if (code && syms && cs_open(CS_ARCH_X86, CS_MODE_64, &h) == CS_ERR_OK) {
		cs_option(h, CS_OPT_DETAIL, CS_OPT_ON);
		for (size_t i = 0; names[i]; i++) {
			const struct img_sym *s = img_sym_named(syms, names[i]);
			if (s && s->size) {
				cs_function(h, code, s->addr, s->size, &t);
				nf++;
			}
		}
		cs_close(&h);
	}
	char name[300];
	snprintf(name, sizeof name, "%s: %zu functions, %lu instructions decoded", what, nf, t.insns);
	unit_check(nf > 0 && t.insns > 10 && !t.len, name, "%lu length mismatches; %s", t.len, t.first);
	snprintf(name, sizeof name, "%s: capstone's reads and writes are in our use/def sets", what);
	unit_check(!t.reads && !t.writes && !t.mem, name, "%lu reads, %lu writes, %lu memory writes "
	      "missing; first: %s", t.reads, t.writes, t.mem, t.first);
	if (syms && syms != code)
		img_close(syms);
	if (code)
		img_close(code);
}

static char *libc_debug_file(void)
{
	char *id = unit_run("readelf -n /lib/x86_64-linux-gnu/libc.so.6 | sed -n 's/.*Build ID: //p'");
	char *nl = strchr(id, '\n');
	if (nl)
		*nl = 0;
	char *path = strlen(id) > 2 ? xasprintf("/usr/lib/debug/.build-id/%.2s/%s.debug", id, id + 2) : NULL;
	free(id);
	return path;
}

int main(void)
{
	test_rules();
	test_table();
	static const char *const fixture_funcs[] = {
		"main", "find_entry", "record_new", "record_copy", "record_free", "greet",
		"make_squares", "msg_new", "twice", "keep", "helper", "fact", "classify", NULL,
	};
	static const char *const fixtures[] = {
		"bug_nullp", "bug_dfree", "bug_stack", "bug_heap", "bug_dangle", "sl_accum",
		"sl_func", "sl_memcpy", "sl_ctrl", "sl_rec", "sl_switch", NULL,
	};
	for (size_t i = 0; fixtures[i]; i++)
		for (int o = 0; o <= 2; o += 2) {
			char path[256];
			snprintf(path, sizeof path, "tests/build/%s-O%d", fixtures[i], o);
			test_static(path, path, NULL, fixture_funcs);
		}
	static const char *const libc_funcs[] = {
		"__memmove_avx_unaligned_erms", "__memmove_evex_unaligned_erms",
		"__memmove_sse2_unaligned_erms", "__memset_avx2_unaligned_erms",
		"__memset_evex_unaligned_erms", "__strlen_avx2", "__strlen_evex", "__strlen_sse2",
		"__strcpy_avx2", "__strcpy_evex", "__stpcpy_avx2", "__strcmp_avx2", "__strcmp_evex",
		"__strcmp_sse2_unaligned", "__strchr_avx2", "__memchr_avx2", "__memcmp_avx2_movbe",
		"__strdup", "__libc_malloc", "__libc_free", "_int_malloc", "_int_free", "__libc_calloc",
		"__libc_realloc", "malloc_consolidate", "tcache_init", "sysmalloc", NULL,
	};
	char *dbg = libc_debug_file();
	if (dbg && access(dbg, R_OK) == 0)
		test_static("libc string and malloc functions", "/lib/x86_64-linux-gnu/libc.so.6",
			    dbg, libc_funcs);
	else
		unit_check(false, "libc debug file", "not found (%s): install libc6-dbg", dbg ? dbg : "?");
	free(dbg);
	run_program("tests/build/bug_dfree-O0", 400000);
	run_program("tests/build/sl_memcpy-O2", 400000);
	run_program("tests/build/bug_stack-O0", 400000);
	return 0;
}
