/* sys: system-call memory effects, one row per write a call can make.
 * How a row finds its bytes: RET (argument a, the result's byte count),
 * FIXED (argument a, size bytes, when the call succeeded and a is not
 * NULL), RET_ELEMS (argument a, result * size bytes), or a function for
 * the calls whose buffers are described in memory or by a value-result
 * length. A call with no row at all is unknown: slice's rec.c reports it in
 * `info record`. Sizes are the kernel's x86-64 structures. */
#define _GNU_SOURCE
#include "sys.h"

#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum sys_how { SYS_NONE, SYS_RET, SYS_FIXED, SYS_RET_ELEMS, SYS_FN };

struct sys_ctx {
	const struct user_regs_struct *a;
	long ret;
	sys_peek_fn peek;
	void *pctx;
	struct sys_writes *out;
	bool ok;
};

struct sys_rule {
	short nr;
	uint8_t how, arg;          /* arg: 1..6 (rdi rsi rdx r10 r8 r9) */
	uint16_t size;
	void (*fn)(struct sys_ctx *c, const struct sys_rule *r);
};

static uint64_t sys_arg(const struct user_regs_struct *a, int n)
{
	switch (n) {
	case 1: return a->rdi;
	case 2: return a->rsi;
	case 3: return a->rdx;
	case 4: return a->r10;
	case 5: return a->r8;
	case 6: return a->r9;
	default: return 0;
	}
}

static void sys_add(struct sys_ctx *c, uint64_t addr, uint64_t len)
{
	if (!addr || !len)
		return;
	struct sys_writes *o = c->out;
	if (o->n == SYS_MAX_WRITES) {
		c->ok = false;   /* more pieces than we keep: say unknown */
		return;
	}
	o->v[o->n].addr = addr;
	o->v[o->n].len = len;
	o->n++;
}

static bool sys_peek_u64(struct sys_ctx *c, uint64_t addr, uint64_t *v)
{
	*v = 0;
	return addr && c->peek && c->peek(c->pctx, addr, v, sizeof *v);
}

static bool sys_peek_u32(struct sys_ctx *c, uint64_t addr, uint32_t *v)
{
	*v = 0;
	return addr && c->peek && c->peek(c->pctx, addr, v, sizeof *v);
}

/* len bytes spread over the iovec array at iov (cnt entries), in order. */
static void sys_iovecs(struct sys_ctx *c, uint64_t iov, uint64_t cnt, uint64_t len)
{
	for (uint64_t i = 0; i < cnt && len; i++) {
		uint64_t base, size;
		if (!sys_peek_u64(c, iov + 16 * i, &base) || !sys_peek_u64(c, iov + 16 * i + 8, &size)) {
			c->ok = false;
			return;
		}
		uint64_t n = size < len ? size : len;
		sys_add(c, base, n);
		len -= n;
	}
}

/* readv preadv preadv2: the result's bytes into the iovecs. */
static void sys_readv(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	if (c->ret > 0)
		sys_iovecs(c, c->a->rsi, c->a->rdx, (uint64_t)c->ret);
}

/* A value-result address: the kernel writes the length (4 bytes at lenp)
 * and at most that many bytes of the address (the new length, capped at
 * sockaddr_storage's 128). */
static void sys_sockaddr(struct sys_ctx *c, uint64_t addr, uint64_t lenp)
{
	uint32_t n;
	if (!addr || !lenp)
		return;
	if (!sys_peek_u32(c, lenp, &n)) {
		c->ok = false;
		return;
	}
	sys_add(c, lenp, 4);
	sys_add(c, addr, n < 128 ? n : 128);
}

/* recvmsg: the data into msg_iov, the sender's address, the control
 * data and the lengths and flags the kernel sets in the msghdr. */
static void sys_recvmsg(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	uint64_t m = c->a->rsi, name, iov, iovlen, ctl, ctllen;
	if (c->ret < 0)
		return;
	if (!sys_peek_u64(c, m, &name) || !sys_peek_u64(c, m + 16, &iov) ||
	    !sys_peek_u64(c, m + 24, &iovlen) || !sys_peek_u64(c, m + 32, &ctl) ||
	    !sys_peek_u64(c, m + 40, &ctllen)) {
		c->ok = false;
		return;
	}
	sys_iovecs(c, iov, iovlen, (uint64_t)c->ret);
	sys_sockaddr(c, name, m + 8);
	sys_add(c, ctl, ctllen);
	sys_add(c, m + 40, 8);
	sys_add(c, m + 48, 4);
}

/* recvfrom accept accept4 getsockname getpeername: (addr, lenp) are the
 * arguments after the row's arg. */
static void sys_addr_args(struct sys_ctx *c, const struct sys_rule *r)
{
	if (c->ret >= 0)
		sys_sockaddr(c, sys_arg(c->a, r->arg), sys_arg(c->a, r->arg + 1));
}

/* poll ppoll: only each pollfd's revents (fd and events stay). */
static void sys_poll(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	uint64_t fds = c->a->rdi, n = c->a->rsi;
	if (c->ret < 0)
		return;
	if (n > SYS_MAX_WRITES) {
		c->ok = false;
		return;
	}
	for (uint64_t i = 0; i < n; i++)
		sys_add(c, fds + 8 * i + 6, 2);
}

