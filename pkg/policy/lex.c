/* The policy tokenizer: words separated by blanks, "double quotes" and
 * backslash escapes, # comments, ${NAME} and ${NAME:-default}.
 *
 * A variable expands inside one token and its value is never scanned
 * again: a -D value holding spaces, quotes, '#' or "${" stays one literal
 * word, so a path cannot inject directives (DESIGN.md "Chain conventions").
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "policy/internal.h"

static void record(struct ctx *c, const struct pos *pos, unsigned col,
		   const char *kind, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
static void record(struct ctx *c, const struct pos *pos, unsigned col,
		   const char *kind, const char *fmt, va_list ap)
{
	struct perr *e = c->e;
	char msg[400];

	if (e->n >= PLAN_MAX_ERRORS)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* Line 0: about the file as a whole (or the command line), never
	 * "FILE:0:0". */
	if (!pos->line)
		snprintf(e->msg[e->n++], sizeof(e->msg[0]), "%s: %s: %s",
			 pos->file, kind, msg);
	else
		snprintf(e->msg[e->n++], sizeof(e->msg[0]), "%s:%u:%u: %s: %s",
			 pos->file, pos->line, col, kind, msg);
}

void perr_at(struct ctx *c, const struct pos *pos, unsigned col,
	     const char *fmt, ...)
{
	va_list ap;

	c->e->total++;
	va_start(ap, fmt);
	record(c, pos, col, "error", fmt, ap);
	va_end(ap);
}

void pwarn_at(struct ctx *c, const struct pos *pos, unsigned col,
	      const char *fmt, ...)
{
	va_list ap;

	c->e->warnings++;
	va_start(ap, fmt);
	record(c, pos, col, "warning", fmt, ap);
	va_end(ap);
}

static const char *var_lookup(const struct vars *v, const char *name,
			      size_t n)
{
	for (size_t i = v->n; i-- > 0;)
		if (strlen(v->name[i]) == n && !memcmp(v->name[i], name, n))
			return v->value[i];
	return NULL;
}

/* Every variable name the policy refers to, for the check that each -D
 * is used (parse.c) and its did-you-mean. */
static void note_use(struct ctx *c, const char *name, size_t n)
{
	for (size_t i = 0; i < c->nrefs; i++)
		if (strlen(c->refs[i]) == n && !memcmp(c->refs[i], name, n))
			return;
	if (c->nrefs < PLAN_MAX_VARS &&
	    (c->refs[c->nrefs] = arena_strndup(c->a, name, n)))
		c->nrefs++;
	else
		c->refs_lost = 1;
}

static int is_name_char(char ch, int first)
{
	return ch == '_' || (ch >= 'A' && ch <= 'Z') ||
	       (ch >= 'a' && ch <= 'z') || (!first && ch >= '0' && ch <= '9');
}

/* Output buffer of one token; expansions may make it longer than a line. */
#define TOK_MAX (4 * PLAN_MAX_LINE)
struct buf {
	char s[TOK_MAX + 1];
	size_t n;
	int overflow;
};

static void put(struct buf *b, const char *s, size_t n)
{
	if (b->n + n > TOK_MAX) {
		b->overflow = 1;
		return;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
}

static int hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	if (ch >= 'A' && ch <= 'F')
		return ch - 'A' + 10;
	return -1;
}

/* Expand ${...} starting at line[*i] == '$', line[*i+1] == '{'. */
static int expand(struct ctx *c, const struct pos *pos, const char *line,
		  size_t len, size_t *i, struct buf *b)
{
	size_t start = *i, j = *i + 2, name_end;
	const char *val, *def = NULL;
	size_t deflen = 0;

	while (j < len && is_name_char(line[j], j == start + 2))
		j++;
	name_end = j;
	if (j < len && line[j] == ':' && j + 1 < len && line[j + 1] == '-') {
		def = line + j + 2;
		j += 2;
		while (j < len && line[j] != '}')
			j++;
		deflen = (size_t)(line + j - def);
	}
	if (j >= len || line[j] != '}' || name_end == start + 2) {
		perr_at(c, pos, (unsigned)start + 1,
			"malformed variable reference (use ${NAME} or "
			"${NAME:-default})");
		return -1;
	}
	*i = j + 1;
	if (c->plan_mode) {
		perr_at(c, pos, (unsigned)start + 1,
			"variables are not allowed in a resolved plan");
		return -1;
	}
	note_use(c, line + start + 2, name_end - start - 2);
	val = var_lookup(c->v, line + start + 2, name_end - start - 2);
	if (!val && name_end - start - 2 == 7 &&
	    !memcmp(line + start + 2, "SCRATCH", 7)) {
		/* Known only once the guard made it: see policy_parse_file. */
		if (!c->scratch_use.line) {
			c->scratch_use = *pos;
			c->scratch_use.col = (unsigned)start + 1;
		}
		val = SCRATCH_PLACEHOLDER;
	}
	if (val) {
		put(b, val, strlen(val));
	} else if (def) {
		put(b, def, deflen);
	} else {
		perr_at(c, pos, (unsigned)start + 1,
			"undefined variable '%.*s' (define it with -D %.*s=VALUE"
			" or give a default: ${%.*s:-VALUE})",
			(int)(name_end - start - 2), line + start + 2,
			(int)(name_end - start - 2), line + start + 2,
			(int)(name_end - start - 2), line + start + 2);
		return -1;
	}
	return 0;
}

