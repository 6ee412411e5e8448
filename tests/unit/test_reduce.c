/* test_reduce: the ddmin engine (reduce/dd.c) on the examples of the
 * delta debugging slides and of Zeller and Hildebrandt's paper they come
 * from: outcomes, test-run counts, the slides' best and worst cases,
 * caching, and that the batch size (parallel runs) changes nothing. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "reduce/dd.h"
#include "reduce/split.h"

/* A test oracle over a string: the configuration picks characters. */
struct oracle {
	const char *text;
	int (*judge)(const char *s);
	size_t evaluated;         /* configurations handed to the oracle */
	uint64_t seen[4096];      /* their hashes: none twice */
	size_t nseen;
	bool dup;
};

static uint64_t cfg_hash(const struct dd_cfg *c)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < c->n; i++)
		h = (h ^ c->ids[i]) * 1099511628211ull;
	return h ^ c->n;
}

static int oracle_test(void *arg, const struct dd_cfg *cfgs, size_t n, int *out)
{
	struct oracle *o = arg;
	for (size_t k = 0; k < n; k++) {
		char buf[256];
		size_t len = 0;
		for (size_t i = 0; i < cfgs[k].n && len < sizeof buf - 1; i++)
			buf[len++] = o->text[cfgs[k].ids[i]];
		buf[len] = 0;
		out[k] = o->judge(buf);
		uint64_t h = cfg_hash(&cfgs[k]);
		for (size_t j = 0; j < o->nseen; j++)
			o->dup |= o->seen[j] == h;
		if (o->nseen < 4096)
			o->seen[o->nseen++] = h;
		o->evaluated++;
	}
	return 0;
}

static bool linear_tail;   /* minimise's ddmin goes on at single units */
static bool sweep;         /* and after a removal at every granularity */

/* Run ddmin on the whole of text; the result as a string. */
static char *minimise(struct oracle *o, size_t batch, bool complements, size_t *runs)
{
	size_t len = strlen(o->text), nout;
	uint32_t *ids = xmalloc(len * sizeof *ids), *res;
	for (size_t i = 0; i < len; i++)
		ids[i] = (uint32_t)i;
	struct dd d = { .test = oracle_test, .arg = o, .batch = batch,
			.complements_only = complements, .linear_tail = linear_tail,
			.sweep = sweep };
	dd_known(&d, ids, len, DD_FAIL);
	dd_min(&d, ids, len, &res, &nout);
	char *s = xmalloc(nout + 1);
	for (size_t i = 0; i < nout; i++)
		s[i] = o->text[res[i]];
	s[nout] = 0;
	*runs = d.runs;
	free(ids);
	free(res);
	dd_free(&d);
	return s;
}

/* Mozilla crashes when printing a <SELECT> tag (the slides' Mozilla bug;
 * the paper's figure 3 minimises its 40-character line). */
static int judge_select(const char *s)
{
	const char *p = strstr(s, "<SELECT");
	return p && strchr(p, '>') ? DD_FAIL : DD_PASS;
}

/* The paper's didactic example: eight changes, the failure needs 1, 7
 * and 8 together. */
static int judge_178(const char *s)
{
	return strchr(s, '1') && strchr(s, '7') && strchr(s, '8') ? DD_FAIL : DD_PASS;
}

static int judge_one(const char *s)
{
	return strchr(s, 'X') ? DD_FAIL : DD_PASS;
}

/* Worst case: every test unresolved but for the whole input. */
static const char *worst_text;
static int judge_worst(const char *s)
{
	return strcmp(s, worst_text) == 0 ? DD_FAIL : DD_UNRESOLVED;
}

/* 1-minimal: removing any single character passes. */
static bool one_minimal(int (*judge)(const char *), const char *s)
{
	size_t n = strlen(s);
	for (size_t i = 0; i < n; i++) {
		char buf[256];
		memcpy(buf, s, i);
		strcpy(buf + i, s + i + 1);
		if (judge(buf) == DD_FAIL)
			return false;
	}
	return judge(s) == DD_FAIL;
}

