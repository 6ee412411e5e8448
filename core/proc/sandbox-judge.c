/* sandbox-judge: the tracer's verdict at a seccomp stop of a sandboxed
 * program. The filter only stops calls worth a look; here the arguments
 * decide (a signal to itself, a write-open inside the scratch directory go
 * on), and a denied call is skipped with EPERM and reported in words:
 * `[sandbox: denied execve("/bin/sh")]`. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Up to len-1 bytes of the program's memory at addr (a string or struct);
 * the count read, 0 if none. */
static size_t sbj_peek(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/mem", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : pread(fd, buf, len - 1, (off_t)addr);
	if (fd >= 0)
		close(fd);
	n = n < 0 ? 0 : n;
	((char *)buf)[n] = 0;
	return (size_t)n;
}

/* A string of the program, quoted, control bytes shown as \ooo (it goes to
 * the user's terminal). */
static void sbj_quote(struct sbuf *b, pid_t pid, uint64_t addr)
{
	char s[PATH_MAX + 1];
	if (!sbj_peek(pid, addr, s, sizeof s) && !addr) {
		sbuf_add(b, "NULL");
		return;
	}
	sbuf_addc(b, '"');
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		if (*c < 0x20 || *c >= 0x7f || *c == '"' || *c == '\\')
			sbuf_printf(b, "\\%03o", *c);
		else
			sbuf_addc(b, (char)*c);
	}
	sbuf_addc(b, '"');
}

static bool sbj_under(const char *path, const char *root)
{
	size_t n = strlen(root);
	return !strncmp(path, root, n) && (path[n] == 0 || path[n] == '/');
}

/* The path the program named, made absolute from its cwd or dirfd. */
static bool sbj_absolute(pid_t pid, int dirfd, const char *path, char *out, size_t len)
{
	char link[64], base[PATH_MAX];
	if (path[0] == '/')
		return (size_t)snprintf(out, len, "%s", path) < len;
	if (dirfd == AT_FDCWD)
		snprintf(link, sizeof link, "/proc/%d/cwd", pid);
	else
		snprintf(link, sizeof link, "/proc/%d/fd/%d", pid, dirfd);
	ssize_t n = readlink(link, base, sizeof base - 1);
	if (n <= 0)
		return false;
	base[n] = 0;
	return (size_t)snprintf(out, len, "%s/%s", base, path) < len;
}

/* Is a write-open of path clearly outside the scratch directory? Only then
 * is it failed here (EPERM, reported); anything unclear (/proc, /dev, a
 * directory that does not exist) is left to Landlock, which enforces. */
static bool sbj_write_outside(const struct sandbox *sb, pid_t pid, int dirfd, const char *path)
{
	char abs[2 * PATH_MAX], real[PATH_MAX];
	if (!*path || !sbj_absolute(pid, dirfd, path, abs, sizeof abs))
		return false;
	if (sbj_under(abs, "/proc") || sbj_under(abs, "/dev"))
		return false;
	if (!realpath(abs, real)) {   /* a new file: its directory decides */
		char *slash = strrchr(abs, '/');
		*slash = 0;
		if (!realpath(*abs ? abs : "/", real))
			return false;
	}
	return !sbj_under(real, sb->scratch);
}

static bool sbj_open(const struct sandbox *sb, pid_t pid, int dirfd, uint64_t addr,
		     const char *name, struct sbuf *what)
{
	char path[PATH_MAX + 1];
	sbj_peek(pid, addr, path, sizeof path);
	if (!sbj_write_outside(sb, pid, dirfd, path))
		return true;
	sbuf_printf(what, "%s(", name);
	sbj_quote(what, pid, addr);
	sbuf_add(what, ") for writing");
	return false;
}

/* openat2's struct open_how starts with the flags. */
static bool sbj_writes(pid_t pid, uint64_t how)
{
	uint64_t flags = 0;
	char buf[sizeof flags + 1];
	if (sbj_peek(pid, how, buf, sizeof buf) < sizeof flags)
		return true;
	memcpy(&flags, buf, sizeof flags);
	return flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC);
}

static const char *sbj_signame(int sig)
{
	static char buf[32];
	const char *a = sigabbrev_np(sig);
	if (a)
		snprintf(buf, sizeof buf, "SIG%s", a);
	else
		snprintf(buf, sizeof buf, "%d", sig);
	return buf;
}

/* kill-like calls: to itself (pid, or a thread of its own for tkill) they
 * run; the pid is a C int, whatever the register's upper half holds. */
static bool sbj_signal(pid_t pid, long nr, const struct user_regs_struct *r, struct sbuf *what)
{
	pid_t to = (pid_t)r->rdi;
	char task[64];
	snprintf(task, sizeof task, "/proc/%d/task/%d", pid, to);
	if (nr == SYS_tkill ? to > 0 && access(task, F_OK) == 0 : to == pid)
		return true;
	int sig = (int)(nr == SYS_tgkill || nr == SYS_rt_tgsigqueueinfo ? r->rdx : r->rsi);
	const char *name = nr == SYS_kill ? "kill" : nr == SYS_tkill ? "tkill" :
			   nr == SYS_tgkill ? "tgkill" : nr == SYS_rt_sigqueueinfo ?
			   "rt_sigqueueinfo" : "rt_tgsigqueueinfo";
	sbuf_printf(what, "%s(pid %d, %s)", name, to, sbj_signame(sig));
	return false;
}