/* select pselect6: the three fd sets, nfds bits each. */
static void sys_select(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	uint64_t bytes = (c->a->rdi + 63) / 64 * 8;
	if (c->ret < 0)
		return;
	sys_add(c, c->a->rsi, bytes);
	sys_add(c, c->a->rdx, bytes);
	sys_add(c, c->a->r10, bytes);
}

/* ioctl: the requests whose results are common; others are unknown. */
static void sys_ioctl(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	uint64_t len;
	switch (c->a->rsi & 0xffffffff) {
	case 0x5401: len = 36; break;   /* TCGETS: the kernel's termios */
	case 0x5413: len = 8; break;    /* TIOCGWINSZ */
	case 0x541b: len = 4; break;    /* FIONREAD */
	case 0x540f: len = 4; break;    /* TIOCGPGRP */
	case 0x5402: case 0x5403: case 0x5404: case 0x5414: case 0x5410: case 0x5421:
		return;                     /* TCSETS* TIOCSWINSZ TIOCSPGRP FIONBIO */
	default:
		c->ok = false;
		return;
	}
	if (c->ret >= 0)
		sys_add(c, c->a->rdx, len);
}

/* mmap: a file mapping's bytes come from the file, defined here when the
 * mapping is small enough to be data the program reads (1 MiB); larger
 * ones (libraries) and anonymous memory (fresh zeros) define nothing:
 * their bytes stay live back to the recording's start. */
static void sys_mmap(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	const uint64_t anon = 0x20;   /* MAP_ANONYMOUS */
	if (c->ret < 0 && c->ret > -4096)
		return;
	if (!(c->a->r10 & anon) && (int)c->a->r8 >= 0 && c->a->rsi <= (1u << 20))
		sys_add(c, (uint64_t)c->ret, c->a->rsi);
}

/* nanosleep clock_nanosleep: the time left, when a signal interrupted. */
static void sys_rem(struct sys_ctx *c, const struct sys_rule *r)
{
	if (c->ret == -4)   /* -EINTR */
		sys_add(c, sys_arg(c->a, r->arg), 16);
}

/* clone: the child's thread id into the parent's *ptid
 * (CLONE_PARENT_SETTID, as pthread_create asks); the child's own writes
 * happen in the child. */
static void sys_clone(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	if (c->ret > 0 && (c->a->rdi & 0x00100000))
		sys_add(c, c->a->rdx, 4);
}

/* fcntl: F_GETLK and F_OFD_GETLK fill in a struct flock. */
static void sys_fcntl(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	if (c->ret >= 0 && (c->a->rsi == 5 || c->a->rsi == 36))
		sys_add(c, c->a->rdx, 32);
}

/* arch_prctl: ARCH_GET_FS / ARCH_GET_GS store the base. */
static void sys_arch_prctl(struct sys_ctx *c, const struct sys_rule *r)
{
	(void)r;
	if (c->ret >= 0 && (c->a->rdi == 0x1003 || c->a->rdi == 0x1004))
		sys_add(c, c->a->rsi, 8);
}

#define NONE(nr) { nr, SYS_NONE, 0, 0, NULL }
#define RET(nr, a) { nr, SYS_RET, a, 0, NULL }
#define FIXED(nr, a, size) { nr, SYS_FIXED, a, size, NULL }
#define ELEMS(nr, a, size) { nr, SYS_RET_ELEMS, a, size, NULL }
#define FN(nr, a, fn) { nr, SYS_FN, a, 0, fn }