static void test_select(void)
{
	struct oracle o = { .text = "<SELECT NAME=\"priority\" MULTIPLE SIZE=7>",
			    .judge = judge_select };
	size_t runs, runs7;
	char *r = minimise(&o, 1, false, &runs);
	unit_check(strcmp(r, "<SELECT>") == 0, "ddmin_select_result", "got \"%s\"", r);
	unit_check(one_minimal(judge_select, r), "ddmin_select_1minimal", "\"%s\"", r);
	/* The paper's figure counts 48 with Mozilla's unresolved outcomes
	 * (malformed HTML); with pass/fail only the same algorithm needs 73:
	 * a regression value, its trace checked by hand like the one below. */
	unit_check(runs == 73, "ddmin_select_runs", "73 test runs expected, got %zu", runs);
	unit_check(!o.dup && o.evaluated == runs, "ddmin_select_cache",
	      "%zu evaluated for %zu runs, dup %d", o.evaluated, runs, o.dup);
	struct oracle o7 = o;
	o7.nseen = o7.evaluated = 0;
	char *r7 = minimise(&o7, 7, false, &runs7);
	unit_check(strcmp(r7, r) == 0 && runs7 == runs && o7.evaluated >= runs7,
	      "ddmin_select_parallel", "batch 7: \"%s\" in %zu runs (%zu evaluated)",
	      r7, runs7, o7.evaluated);
	free(r);
	free(r7);
}

static void test_178(void)
{
	struct oracle o = { .text = "12345678", .judge = judge_178 };
	size_t runs;
	char *r = minimise(&o, 1, false, &runs);
	unit_check(strcmp(r, "178") == 0, "ddmin_178_result", "got \"%s\"", r);
	/* By hand: n=2 1234 5678; n=4 12 34 56 78, complements 345678
	 * 125678(fail); n=3: all cached, 1278(fail); n=2 cached; n=4 1 2 7 8,
	 * 278 178(fail); n=3: 18 17 (78 cached): 17 runs. */
	unit_check(runs == 17, "ddmin_178_runs", "17 test runs expected, got %zu", runs);
	free(r);
}

static void test_bounds(void)
{
	/* best case: one failing unit among k = 64 costs at most 2 log2 k */
	char text[65];
	memset(text, 'a', 64);
	text[64] = 0;
	text[37] = 'X';
	struct oracle o = { .text = text, .judge = judge_one };
	size_t runs;
	char *r = minimise(&o, 1, false, &runs);
	unit_check(strcmp(r, "X") == 0 && runs <= 12, "ddmin_best_case",
	      "\"%s\" in %zu runs (2 log2 64 = 12)", r, runs);
	free(r);
	/* worst case: k^2 + 3k at most */
	worst_text = "abcdefghijklmnop";
	struct oracle w = { .text = worst_text, .judge = judge_worst };
	r = minimise(&w, 1, false, &runs);
	size_t k = strlen(worst_text);
	unit_check(strcmp(r, worst_text) == 0 && runs <= k * k + 3 * k, "ddmin_worst_case",
	      "\"%s\" in %zu runs (bound %zu)", r, runs, k * k + 3 * k);
	free(r);
}

static void test_complements(void)
{
	/* IDTHDD's levels test complements only: still 1-minimal */
	struct oracle o = { .text = "<SELECT NAME=\"priority\" MULTIPLE SIZE=7>",
			    .judge = judge_select };
	size_t runs;
	char *r = minimise(&o, 3, true, &runs);
	unit_check(strcmp(r, "<SELECT>") == 0 && one_minimal(judge_select, r),
	      "ddmin_complements_only", "got \"%s\" in %zu runs", r, runs);
	free(r);
}

/* Fails while at least n c's are left. */
static int judge_count(const char *s, char c, int n)
{
	for (; *s; s++)
		n -= *s == c;
	return n <= 0 ? DD_FAIL : DD_PASS;
}

/* Fails when at least 12 'a's are left. */
static int judge_twelve(const char *s)
{
	return judge_count(s, 'a', 12);
}

static void test_linear_tail(void)
{
	/* a's and b's mixed: the last stage removes units one by one, which
	 * ddmin pays a pass of the input each for (here 156 runs, 109 with
	 * the linear tail) */
	const char *text = "abbabaabbbabababbaabbababaabbbaababbabbaaabababbbabaabab";
	struct oracle o = { .text = text, .judge = judge_twelve };
	size_t runs, runs_lin, runs_lin3;
	char *r = minimise(&o, 1, false, &runs);
	linear_tail = true;
	struct oracle l = { .text = text, .judge = judge_twelve }, l3 = l;
	char *rl = minimise(&l, 1, false, &runs_lin);
	char *rl3 = minimise(&l3, 3, false, &runs_lin3);
	linear_tail = false;
	unit_check(strcmp(rl, "aaaaaaaaaaaa") == 0 && strcmp(r, rl) == 0 && one_minimal(judge_twelve, rl),
	      "ddmin_linear_tail_result", "ddmin \"%s\", linear tail \"%s\"", r, rl);
	unit_check(runs_lin < runs && !l.dup, "ddmin_linear_tail_fewer",
	      "linear tail %zu runs, ddmin %zu", runs_lin, runs);
	unit_check(strcmp(rl3, rl) == 0 && runs_lin3 == runs_lin, "ddmin_linear_tail_parallel",
	      "batch 3: \"%s\" in %zu runs", rl3, runs_lin3);
	free(r);
	free(rl);
	free(rl3);
}