static void sbj_connect(pid_t pid, const struct user_regs_struct *r, struct sbuf *what)
{
	struct sockaddr_in6 sa = {0};
	char buf[sizeof sa + 1], host[INET6_ADDRSTRLEN];
	size_t n = sbj_peek(pid, r->rsi, buf, sizeof buf);
	memcpy(&sa, buf, n < sizeof sa ? n : sizeof sa);
	struct sockaddr_in *in = (struct sockaddr_in *)&sa;
	if (sa.sin6_family == AF_INET && inet_ntop(AF_INET, &in->sin_addr, host, sizeof host))
		sbuf_printf(what, "connect(%s:%d)", host, ntohs(in->sin_port));
	else if (sa.sin6_family == AF_INET6 && inet_ntop(AF_INET6, &sa.sin6_addr, host, sizeof host))
		sbuf_printf(what, "connect([%s]:%d)", host, ntohs(sa.sin6_port));
	else
		sbuf_printf(what, "connect(fd %d, family %d)", (int)r->rdi, sa.sin6_family);
}

static void sbj_socket(const struct user_regs_struct *r, struct sbuf *what)
{
	int fam = (int)r->rdi;
	const char *name = fam == AF_UNIX ? "AF_UNIX" : fam == AF_INET ? "AF_INET" :
			   fam == AF_INET6 ? "AF_INET6" : fam == AF_NETLINK ? "AF_NETLINK" : NULL;
	if (name)
		sbuf_printf(what, "socket(%s)", name);
	else
		sbuf_printf(what, "socket(family %d)", fam);
}

static void sbj_ptrace(const struct user_regs_struct *r, struct sbuf *what)
{
	long req = (long)r->rdi;
	const char *name = req == PTRACE_TRACEME ? "PTRACE_TRACEME" :
			   req == PTRACE_ATTACH ? "PTRACE_ATTACH" :
			   req == PTRACE_SEIZE ? "PTRACE_SEIZE" : NULL;
	if (req == PTRACE_TRACEME)
		sbuf_printf(what, "ptrace(%s)", name);
	else if (name)
		sbuf_printf(what, "ptrace(%s, pid %d)", name, (int)r->rsi);
	else
		sbuf_printf(what, "ptrace(%ld, pid %d)", req, (int)r->rsi);
}

static void sbj_other(long nr, struct sbuf *what)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, (int)nr);
	sbuf_printf(what, "%s()", name ? name : "syscall");
	free(name);
}

/* true: let the call run; false: what names the denied call. */
static bool sbj_decide(const struct sandbox *sb, pid_t pid, const struct user_regs_struct *r,
		       struct sbuf *what)
{
	long nr = (long)r->orig_rax;
	switch (nr) {
	case SYS_kill: case SYS_tkill: case SYS_tgkill:
	case SYS_rt_sigqueueinfo: case SYS_rt_tgsigqueueinfo:
		return sbj_signal(pid, nr, r, what);
	case SYS_open: case SYS_creat:
		return sbj_open(sb, pid, AT_FDCWD, r->rdi, nr == SYS_open ? "open" : "creat", what);
	case SYS_openat:
		return sbj_open(sb, pid, (int)r->rdi, r->rsi, "open", what);
	case SYS_openat2:   /* the filter cannot see its flags: read them here */
		return !sbj_writes(pid, r->rdx) ||
		       sbj_open(sb, pid, (int)r->rdi, r->rsi, "open", what);
	case SYS_execve:
		sbuf_add(what, "execve(");
		sbj_quote(what, pid, r->rdi);
		sbuf_addc(what, ')');
		return false;
	case SYS_execveat:
		sbuf_add(what, "execveat(");
		sbj_quote(what, pid, r->rsi);
		sbuf_addc(what, ')');
		return false;
	case SYS_connect:
		sbj_connect(pid, r, what);
		return false;
	case SYS_socket:
		sbj_socket(r, what);
		return false;
	case SYS_ptrace:
		sbj_ptrace(r, what);
		return false;
	}
	sbj_other(nr, what);
	return false;
}

bool sandbox_judge(const struct sandbox *sb, pid_t pid, struct user_regs_struct *r)
{
	struct sbuf what = {0};
	if (sbj_decide(sb, pid, r, &what)) {
		sbuf_free(&what);
		return true;
	}
	r->orig_rax = (unsigned long long)-1;   /* skip the call ... */
	r->rax = (unsigned long long)-EPERM;    /* ... which returns EPERM */
	if (sb->report) {
		struct sbuf line = {0};
		sbuf_printf(&line, "[sandbox: denied %s]", what.s);
		sb->report(sb->ctx, line.s);
		sbuf_free(&line);
	}
	sbuf_free(&what);
	return false;
}