static const struct sys_rule sys_rules[] = {
	RET(0, 2), RET(17, 2), RET(217, 2), RET(78, 2),      /* read pread64 getdents64 getdents */
	RET(89, 2), RET(267, 3), RET(318, 1), RET(79, 1),    /* readlink readlinkat getrandom getcwd */
	RET(204, 3),                                         /* sched_getaffinity */
	RET(191, 3), RET(192, 3), RET(193, 3),               /* getxattr lgetxattr fgetxattr */
	RET(194, 2), RET(195, 2), RET(196, 2),               /* listxattr llistxattr flistxattr */
	FN(19, 0, sys_readv), FN(295, 0, sys_readv), FN(327, 0, sys_readv),
	RET(45, 2), FN(45, 5, sys_addr_args),                /* recvfrom */
	FN(47, 0, sys_recvmsg),
	FN(43, 2, sys_addr_args), FN(288, 2, sys_addr_args), /* accept accept4 */
	FN(51, 2, sys_addr_args), FN(52, 2, sys_addr_args),  /* getsockname getpeername */
	FIXED(4, 2, 144), FIXED(5, 2, 144), FIXED(6, 2, 144), /* stat fstat lstat */
	FIXED(262, 3, 144), FIXED(332, 5, 256),              /* newfstatat statx */
	FIXED(137, 2, 120), FIXED(138, 2, 120),              /* statfs fstatfs */
	FIXED(228, 2, 16), FIXED(229, 2, 16),                /* clock_gettime clock_getres */
	FIXED(96, 1, 16), FIXED(96, 2, 8), FIXED(201, 1, 8), /* gettimeofday time */
	FIXED(63, 1, 390), FIXED(99, 1, 112),                /* uname sysinfo */
	FIXED(22, 1, 8), FIXED(293, 1, 8), FIXED(53, 4, 8),  /* pipe pipe2 socketpair */
	FIXED(61, 2, 4), FIXED(61, 4, 144),                  /* wait4: status, rusage */
	FIXED(247, 3, 128), FIXED(247, 5, 144),              /* waitid: siginfo, rusage */
	FIXED(98, 2, 144), FIXED(100, 1, 32),                /* getrusage times */
	FIXED(302, 4, 16), FIXED(97, 2, 16),                 /* prlimit64 getrlimit */
	FIXED(13, 3, 32), FIXED(14, 3, 8), FIXED(131, 2, 24), /* rt_sigaction rt_sigprocmask sigaltstack */
	FIXED(127, 1, 8),                                    /* rt_sigpending */
	FIXED(118, 1, 4), FIXED(118, 2, 4), FIXED(118, 3, 4), /* getresuid */
	FIXED(120, 1, 4), FIXED(120, 2, 4), FIXED(120, 3, 4), /* getresgid */
	ELEMS(115, 2, 4),                                    /* getgroups */
	FIXED(36, 2, 32), FIXED(38, 3, 32),                  /* getitimer setitimer (old) */
	FN(55, 4, sys_addr_args),                            /* getsockopt: optval, optlen */
	ELEMS(232, 2, 12), ELEMS(281, 2, 12),                /* epoll_wait epoll_pwait */
	FN(7, 0, sys_poll), FN(271, 0, sys_poll),            /* poll ppoll */
	FN(23, 0, sys_select), FN(270, 0, sys_select),       /* select pselect6 */
	FIXED(23, 5, 16), FIXED(270, 5, 16),                 /* their timeouts (time left) */
	FN(16, 0, sys_ioctl), FN(9, 0, sys_mmap),
	FN(35, 2, sys_rem), FN(230, 4, sys_rem),             /* nanosleep clock_nanosleep */
	FN(56, 0, sys_clone), FN(72, 0, sys_fcntl), FN(158, 0, sys_arch_prctl),
	NONE(102), NONE(107), NONE(104), NONE(108),          /* getuid geteuid getgid getegid */
	NONE(1), NONE(2), NONE(3), NONE(8), NONE(10), NONE(11), NONE(12), NONE(15),
	NONE(18), NONE(20), NONE(21), NONE(24), NONE(25), NONE(28), NONE(32), NONE(33),
	NONE(34), NONE(39), NONE(41), NONE(42), NONE(44), NONE(46), NONE(48),
	NONE(49), NONE(50), NONE(54), NONE(57), NONE(60), NONE(62),
	NONE(73), NONE(74), NONE(75), NONE(76), NONE(77), NONE(80), NONE(81), NONE(82),
	NONE(83), NONE(84), NONE(85), NONE(86), NONE(87), NONE(88), NONE(90), NONE(91),
	NONE(92), NONE(93), NONE(94), NONE(95), NONE(105), NONE(106),
	NONE(109), NONE(110), NONE(111), NONE(112), NONE(121), NONE(124),
	NONE(186), NONE(200), NONE(202), NONE(213), NONE(218), NONE(231), NONE(233),
	NONE(234), NONE(257), NONE(258), NONE(263), NONE(264), NONE(266), NONE(268),
	NONE(273), NONE(285), NONE(290), NONE(291), NONE(292), NONE(316), NONE(334),
	NONE(435), NONE(439),
};

static void sys_apply(struct sys_ctx *c, const struct sys_rule *r)
{
	uint64_t a = sys_arg(c->a, r->arg);
	switch (r->how) {
	case SYS_RET:
		if (c->ret > 0)
			sys_add(c, a, (uint64_t)c->ret);
		break;
	case SYS_FIXED:
		if (c->ret >= 0)
			sys_add(c, a, r->size);
		break;
	case SYS_RET_ELEMS:
		if (c->ret > 0)
			sys_add(c, a, (uint64_t)c->ret * r->size);
		break;
	case SYS_FN:
		r->fn(c, r);
		break;
	default:
		break;
	}
}

bool sys_writes(const struct user_regs_struct *a, long ret, sys_peek_fn peek, void *ctx,
		struct sys_writes *out)
{
	struct sys_ctx c = { a, ret, peek, ctx, out, true };
	bool known = false;
	out->n = 0;
	for (size_t i = 0; i < sizeof sys_rules / sizeof *sys_rules; i++)
		if (sys_rules[i].nr == (long)a->rax) {
			known = true;
			sys_apply(&c, &sys_rules[i]);
		}
	if (!known || !c.ok)
		out->n = 0;
	return known && c.ok;
}

const char *sys_name(long nr, char *buf, size_t size)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)nr);
	if (name)
		snprintf(buf, size, "%s", name);
	else
		snprintf(buf, size, "%ld", nr);
	free(name);
	return buf;
}
