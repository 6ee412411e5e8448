/* out: the output functions every command writes through, and the one
 * place an error is printed. */
#include "out.h"

#include <stdarg.h>

#include "mod.h"
#include "session.h"

void qz_emit(struct qz *q, enum qz_out_kind kind, const char *text)
{
	mod_output(q, kind, text);   /* the transcript */
	if (!q->quiet)
		q->sink.write(q->sink.arg, kind, text);
}

void qz_printf(struct qz *q, const char *fmt, ...)
{
	struct sbuf b = {0};
	va_list ap;
	va_start(ap, fmt);
	sbuf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (b.s)
		qz_emit(q, QZ_OUT_TEXT, b.s);
	sbuf_free(&b);
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
