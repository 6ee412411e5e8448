/* test_detect: the detector rule language's parser (detect/spec.c): the
 * shipped specs parse, the parts of a rule land where they should, every
 * malformed spec gives its exact LINE:COLUMN message, and garbage (random
 * bytes, NULs, huge lines, deep nesting) is refused without a crash. And
 * uninit's definedness (detect/uninit.c) on made-up instructions: a load
 * across a shadow page's edge, the fast path's stores, a 4-byte write's
 * zeroed upper half, and with a defined zero half, propagation turned
 * on and off, a branch on undefined flags. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "detect/detect-int.h"
#include "detect/spec.h"

static const char good[] =
	"# a comment\n"
	"class double-free \"Double free\"\n"
	"\n"
	"on free   # trailing comment\n"
	"when addr != 0 and (freed(addr) or not inblock(0x10))\n"
	"report \"Double free of {addr} at {here} \\\"q\\\"\"\n"
	"locate addr\n"
	"on exit each block\n"
	"when allocated(addr) and size >= 16\n"
	"report \"leak {addr} {size}\"\n";

static void test_good(void)
{
	struct spec *s = NULL;
	char err[256] = "";
	int r = spec_parse(good, strlen(good), "g.spec", &s, err, sizeof err);
	unit_check(r == 0, "parse good", "%s", err);
	if (r)
		return;
	unit_check(!strcmp(s->name, "double-free") && !strcmp(s->title, "Double free"),
	      "class name and title", "%s / %s", s->name, s->title);
	unit_check(s->nrules == 2, "two rules", "%d", s->nrules);
	const struct spec_rule *a = &s->rules[0], *b = &s->rules[1];
	unit_check(a->ev == EV_FREE && a->line == 4 && a->has_locator && a->locate == F_ADDR,
	      "rule 1 event, line, locator", "ev %d line %d", a->ev, a->line);
	unit_check(a->cond->op == OP_AND && a->cond->l->op == OP_NE && a->cond->r->op == OP_OR &&
	      a->cond->r->r->op == OP_NOT && a->cond->r->r->l->a.num == 0x10,
	      "condition tree", "op %d", a->cond->op);
	unit_check(!strcmp(a->report, "Double free of {addr} at {here} \"q\""), "report escapes",
	      "%s", a->report);
	unit_check(b->ev == EV_EXIT && b->each_block && !b->has_locator && b->cond->r->op == OP_GE,
	      "rule 2 each block", "ev %d", b->ev);
	spec_free(s);
}

struct bad { const char *text, *msg; };

static const struct bad bads[] = {
	{"on free\n", "b.spec:1:1: 'on' before 'class'"},
	{"class x \"X\"\non frees\n", "b.spec:2:4: expected an event (malloc calloc realloc free start exit segv libwrite canary smash read write deref), found \"frees\""},
	{"class x \"X\"\non free\nwhen size > 3\nreport \"r\"\n", "b.spec:3:6: event free has no field size"},
	{"class x \"X\"\non free\nwhen addr = 3\n", "b.spec:3:11: unexpected character '='"},
	{"class x \"X\"\non free\nwhen freed addr\n", "b.spec:3:12: expected '(' after the predicate, found \"addr\""},
	{"class x \"X\"\non free\nwhen (freed(addr)\nreport \"r\"\n", "b.spec:3:18: expected ')', found end of line"},
	{"class x \"X\"\non free\nwhen freed(addr)\nreport \"{nope}\"\n", "b.spec:4:8: unknown placeholder {nope} in the report"},
	{"class x \"X\"\non free\nwhen freed(addr)\nreport \"abc\n", "b.spec:4:12: unterminated string"},
	{"class x \"X\"\non free\nwhen freed(addr)\n", "b.spec:2:1: rule without 'report'"},
	{"class x \"X\"\n", "b.spec:2:1: no rule ('on EVENT')"},
	{"# nothing\n", "b.spec:1:1: no 'class' line"},
	{"class x \"X\"\nwhen freed(addr)\n", "b.spec:2:1: 'when' before any 'on'"},
	{"class x \"X\"\non free each block\n", "b.spec:2:9: 'each block' is only for 'on exit'"},
	{"class x \"X\" extra\n", "b.spec:1:13: expected end of line, found \"extra\""},
	{"class x\n", "b.spec:1:8: expected the class title as a string, found end of line"},
	{"class x \"X\"\non malloc\nwhen size > 99999999999999999999\n", "b.spec:3:13: bad number \"99999999999999999999\""},
	{"class x \"X\"\non free\nwhen addr != 0 and\nreport \"r\"\n", "b.spec:3:19: expected a field (addr, size, result, over) or a number, found end of line"},
	{"class x \"X\"\non free\nlocate 3\n", "b.spec:3:9: 'locate' names a field, not a number"},
	{"class x \"X\"\nfrob\n", "b.spec:2:1: expected class, on, when, report or locate, found \"frob\""},
	{"class x \"X\"\non free\nwhen freed(addr)\nwhen freed(addr)\n", "b.spec:4:1: a second 'when' in one rule (use 'and')"},
	{"class x \"a\x01\"\n", "b.spec:1:11: control character 0x01 in a string"},
	{"class x \"X\"\non free\nwhen freed(addr)\nreport \"r}\"\n", "b.spec:4:8: '}' without '{' in the report"},
	{"class x \"X\"\non malloc\nwhen over > 0\n", "b.spec:3:6: event malloc has no field over"},
	{"class x \"X\"\non segv\nwhen size > 0\n", "b.spec:3:6: event segv has no field size"},
	{"class x \"X\"\non exit\nwhen allocated(addr)\n", "b.spec:3:16: event exit has no field addr"},
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		struct spec *s = NULL;
		char err[256] = "", name[32];
		int r = spec_parse(bads[i].text, strlen(bads[i].text), "b.spec", &s, err, sizeof err);
		snprintf(name, sizeof name, "malformed %zu", i + 1);
		unit_check(r < 0 && !strcmp(err, bads[i].msg), name, "got \"%s\", want \"%s\"", err,
		      bads[i].msg);
		if (r == 0)
			spec_free(s);
	}
}

/* A NUL inside the text is an error at its column, not an end. */
static void test_nul(void)
{
	static const char t[] = "class x \"X\"\non \0free\n";
	struct spec *s = NULL;
	char err[256] = "";
	int r = spec_parse(t, sizeof t - 1, "n.spec", &s, err, sizeof err);
	unit_check(r < 0 && !strcmp(err, "n.spec:2:4: unexpected byte 0x00"), "NUL byte", "%s", err);
}