/* Fails while the three x's are left. */
static int judge_three_x(const char *s)
{
	return judge_count(s, 'x', 3);
}

static void test_sweep(void)
{
	/* most units go (as a guided search's tokens of a long program):
	 * ddmin starts each granularity over after a removal, the sweep goes
	 * on from the chunk after it; the same 1-minimal result */
	struct sbuf b = {0};
	for (int i = 0; i < 300; i++)
		sbuf_addc(&b, i == 41 || i == 150 || i == 263 ? 'x' : "abcdefg"[i % 7]);
	const char *text = b.s;
	size_t runs_lin, runs_sw, runs_sw3;
	linear_tail = true;
	struct oracle l = { .text = text, .judge = judge_three_x }, w = l, w3 = l;
	char *rl = minimise(&l, 1, true, &runs_lin);
	sweep = true;
	char *rw = minimise(&w, 1, true, &runs_sw);
	char *rw3 = minimise(&w3, 3, true, &runs_sw3);
	sweep = linear_tail = false;
	unit_check(strcmp(rw, "xxx") == 0 && strcmp(rl, rw) == 0 && one_minimal(judge_three_x, rw),
	      "ddmin_sweep_result", "linear tail \"%s\", sweep \"%s\"", rl, rw);
	unit_check(runs_sw < runs_lin && !w.dup, "ddmin_sweep_fewer",
	      "sweep %zu runs, linear tail %zu", runs_sw, runs_lin);
	unit_check(strcmp(rw3, rw) == 0 && runs_sw3 == runs_sw && !w3.dup, "ddmin_sweep_parallel",
	      "batch 3: \"%s\" in %zu runs", rw3, runs_sw3);
	printf("# sweep %zu runs, linear tail %zu\n", runs_sw, runs_lin);
	free(rl);
	free(rw);
	free(rw3);
	sbuf_free(&b);
}

/* The units of text by a granularity, joined with '|'. */
static char *units_of(const char *text, int by)
{
	size_t n;
	struct split_unit *u = split_units(text, strlen(text), by, &n);
	struct sbuf b = {0};
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_addc(&b, '|');
		sbuf_addn(&b, text + u[i].off, u[i].len);
	}
	free(u);
	return b.s ? sbuf_take(&b) : xstrdup("");
}

static void test_split(void)
{
	char *t = units_of("a=12;\n b{ x }\nlast", SPLIT_LINES);
	unit_check(strcmp(t, "a=12;\n| b{ x }\n|last") == 0, "split_lines", "got \"%s\"", t);
	free(t);
	t = units_of("84 / 0\nfoo_bar+=0x1f;", SPLIT_TOKENS);
	unit_check(strcmp(t, "84| |/| |0|\n|foo_bar|+|=|0x1f|;") == 0, "split_tokens", "got \"%s\"", t);
	free(t);
	t = units_of("ab", SPLIT_BYTES);
	unit_check(strcmp(t, "a|b") == 0, "split_bytes", "got \"%s\"", t);
	free(t);
	int by = -1;
	unit_check(split_parse("tok", &by) == 0 && by == SPLIT_TOKENS && split_parse("words", &by) < 0 &&
	      split_parse("", &by) < 0, "split_parse", "by %d", by);
	/* joining units back in order */
	const char *text = "84 / 0\n";
	size_t n;
	struct split_unit *u = split_units(text, strlen(text), SPLIT_TOKENS, &n);
	uint32_t ids[] = { 0, 2, 4 };
	struct sbuf b = {0};
	split_join(text, u, ids, 3, &b);
	unit_check(b.s && strcmp(b.s, "84/0") == 0, "split_join", "got \"%s\"", b.s ? b.s : "");
	sbuf_free(&b);
	free(u);
}

int main(void)
{
	test_split();
	test_select();
	test_178();
	test_linear_tail();
	test_sweep();
	test_bounds();
	test_complements();
	return 0;
}
