/* sandbox: Landlock and a seccomp filter for a launched program (see
 * sandbox.h). This file holds the kernel probes, the parent's preparation
 * (scratch directory, the filter built with libseccomp), the child's
 * entry (no allocation: the parent may have threads) and the tracer's
 * verdict at each seccomp stop (sandbox-judge.c). */
#define _GNU_SOURCE
#include "sandbox.h"

#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "platform.h"

/* Stands for the child's pid in the filter until the child writes its own
 * (above any pid_max, unlike every other constant the filter compares). */
#define SB_PID_PLACEHOLDER 0x7ffffff1u

/* Landlock rights newer than Debian 12's header (ABI 3, 4, 5, 6). */
#define SB_FS_TRUNCATE       (1ULL << 14)
#define SB_FS_IOCTL_DEV      (1ULL << 15)
#define SB_NET_BIND_TCP      (1ULL << 0)
#define SB_NET_CONNECT_TCP   (1ULL << 1)
#define SB_SCOPE_ABSTRACT_UNIX (1ULL << 0)
#define SB_SCOPE_SIGNAL      (1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 6; older kernels get a prefix. */
struct sb_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;   /* ABI 4 */
	uint64_t scoped;               /* ABI 6 */
};

/* ---- what the kernel offers ---- */

/* What the kernel offers, from the capability probe (core/proc/platform.c). */
int sandbox_landlock_abi(void)
{
	return platform_get()->landlock_abi;
}

bool sandbox_seccomp_ok(void)
{
	return platform_get()->seccomp_filter == PLAT_YES;
}

int sandbox_supported(char *err, size_t errlen)
{
	if (!sandbox_landlock_abi()) {
		snprintf(err, errlen, "this kernel has no Landlock (needs Linux 5.13+ with "
			 "landlock in the lsm= boot list)");
		return -1;
	}
	if (!sandbox_seccomp_ok()) {
		snprintf(err, errlen, "this kernel has no seccomp filters with tracer "
			 "notification (SECCOMP_RET_TRACE)");
		return -1;
	}
	return 0;
}

/* ---- the scratch directory ---- */

