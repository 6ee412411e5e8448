/* out: the output functions every command writes through, and the one
 * place an error is printed. */
#include "out.h"

#include <stdarg.h>

#include "mod.h"
#include "session.h"

void qz_emit(struct qz *q, enum qz_out_kind kind, const char *text)
{
	mod_output(q, kind, text);   /* the transcript */
	if (!q->quiet)   /* front ends show volatile text as text */
		q->sink.write(q->sink.arg, kind == QZ_OUT_VOLATILE ? QZ_OUT_TEXT : kind, text);
}

static void out_vemit(struct qz *q, enum qz_out_kind kind, const char *fmt, va_list ap)
{
	struct sbuf b = {0};
	sbuf_vprintf(&b, fmt, ap);
	if (b.s)
		qz_emit(q, kind, b.s);
	sbuf_free(&b);
}

void qz_printf(struct qz *q, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_vemit(q, QZ_OUT_TEXT, fmt, ap);
	va_end(ap);
}

void qz_printf_volatile(struct qz *q, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out_vemit(q, QZ_OUT_VOLATILE, fmt, ap);
	va_end(ap);
}

void qz_puts(struct qz *q, const char *s)
{
	qz_emit(q, QZ_OUT_TEXT, s);
}

int qz_error(struct qz *q, const char *fmt, ...)
{
	va_list ap;
	sbuf_reset(&q->err);
	va_start(ap, fmt);
	sbuf_vprintf(&q->err, fmt, ap);
	va_end(ap);
	return -1;
}

void qz_warn(struct qz *q, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;
	sbuf_add(&b, "warning: ");
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	sbuf_addc(&b, '\n');
	qz_emit(q, QZ_OUT_WARN, b.s);
	sbuf_free(&b);
}
