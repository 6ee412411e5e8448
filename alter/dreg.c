/* dreg: debug registers through PTRACE_POKEUSER/PEEKUSER. */
#include "dreg.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

static long dreg_off(int i)
{
	return (long)(offsetof(struct user, u_debugreg) + (size_t)i * sizeof(long));
}

int dreg_plan(uint64_t addr, uint64_t size, uint64_t *at, int *len)
{
	int n = 0;
	while (size > 0) {
		int l = 8;
		while (l > 1 && (addr % (uint64_t)l || (uint64_t)l > size))
			l /= 2;
		if (n == DREG_MAX)
			return -1;
		at[n] = addr;
		len[n++] = l;
		addr += (uint64_t)l;
		size -= (uint64_t)l;
	}
	return n;
}

/* DR7's LEN field encoding for 1, 2, 4, 8 bytes. */
static unsigned long dreg_len_bits(int len)
{
	return len == 1 ? 0 : len == 2 ? 1 : len == 8 ? 2 : 3;
}

int dreg_arm(pid_t pid, const uint64_t *at, const int *len, const enum dreg_kind *kind,
	     int n)
{
	unsigned long dr7 = 0;
	for (int i = 0; i < n; i++) {
		if (ptrace(PTRACE_POKEUSER, pid, dreg_off(i), at[i]) < 0)
			return -1;
		dr7 |= 1ul << (i * 2);
		dr7 |= ((unsigned long)kind[i] | dreg_len_bits(len[i]) << 2) << (16 + i * 4);
	}
	ptrace(PTRACE_POKEUSER, pid, dreg_off(6), 0);
	return ptrace(PTRACE_POKEUSER, pid, dreg_off(7), dr7) < 0 ? -1 : 0;
}

void dreg_disarm(pid_t pid)
{
	ptrace(PTRACE_POKEUSER, pid, dreg_off(7), 0);
}

unsigned dreg_take_hits(pid_t pid)
{
	errno = 0;
	long dr6 = ptrace(PTRACE_PEEKUSER, pid, dreg_off(6), 0);
	if (errno || !(dr6 & 0xf))
		return 0;
	ptrace(PTRACE_POKEUSER, pid, dreg_off(6), 0);
	return (unsigned)(dr6 & 0xf);
}