int sandbox_scratch(struct sandbox *sb, char *err, size_t errlen)
{
	char real[PATH_MAX];
	if (!sb->scratch) {
		const char *base = getenv("XDG_RUNTIME_DIR");
		struct stat st;
		if (!base || !*base || stat(base, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    access(base, W_OK) < 0)
			base = "/tmp";
		char *tmpl = xasprintf("%s/qzdb-scratch-XXXXXX", base);
		if (!mkdtemp(tmpl)) {
			snprintf(err, errlen, "cannot make a scratch directory under %s: %s",
				 base, strerror(errno));
			free(tmpl);
			return -1;
		}
		sb->scratch = tmpl;
		sb->scratch_made = true;
	}
	if (!realpath(sb->scratch, real)) {
		snprintf(err, errlen, "scratch directory %s: %s", sb->scratch, strerror(errno));
		return -1;
	}
	free(sb->scratch);   /* canonical: the tracer compares paths with it */
	sb->scratch = xstrdup(real);
	return 0;
}

void sandbox_free(struct sandbox *sb)
{
	if (sb->scratch_made && sb->scratch)
		rmdir(sb->scratch);   /* kept if the program left files in it */
	free(sb->scratch);
	free(sb->bpf);
	sb->scratch = NULL;
	sb->bpf = NULL;
	sb->nbpf = 0;
}

/* ---- the seccomp filter (built in the parent) ---- */

/* Calls denied outright (their tracer stop always fails them); openat2 and
 * creat are judged by path like the other write opens. */
static const char *const sb_denied[] = {
	"execve", "execveat", "ptrace", "process_vm_readv", "process_vm_writev",
	"process_madvise", "pidfd_getfd", "pidfd_send_signal", "tkill",
	"mount", "umount2", "pivot_root", "chroot", "unshare", "setns",
	"move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick",
	"mount_setattr", "bpf", "perf_event_open", "keyctl", "add_key",
	"request_key", "kexec_load", "kexec_file_load", "init_module",
	"finit_module", "delete_module", "reboot", "swapon", "swapoff", "acct",
	"settimeofday", "clock_settime", "clock_adjtime", "sethostname",
	"setdomainname", "iopl", "ioperm", "open_by_handle_at", "quotactl",
	"fanotify_init", "syslog", "vhangup", "io_uring_setup", "openat2", "creat",
	NULL
};

static int sb_trace(scmp_filter_ctx c, int nr, unsigned n, const struct scmp_arg_cmp *a)
{
	return seccomp_rule_add_array(c, SCMP_ACT_TRACE(0), nr, n, a);
}

static int sb_trace1(scmp_filter_ctx c, int nr, struct scmp_arg_cmp a)
{
	return sb_trace(c, nr, 1, &a);
}

/* Signals: to itself (raise, abort, a thread of its own) the filter lets
 * them through; to another process the tracer decides. The child's pid is
 * unknown here: SB_PID_PLACEHOLDER, replaced in the child. */
static int sb_rules_signals(scmp_filter_ctx c)
{
	int r = 0;
	r |= sb_trace1(c, SCMP_SYS(kill), SCMP_A0_32(SCMP_CMP_NE, SB_PID_PLACEHOLDER));
	r |= sb_trace1(c, SCMP_SYS(rt_sigqueueinfo), SCMP_A0_32(SCMP_CMP_NE, SB_PID_PLACEHOLDER));
	r |= sb_trace1(c, SCMP_SYS(tgkill), SCMP_A0_32(SCMP_CMP_NE, SB_PID_PLACEHOLDER));
	r |= sb_trace1(c, SCMP_SYS(rt_tgsigqueueinfo), SCMP_A0_32(SCMP_CMP_NE, SB_PID_PLACEHOLDER));
	return r;
}

/* Opens for writing (any of these flag bits) stop for the tracer, which
 * fails the clear cases outside the scratch directory with EPERM and a
 * report; Landlock enforces either way. */
static int sb_rules_opens(scmp_filter_ctx c)
{
	static const unsigned bits[] = { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC };
	int r = 0;
	for (size_t i = 0; i < sizeof bits / sizeof *bits; i++) {
		r |= sb_trace1(c, SCMP_SYS(open), SCMP_A1_32(SCMP_CMP_MASKED_EQ, bits[i], bits[i]));
		r |= sb_trace1(c, SCMP_SYS(openat), SCMP_A2_32(SCMP_CMP_MASKED_EQ, bits[i], bits[i]));
	}
	return r;
}

/* Sockets: none without --allow-network (socketpair stays); with it, only
 * AF_INET and AF_INET6 (no unix sockets to the user's daemons, no netlink). */
static int sb_rules_network(scmp_filter_ctx c, bool allow)
{
	int r = 0;
	if (!allow) {
		r |= sb_trace(c, SCMP_SYS(socket), 0, NULL);
		return r | sb_trace(c, SCMP_SYS(connect), 0, NULL);
	}
	r |= sb_trace1(c, SCMP_SYS(socket), SCMP_A0_32(SCMP_CMP_LT, AF_INET));
	r |= sb_trace1(c, SCMP_SYS(socket), SCMP_A0_32(SCMP_CMP_GT, AF_INET6));
	for (unsigned f = AF_INET + 1; f < AF_INET6; f++)
		r |= sb_trace1(c, SCMP_SYS(socket), SCMP_A0_32(SCMP_CMP_EQ, f));
	return r;
}

/* clone with namespace flags; clone3 hides its flags in memory, so it
 * fails with ENOSYS and libc falls back to clone, whose flags are seen.
 * userfaultfd only in user mode (qzdb's checkpoints inject exactly that).
 * personality may be read, not changed. No typing into the terminal. */
static int sb_rules_misc(scmp_filter_ctx c)
{
	static const uint64_t ns[] = { CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS,
				       CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET };
	int r = 0;
	for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
		r |= sb_trace1(c, SCMP_SYS(clone), SCMP_A0_64(SCMP_CMP_MASKED_EQ, ns[i], ns[i]));
	r |= seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	r |= sb_trace1(c, SCMP_SYS(userfaultfd), SCMP_A0_32(SCMP_CMP_MASKED_EQ, 1, 0));
	r |= sb_trace1(c, SCMP_SYS(personality), SCMP_A0_32(SCMP_CMP_NE, 0xffffffffu));
	r |= sb_trace1(c, SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI));
	r |= sb_trace1(c, SCMP_SYS(ioctl), SCMP_A1_32(SCMP_CMP_EQ, TIOCLINUX));
	return r;
}

static int sb_rules(scmp_filter_ctx c, bool allow_network)
{
	int r = 0;
	for (int i = 0; sb_denied[i]; i++) {
		int nr = seccomp_syscall_resolve_name(sb_denied[i]);
		if (nr != __NR_SCMP_ERROR)
			r |= sb_trace(c, nr, 0, NULL);
	}
	r |= sb_rules_signals(c) | sb_rules_opens(c) | sb_rules_misc(c);
	return r | sb_rules_network(c, allow_network);
}

