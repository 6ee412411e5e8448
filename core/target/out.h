/* out: every word qzdb says goes through here: commands print with
 * qz_printf, fail with qz_error, and qz_emit hands the text to the
 * session's sink and to the transcript. */
#ifndef QZ_OUT_H
#define QZ_OUT_H

struct qz;

/* QZ_OUT_VOLATILE: text that differs from run to run of the same command
 * (timings, counts of work done, temporary paths): shown as text, but not
 * kept in a session file's transcript, so that --check does not compare
 * it. */
enum qz_out_kind { QZ_OUT_TEXT, QZ_OUT_ERROR, QZ_OUT_WARN, QZ_OUT_VOLATILE };

/* Where the text goes: the front end's terminal, screen or test buffer. */
struct qz_sink {
	void (*write)(void *arg, enum qz_out_kind kind, const char *text);
	void *arg;
};

/* The one place text reaches the sink; the transcript sees it first,
 * also while the session is quiet. */
void qz_emit(struct qz *q, enum qz_out_kind kind, const char *text);
void qz_printf(struct qz *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void qz_puts(struct qz *q, const char *s);
/* qz_printf of QZ_OUT_VOLATILE text. */
void qz_printf_volatile(struct qz *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record an error message for the running command; returns -1 so a handler
 * can `return qz_error(q, ...)`. */
int qz_error(struct qz *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void qz_warn(struct qz *q, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