static void test_limits(void)
{
	char err[256] = "";
	struct spec *s = NULL;
	/* deep nesting */
	struct sbuf b = {0};
	sbuf_add(&b, "class x \"X\"\non free\nwhen ");
	for (int i = 0; i < 200; i++)
		sbuf_add(&b, "not (");
	int r = spec_parse(b.s, b.len, "d.spec", &s, err, sizeof err);
	unit_check(r < 0 && strstr(err, "nested too deeply"), "deep nesting refused", "%s", err);
	/* a huge line */
	sbuf_reset(&b);
	sbuf_add(&b, "class x \"");
	for (int i = 0; i < 60000; i++)
		sbuf_addc(&b, 'a');
	sbuf_add(&b, "\"\non start\nwhen 1 == 1\nreport \"r\"\n");
	r = spec_parse(b.s, b.len, "h.spec", &s, err, sizeof err);
	unit_check(r == 0 && strlen(s->title) == 60000, "huge line parses", "%s", err);
	if (r == 0)
		spec_free(s);
	/* over the size limit */
	for (int i = 0; i < 10000; i++)
		sbuf_add(&b, "# pad\n");
	r = spec_parse(b.s, b.len, "big.spec", &s, err, sizeof err);
	unit_check(r < 0 && !strcmp(err, "big.spec:1:1: spec larger than 65536 bytes"),
	      "too large refused", "%s", err);
	/* too many rules */
	sbuf_reset(&b);
	sbuf_add(&b, "class x \"X\"\n");
	for (int i = 0; i < SPEC_MAX_RULES + 1; i++)
		sbuf_add(&b, "on start\nwhen 1 == 1\nreport \"r\"\n");
	r = spec_parse(b.s, b.len, "m.spec", &s, err, sizeof err);
	unit_check(r < 0 && !strcmp(err, "m.spec:50:1: more than 16 rules"), "rule limit", "%s", err);
	sbuf_free(&b);
}