/* The filter as BPF instructions, exported through a memory file. */
static int sb_export(scmp_filter_ctx c, struct sandbox *sb)
{
	int fd = memfd_create("qzdb-seccomp", MFD_CLOEXEC);
	if (fd < 0 || seccomp_export_bpf(c, fd) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	off_t n = lseek(fd, 0, SEEK_END);
	free(sb->bpf);
	sb->bpf = xmalloc(n > 0 ? (size_t)n : 1);
	sb->nbpf = n > 0 ? (size_t)n / sizeof(struct sock_filter) : 0;
	ssize_t got = pread(fd, sb->bpf, (size_t)n, 0);
	close(fd);
	return got == n && sb->nbpf ? 0 : -1;
}

static int sb_build(struct sandbox *sb)
{
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
	if (!c)
		return -1;
	/* int 0x80 (the i386 table) would dodge every rule: refuse it. */
	int r = seccomp_attr_set(c, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_ERRNO(EPERM));
	r |= sb_rules(c, sb->allow_network);
	if (!r)
		r = sb_export(c, sb);
	seccomp_release(c);
	return r ? -1 : 0;
}

int sandbox_prepare(struct sandbox *sb, char *err, size_t errlen)
{
	if (sandbox_supported(err, errlen) < 0 || sandbox_scratch(sb, err, errlen) < 0)
		return -1;
	sb->abi = sandbox_landlock_abi();
	if (sb_build(sb) < 0) {
		snprintf(err, errlen, "cannot build the sandbox's seccomp filter (libseccomp)");
		return -1;
	}
	return 0;
}

/* ---- in the child ---- */

static uint64_t sb_fs_handled(int abi)
{
	uint64_t a = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;   /* ABI 1 */
	if (abi >= 2)
		a |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		a |= SB_FS_TRUNCATE;
	if (abi >= 5)
		a |= SB_FS_IOCTL_DEV;
	return a;
}

static int sb_allow(int ruleset, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access };
	pb.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (pb.parent_fd < 0)
		return -1;
	int r = (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	close(pb.parent_fd);
	return r;
}

static int sb_ruleset(const struct sandbox *sb)
{
	struct sb_ruleset_attr attr = { .handled_access_fs = sb_fs_handled(sb->abi) };
	size_t size = sizeof attr.handled_access_fs;
	if (sb->abi >= 4) {
		attr.handled_access_net = sb->allow_network ? 0 :
					  SB_NET_BIND_TCP | SB_NET_CONNECT_TCP;
		size += sizeof attr.handled_access_net;
	}
	if (sb->abi >= 6) {   /* no signals out of the sandbox even untraced */
		attr.scoped = SB_SCOPE_SIGNAL | SB_SCOPE_ABSTRACT_UNIX;
		size += sizeof attr.scoped;
	}
	return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
}

/* Reads everywhere, all rights in the scratch directory, reading and
 * writing (not creating) the few device files a program's output needs. */
static int sb_landlock(const struct sandbox *sb)
{
	uint64_t all = sb_fs_handled(sb->abi);
	uint64_t dev = all & (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			      SB_FS_TRUNCATE | SB_FS_IOCTL_DEV);
	const char *devs[] = { "/dev/null", "/dev/tty", sb->tty_path };
	int rs = sb_ruleset(sb);
	if (rs < 0)
		return errno;
	int r = sb_allow(rs, "/", LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
			 LANDLOCK_ACCESS_FS_EXECUTE);
	r |= sb_allow(rs, sb->scratch, all);
	for (size_t i = 0; i < sizeof devs / sizeof *devs; i++)
		if (devs[i])
			sb_allow(rs, devs[i], dev);   /* a missing one stays closed */
	if (!r)
		r = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (!r)
		r = (int)syscall(SYS_landlock_restrict_self, rs, 0);
	int e = r ? errno : 0;
	close(rs);
	return e;
}

/* The filter with the child's pid in place of the placeholder (our own
 * copy of the parent's memory: no allocation here). */
static int sb_seccomp(const struct sandbox *sb)
{
	struct sock_filter *f = sb->bpf;
	uint32_t pid = (uint32_t)getpid();
	for (size_t i = 0; i < sb->nbpf; i++)
		if (BPF_CLASS(f[i].code) == BPF_JMP && BPF_SRC(f[i].code) == BPF_K &&
		    f[i].k == SB_PID_PLACEHOLDER)
			f[i].k = pid;
	struct sock_fprog prog = { .len = (unsigned short)sb->nbpf, .filter = f };
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		return errno;
	return 0;
}

int sandbox_enter(const struct sandbox *sb)
{
	int e = sb_landlock(sb);
	if (e)
		return e;
	/* The tracer sets PTRACE_O_TRACESECCOMP now: from the filter on, its
	 * RET_TRACE would otherwise fail calls with ENOSYS, our execve too. */
	kill(getpid(), SIGSTOP);
	return sb_seccomp(sb);
}
