/* signals: signal names and the handle table. */
#include "signals.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

struct sig_info {
	int sig;
	const char *name;
	const char *desc;     /* gdb's wording */
	bool quiet;           /* gdb's default: nostop noprint pass */
};

static const struct sig_info sig_infos[] = {
	{SIGHUP, "SIGHUP", "Hangup", false},
	{SIGINT, "SIGINT", "Interrupt", false},
	{SIGQUIT, "SIGQUIT", "Quit", false},
	{SIGILL, "SIGILL", "Illegal instruction", false},
	{SIGTRAP, "SIGTRAP", "Trace/breakpoint trap", false},
	{SIGABRT, "SIGABRT", "Aborted", false},
	{SIGBUS, "SIGBUS", "Bus error", false},
	{SIGFPE, "SIGFPE", "Arithmetic exception", false},
	{SIGKILL, "SIGKILL", "Killed", false},
	{SIGUSR1, "SIGUSR1", "User defined signal 1", false},
	{SIGSEGV, "SIGSEGV", "Segmentation fault", false},
	{SIGUSR2, "SIGUSR2", "User defined signal 2", false},
	{SIGPIPE, "SIGPIPE", "Broken pipe", false},
	{SIGALRM, "SIGALRM", "Alarm clock", true},
	{SIGTERM, "SIGTERM", "Terminated", false},
	{SIGSTKFLT, "SIGSTKFLT", "Stack fault", false},
	{SIGCHLD, "SIGCHLD", "Child status changed", true},
	{SIGCONT, "SIGCONT", "Continued", false},
	{SIGSTOP, "SIGSTOP", "Stopped (signal)", false},
	{SIGTSTP, "SIGTSTP", "Stopped (user)", false},
	{SIGTTIN, "SIGTTIN", "Stopped (tty input)", false},
	{SIGTTOU, "SIGTTOU", "Stopped (tty output)", false},
	{SIGURG, "SIGURG", "Urgent I/O condition", true},
	{SIGXCPU, "SIGXCPU", "CPU time limit exceeded", false},
	{SIGXFSZ, "SIGXFSZ", "File size limit exceeded", false},
	{SIGVTALRM, "SIGVTALRM", "Virtual timer expired", true},
	{SIGPROF, "SIGPROF", "Profiling timer expired", true},
	{SIGWINCH, "SIGWINCH", "Window size changed", true},
	{SIGIO, "SIGIO", "I/O possible", true},
	{SIGPWR, "SIGPWR", "Power fail/restart", false},
	{SIGSYS, "SIGSYS", "Bad system call", false},
};

static const struct sig_info *sig_info(int sig)
{
	for (size_t i = 0; i < sizeof sig_infos / sizeof sig_infos[0]; i++)
		if (sig_infos[i].sig == sig)
			return &sig_infos[i];
	return NULL;
}

void sig_table_init(struct sig_table *t)
{
	for (int s = 0; s < SIG_MAX; s++) {
		const struct sig_info *in = sig_info(s);
		bool quiet = in && in->quiet;
		t->act[s].stop = !quiet;
		t->act[s].print = !quiet;
		t->act[s].pass = true;
	}
	/* The debugger's own signals: gdb does not pass these on. */
	t->act[SIGINT].pass = false;
	t->act[SIGTRAP].pass = false;
}

const char *sig_name(int sig)
{
	static char buf[16];
	const struct sig_info *in = sig_info(sig);
	if (in)
		return in->name;
	snprintf(buf, sizeof buf, "SIG%d", sig);
	return buf;
}

const char *sig_desc(int sig)
{
	static char buf[48];
	const struct sig_info *in = sig_info(sig);
	if (in)
		return in->desc;
	snprintf(buf, sizeof buf, "Real-time event %d", sig);
	return buf;
}

int sig_parse(const char *s)
{
	int64_t n;
	if (isdigit((unsigned char)*s))
		return str_num_all(s, 1, SIG_MAX - 1, &n) == STR_NUM_OK ? (int)n : 0;
	const char *bare = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
	for (size_t i = 0; i < sizeof sig_infos / sizeof sig_infos[0]; i++)
		if (strcasecmp(sig_infos[i].name + 3, bare) == 0)
			return sig_infos[i].sig;
	if (strncasecmp(bare, "RTMIN", 5) == 0) {
		const char *off = bare + 5;
		if (!*off)
			return SIGRTMIN;
		return str_num_all(off, 0, SIGRTMAX - SIGRTMIN, &n) == STR_NUM_OK ?
		       SIGRTMIN + (int)n : 0;
	}
	return 0;
}
