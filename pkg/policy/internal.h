/* Shared between the policy parser's files; not part of the contract. */
#ifndef PYSBX_POLICY_INTERNAL_H
#define PYSBX_POLICY_INTERNAL_H

#include <stdint.h>
#include <sys/types.h>

#include "policy/policy.h"
#include "util/arena.h"

/* 16 bytes: a line's MAX_TOKS of them sit on the stack while it is
 * parsed, and every 4 KiB of stack is a page fault per run. */
struct tok {
	char *s;	/* expanded text, NUL-terminated, in the arena */
	unsigned len;	/* at most PLAN_TEXT_MAX_LINE */
	unsigned col;	/* 1-based byte column of the token's start */
};

#define MAX_TOKS 256

/* Room in plan.rl: d_limit takes each resource of its table once. */
#define PLAN_MAX_RL 16

/* Bytes per line of plan text. A policy line is at most PLAN_MAX_LINE, but
 * its plan line is longer: it adds the position (a path) and holds words
 * after expansion (up to 4 * PLAN_MAX_LINE bytes each, lex.c), in which
 * plan_format may write a byte as \xHH. The longest, `file DST CONTENT`,
 * stays under 4 * (PLAN_MAX_PATH + PLAN_MAX_PATH + 4 * PLAN_MAX_LINE) +
 * 64; the whole plan is capped by the reader (chain.c) anyway. */
#define PLAN_TEXT_MAX_LINE (1 << 17)

struct ctx {
	struct plan *p;
	struct arena *a;
	const struct vars *v;
	struct perr *e;
	unsigned flags;
	int plan_mode;			/* parsing plan text, not a policy */
	int depth;			/* include depth */
	dev_t dev[PLAN_MAX_INCLUDE_DEPTH + 1];
	ino_t ino[PLAN_MAX_INCLUDE_DEPTH + 1];
	struct pos scratch_use;		/* first ${SCRATCH}, line 0 if none */
	const char *refs[PLAN_MAX_VARS]; /* names of the ${...} met */
	size_t nrefs;
	int refs_lost;			/* more than refs holds */
	int have_rl[64];		/* limit seen, by resource */
	/* Syscall numbers below 1024 that have an unconditional rule: a
	 * new one is searched for a contradiction only then (sc_item). */
	uint64_t uncond[1024 / 64];
};


/* The network proxy's directives and their checks (net.c). */
void d_netproxy(struct ctx *c, const struct pos *pos, struct tok *t, int n);
void d_netrule(struct ctx *c, const struct pos *pos, struct tok *t, int n);
void d_netresolve(struct ctx *c, const struct pos *pos, struct tok *t,
		  int n);
void plan_validate_net(struct ctx *c);

/* The filesystem directives checked against each other (layout.c). */
void plan_validate_layout(struct ctx *c);

#define SCRATCH_PLACEHOLDER "/.pysbx-scratch-not-yet-created"

/* A variable or environment name: [A-Za-z_][A-Za-z0-9_]*, n bytes. */
int ident_ok(const char *s, size_t n);

/* Record "file:line:col: error: ..." (up to the cap). */
void perr_at(struct ctx *c, const struct pos *pos, unsigned col,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void pwarn_at(struct ctx *c, const struct pos *pos, unsigned col,
	      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Split one line into expanded tokens. Returns the count (0 for a blank or
 * comment line) or -1 after recording an error. */
int lex_line(struct ctx *c, const struct pos *pos, const char *line,
	     size_t len, struct tok *t);

/* Plan text: split a line of bare words (all that plan_format writes
 * but for quoted file contents and the like) in place, NUL-terminating
 * each word; line[len] must be writable. Returns the count, or -1,
 * having changed nothing, when the line needs lex_line: quotes, escapes,
 * '$', '#', tabs, control bytes, too many or too long words. */
int lex_plain(char *line, size_t len, struct tok *t);
/* How many of s's first len bytes form a bare plan word (as lex_plain
 * splits them). */
size_t lex_bare_run(const char *s, size_t len);

/* Room for element n of arr (capacity *cap, elements of size bytes):
 * returns arr or a larger copy in the arena, NULL when out of memory. */
void *plan_grow(struct ctx *c, void *arr, size_t n, size_t *cap,
		size_t size);

/* include FILE, relative to the including file. */
void parse_include(struct ctx *c, const struct pos *pos, const struct tok *t);

/* Handle one directive line (t[0] is the keyword). */
void directive(struct ctx *c, const struct pos *pos, struct tok *t, int n);
/* Checks that need the whole plan (run once at the end). */
void plan_validate(struct ctx *c);

/* Parse a seccomp rule item ("name [COND...]") into a rule with action
 * act/err; used for policy lines and for preset items. */
int sc_item(struct ctx *c, const struct pos *pos, unsigned col,
	    const char *name, struct tok *cond, int ncond,
	    enum sc_action act, int err);

/* Record a directive given once (PAT_*); -1 after an error if it was
 * given before. */
int dir_once(struct ctx *c, const struct pos *pos, const struct tok *t,
	     enum plan_at s);
/* " (did you mean 'X'?)" for the name of at's table nearest to word, or
 * "". */
const char *dir_did_you_mean(char *buf, size_t len, const char *word,
			     const char *(*at)(size_t));

/* The Landlock directives (landlock.c). */
void d_landlock(struct ctx *c, const struct pos *pos, struct tok *t, int n);
void d_landlock_best(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n);
void d_landlock_only(struct ctx *c, const struct pos *pos, struct tok *t,
		     int n);

/* Process a buffer of policy (or plan) text named file. */
int parse_text(struct ctx *c, const char *file, const char *buf, size_t len);

#endif