/* Random bytes and mutated good specs: refused or parsed, never a crash
 * (the run under ASan in make fuzz is the stronger form of this). */
static void test_garbage(void)
{
	srand(20);
	int parsed = 0, refused = 0;
	char buf[512], err[256];
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)(rand() % (int)sizeof buf);
		if (i % 2) {
			for (size_t k = 0; k < n; k++)
				buf[k] = (char)(rand() & 0xff);
		} else {
			n = strlen(good);
			memcpy(buf, good, n);
			for (int k = 0; k < 3; k++)
				buf[rand() % (int)n] = (char)(rand() & 0xff);
		}
		struct spec *s = NULL;
		err[0] = 0;
		if (spec_parse(buf, n, "f.spec", &s, err, sizeof err) == 0) {
			parsed++;
			spec_free(s);
		} else if (strncmp(err, "f.spec:", 7) == 0) {
			refused++;
		}
	}
	unit_check(parsed + refused == 20000 && refused > 10000, "garbage parsed or refused with a place",
	      "parsed %d refused %d", parsed, refused);
}

/* The libwrite event binds addr, size and over; {fn} and {over} are
 * placeholders. */
static void test_libwrite(void)
{
	static const char t[] = "class o \"O\"\non libwrite\nwhen inblock(addr) and over > 0\n"
				"report \"{fn} {over} {size}\"\nlocate addr\n";
	struct spec *s = NULL;
	char err[256] = "";
	int r = spec_parse(t, sizeof t - 1, "o.spec", &s, err, sizeof err);
	unit_check(r == 0 && s->rules[0].ev == EV_LIBWRITE && s->rules[0].cond->r->a.field == F_OVER,
	      "libwrite rule", "%s", err);
	if (r == 0)
		spec_free(s);
}

/* A rule without `when` holds on every such event; smash binds result. */
static void test_no_when(void)
{
	static const char t[] = "class s \"S\"\non smash\nreport \"{fn} {result} {buffer}\"\n"
				"locate addr\non canary\nwhen over > 8\nreport \"c\"\n";
	struct spec *s = NULL;
	char err[256] = "";
	int r = spec_parse(t, sizeof t - 1, "s.spec", &s, err, sizeof err);
	unit_check(r == 0 && s->nrules == 2 && s->rules[0].ev == EV_SMASH && !s->rules[0].cond &&
	      s->rules[1].ev == EV_CANARY && s->rules[1].cond, "rule without when", "%s", err);
	if (r == 0)
		spec_free(s);
	static const char bad[] = "class s \"S\"\non canary\nwhen result > 0\nreport \"c\"\n";
	r = spec_parse(bad, sizeof bad - 1, "s.spec", &s, err, sizeof err);
	unit_check(r < 0 && !strcmp(err, "s.spec:3:6: event canary has no field result"),
	      "canary has no result", "%s", err);
}

static void test_shipped(void)
{
	static const char *const names[] = { "double-free", "invalid-free", "leak", "null-deref",
					     "heap-overflow", "dangling", "stack-overflow", "uninit" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[128], err[256] = "", what[64];
		struct spec *s = NULL;
		snprintf(path, sizeof path, "detect/specs/%s.spec", names[i]);
		int r = spec_load(path, &s, err, sizeof err);
		snprintf(what, sizeof what, "shipped %s", names[i]);
		unit_check(r == 0 && !strcmp(s->name, names[i]), what, "%s", err);
		if (r == 0)
			spec_free(s);
	}
	char err[256] = "";
	struct spec *s = NULL;
	int r = spec_load("detect/specs/none.spec", &s, err, sizeof err);
	unit_check(r < 0 && !strcmp(err, "detect/specs/none.spec: No such file or directory"),
	      "missing file", "%s", err);
}

/* ---- uninit ---- */

enum { RAX = 0, RDX = 2, RBX = 3, FLAGS = 56 };