/* One backslash escape at line[*i] == '\\'. */
static int escape(struct ctx *c, const struct pos *pos, const char *line,
		  size_t len, size_t *i, struct buf *b)
{
	size_t at = *i;
	char ch;

	if (at + 1 >= len) {
		perr_at(c, pos, (unsigned)at + 1, "backslash at end of line");
		return -1;
	}
	ch = line[at + 1];
	*i = at + 2;
	switch (ch) {
	case 'n': put(b, "\n", 1); return 0;
	case 't': put(b, "\t", 1); return 0;
	case '\\': case '"': case '$': case '#': case ' ':
		put(b, &ch, 1);
		return 0;
	case 'x':
		if (at + 3 < len && hexval(line[at + 2]) >= 0 &&
		    hexval(line[at + 3]) >= 0) {
			char v = (char)(hexval(line[at + 2]) * 16 +
					hexval(line[at + 3]));
			*i = at + 4;
			if (!v) {
				perr_at(c, pos, (unsigned)at + 1,
					"NUL byte in policy");
				return -1;
			}
			put(b, &v, 1);
			return 0;
		}
		break;
	}
	perr_at(c, pos, (unsigned)at + 1,
		"unknown escape '\\%c' (use \\\\, \\\", \\$, \\#, \\n, \\t or "
		"\\xHH)", ch);
	return -1;
}

/* A byte that lex_line copies as it is, in a run: not a separator
 * (blanks are literal inside quotes), quote, escape, '$' or a byte that
 * needs a check of its own (NUL, control characters). */
static int literal(unsigned char ch, int quoted)
{
	if (ch == ' ' || ch == '\t')
		return quoted;
	return ch >= 0x20 && ch != 0x7f && ch != '"' && ch != '\\' &&
	       ch != '$';
}

int lex_line(struct ctx *c, const struct pos *pos, const char *line,
	     size_t len, struct tok *t)
{
	static struct buf b;	/* 16 KiB: keep it off the stack */
	size_t i = 0;
	int n = 0;

	for (;;) {
		unsigned col;
		int quoted = 0;

		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i >= len || line[i] == '#')
			return n;
		if (n == MAX_TOKS) {
			perr_at(c, pos, (unsigned)i + 1,
				"too many words on one line (max %d)",
				MAX_TOKS);
			return -1;
		}
		col = (unsigned)i + 1;
		b.n = 0;
		b.overflow = 0;
		while (i < len) {
			char ch = line[i];
			size_t run;

			if (!quoted && (ch == ' ' || ch == '\t'))
				break;
			if (ch == '"') {
				quoted = !quoted;
				i++;
			} else if (ch == '\\') {
				if (escape(c, pos, line, len, &i, &b) < 0)
					return -1;
			} else if (ch == '$' && i + 1 < len &&
				   line[i + 1] == '{') {
				if (expand(c, pos, line, len, &i, &b) < 0)
					return -1;
			} else if (!ch) {
				perr_at(c, pos, (unsigned)i + 1,
					"NUL byte in policy");
				return -1;
			} else if (ch == '\r' && i + 1 == len) {
				perr_at(c, pos, (unsigned)i + 1,
					"the line ends in a carriage return: "
					"the file has CRLF (Windows) line ends; "
					"convert it with sed -i 's/\\r$//' "
					"FILE (or dos2unix)");
				return -1;
			} else if (ch != '\t' && ((unsigned char)ch < 0x20 ||
						  ch == 0x7f)) {
				perr_at(c, pos, (unsigned)i + 1,
					"control character 0x%02x in policy "
					"(write it as \\xHH)",
					(unsigned char)ch);
				return -1;
			} else {
				/* The rest of a run of literal bytes at once
				 * (ch itself may be a '$' without '{'). */
				for (run = i + 1; run < len &&
				     literal((unsigned char)line[run], quoted);
				     run++)
					;
				put(&b, line + i, run - i);
				i = run;
			}
		}
		if (quoted) {
			perr_at(c, pos, col, "unterminated quoted string");
			return -1;
		}
		if (b.overflow) {
			perr_at(c, pos, col,
				"word longer than %d bytes after expansion",
				TOK_MAX);
			return -1;
		}
		t[n].s = arena_strndup(c->a, b.s, b.n);
		if (!t[n].s) {
			perr_at(c, pos, col, "out of memory");
			return -1;
		}
		t[n].len = (unsigned)b.n;
		t[n].col = col;
		n++;
	}
}

/* Bytes that end a bare plan word: blanks, and what needs lex_line (NUL,
 * control characters and tab, '"', '#' which begins a comment at a
 * word's start, '$', backslash, DEL). A table: this loop reads every
 * byte of every plan, in each step. */
static const unsigned char not_bare[256] = {
	[0 ... ' '] = 1, ['"'] = 1, ['#'] = 1, ['$'] = 1, ['\\'] = 1,
	[0x7f] = 1,
};

size_t lex_bare_run(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && !not_bare[(unsigned char)s[i]])
		i++;
	return i;
}

int lex_plain(char *line, size_t len, struct tok *t)
{
	size_t i = 0, start;
	int n = 0;

	/* Check the whole line first, so that lex_line gets it untouched
	 * when it has to take over. */
	for (;;) {
		while (i < len && line[i] == ' ')
			i++;
		if (i == len)
			break;
		start = i;
		while (i < len && !not_bare[(unsigned char)line[i]])
			i++;
		if ((i < len && line[i] != ' ') || n == MAX_TOKS ||
		    i - start > TOK_MAX)
			return -1;
		t[n].s = line + start;
		t[n].len = (unsigned)(i - start);
		t[n].col = (unsigned)start + 1;
		n++;
	}
	for (int k = 0; k < n; k++)
		t[k].s[t[k].len] = '\0';
	return n;
}