static uint64_t fake_reg(void *ctx, int r)
{
	(void)ctx;
	return r == RDX ? 0x00000000ffffffffull : 0x1122334455667788ull;
}

/* An instruction of the program: text, registers read (rd: their byte
 * widths) and written (wr), one memory operand (rw 0: none). */
static struct slice_view_access un_insn(const char *text, uint64_t use, uint64_t def,
					unsigned width, uint64_t addr, unsigned size, unsigned rw)
{
	struct slice_view_access a = {
		.pc = 0x401000, .user = true, .nmem = rw ? 1 : 0, .sp = 0x7ff000, .use = use,
		.def = def, .text = text, .reg = fake_reg,
	};
	a.mem[0].addr = addr;
	a.mem[0].size = size;
	a.mem[0].rw = rw;
	a.mem[0].base = a.mem[0].index = 0xff;
	for (int r = 0; r < 16; r++) {
		if ((use >> r) & 1)
			a.gpr_rd |= (uint64_t)width << (4 * r);
		if ((def >> r) & 1)
			a.gpr_wr |= (uint64_t)width << (4 * r);
	}
	return a;
}

static void test_uninit(void)
{
	static struct detect_state st;
	st.un_on = true;
	/* 16 bytes across the edge of two shadow pages (32 KiB each) */
	struct det_block b = { .addr = 0x10000 - 8, .size = 16 };
	det_un_alloc(&st, &b, false);
	struct slice_view_access a = un_insn("mov", 1ull << RBX, 0, 8, 0x10000 - 8, 8, 2);
	unit_check(!det_un_check(&st, &a) && !st.un_regs && !st.un_every, "uninit: a store defines",
	      "regs %llx", (unsigned long long)st.un_regs);
	a = un_insn("mov", 0, 1ull << RAX, 8, 0x10000 - 4, 8, 1);
	unit_check(!det_un_check(&st, &a) && st.un_vb[RAX] == 0xf0 && st.un_every && st.un_switches == 1,
	      "uninit: a load across the page edge, its upper half undefined", "rax %x every %d",
	      st.un_vb[RAX], st.un_every);
	unit_check(st.un_vo[RAX] == 0x10000, "uninit: the origin is the first undefined byte", "%llx",
	      (unsigned long long)st.un_vo[RAX]);
	a = un_insn("mov", 1ull << RAX, 1ull << RAX, 4, 0, 0, 0);   /* mov %eax,%eax */
	unit_check(!det_un_check(&st, &a) && !st.un_regs && !st.un_every,
	      "uninit: a 4-byte move zeroes the upper half: off again", "rax %x", st.un_vb[RAX]);
	a = un_insn("mov", 0, 1ull << RAX, 8, 0x10000 - 4, 8, 1);
	det_un_check(&st, &a);
	a = un_insn("and", (1ull << RAX) | (1ull << RDX), (1ull << RAX) | (1ull << FLAGS), 8, 0, 0, 0);
	unit_check(!det_un_check(&st, &a) && !st.un_vb[RAX] && !st.un_vb[FLAGS] && !st.un_every,
	      "uninit: and with a defined zero half defines it", "rax %x flags %x", st.un_vb[RAX],
	      st.un_vb[FLAGS]);
	a = un_insn("cmp", 0, 1ull << FLAGS, 4, 0x10000, 4, 1);
	unit_check(!det_un_check(&st, &a) && st.un_vb[FLAGS] && st.un_every,
	      "uninit: a compare with undefined memory: undefined flags", "flags %x", st.un_vb[FLAGS]);
	a = un_insn("jnz", 1ull << FLAGS, 0, 8, 0, 0, 0);
	a.kind = SLICE_VIEW_JCC;
	unit_check(det_un_check(&st, &a) && st.un_use && !strcmp(st.un_use, "a conditional branch"),
	      "uninit: the branch on them decides", "%s", st.un_use ? st.un_use : "(none)");
	det_undef_reset(&st.un);
}

int main(void)
{
	test_good();
	test_bad();
	test_nul();
	test_limits();
	test_garbage();
	test_libwrite();
	test_no_when();
	test_shipped();
	test_uninit();
	return 0;
}
