/* The guard's half of report denials (docs/DENIALS.md): pid 1's
 * records in, checked, counted, passed on as `denial` status records
 * and summed up on stderr at the end.
 *
 * pid 1 is inside the sandbox and sees only the view; whether a path
 * missing there exists on the host is decided here, with the caller's
 * own credentials (faccessat with the real ids: a path the caller could
 * not stat is never said to exist). Records are parsed like every other
 * report record: a malformed one is dropped. The tables are fixed:
 * GUARD_DENIALS_LISTED paths are named, the rest counted exactly. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard/guard.h"

#define DEN_IDS 256		/* pid 1's table (reaper/denials.c) */
#define DEN_RAW 512

struct den_entry {
	char kind[16], op[8], syscall[24], comm[40], directive[24];
	char path[DEN_RAW], at[DEN_RAW], src[DEN_RAW], dst[DEN_RAW];
	char line[600];		/* FILE:LINE, still JSON-escaped */
	long pid;
	unsigned long count;
	bool fix_var;		/* the line's text names ${WORKSPACE_MOUNT */
};

static struct {
	bool any;
	short slot[DEN_IDS];	/* pid 1's id -> entry, -1: dropped or
				 * unknown, -2: counted, not listed */
	struct den_entry *e;	/* GUARD_DENIALS_LISTED of them */
	unsigned n;
	unsigned long more_paths, more_calls, unchecked;
	bool end_seen;
} dl;

/* A JSON string value into raw bytes: the escapes pid 1 writes (\" \\
 * \/ \b \f \n \r \t \u00XX). -1 for anything else, or when it does
 * not fit, or holds a NUL. */
static int json_raw(const char *line, const char *key, char *out,
		    size_t outlen)
{
	char esc[6 * DEN_RAW + 8];
	size_t n = 0;

	if (guard_json_str(line, key, esc, sizeof(esc)) < 0)
		return -1;
	for (const char *p = esc; *p; p++) {
		char c = *p;

		if (n + 1 >= outlen)
			return -1;
		if (c == '\\') {
			p++;
			switch (*p) {
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u': {
				unsigned v;

				if (sscanf(p + 1, "%4x", &v) != 1 || v == 0 ||
				    v > 0xff || strlen(p + 1) < 4)
					return -1;
				c = (char)v;
				p += 4;
				break;
			}
			default: c = *p;
			}
		}
		out[n++] = c;
	}
	out[n] = '\0';
	return 0;
}

/* Does the policy's line FILE:LINE hold text? (the fix for a
 * read-only workspace is a -D, not an edit). */
static bool line_has(const char *where, const char *text)
{
	char file[PATH_MAX], buf[4096];
	const char *colon = strrchr(where, ':');
	long want;
	FILE *f;
	bool hit = false;

	if (!colon || (size_t)(colon - where) >= sizeof(file))
		return false;
	memcpy(file, where, (size_t)(colon - where));
	file[colon - where] = '\0';
	want = strtol(colon + 1, NULL, 10);
	f = fopen(file, "re");
	if (!f)
		return false;
	for (long n = 1; fgets(buf, sizeof(buf), f); n++)
		if (n == want) {
			hit = strstr(buf, text) != NULL;
			break;
		}
	fclose(f);
	return hit;
}

static void fix_text(const struct den_entry *e, char *out, size_t len)
{
	char at[4 * DEN_RAW], src[4 * DEN_RAW], dst[4 * DEN_RAW];
	bool write = strcmp(e->op, "read") && strcmp(e->op, "exec") &&
		     strcmp(e->op, "chdir");

	diag_term_escape(at, sizeof(at), e->at);
	diag_term_escape(src, sizeof(src), e->src);
	diag_term_escape(dst, sizeof(dst), e->dst);
	if (!strcmp(e->kind, "outside") && write)
		snprintf(out, len, "add 'bind %s %s'", at, at);
	else if (!strcmp(e->kind, "outside") && e->line[0])
		snprintf(out, len, "add 'ro-bind %s %s' after that line", at,
			 at);
	else if (!strcmp(e->kind, "outside"))
		snprintf(out, len, "add 'ro-bind %s %s' (or 'read-roots DIR' "
			 "for a directory above it)", at, at);
	else if (!strcmp(e->kind, "read-only") && e->fix_var)
		snprintf(out, len, "run with -D WORKSPACE_MOUNT=bind");
	else if (!strcmp(e->kind, "read-only") && e->line[0] &&
		 !strncmp(e->directive, "ro-bind", 7))
		snprintf(out, len, "make that line 'bind%s %s %s'",
			 e->directive + 7, src, dst);
	else if (!strcmp(e->kind, "read-only"))
		snprintf(out, len, "add 'bind %s %s' after that line (a "
			 "read-only mount there)", at, at);
	else if (!strcmp(e->kind, "masked"))
		snprintf(out, len, "remove 'mask %s'", dst);
	else if (!strcmp(e->kind, "protected"))
		snprintf(out, len, "change it outside the sandbox, or take "
			 "its name out of that protect line");
	else
		snprintf(out, len, "create %s on the host, or drop that line",
			 src);
}

static const char *kind_text(const char *kind)
{
	if (!strcmp(kind, "outside"))
		return "not in the sandbox's view (present on the host)";
	if (!strcmp(kind, "read-only"))
		return "a write under a read-only mount";
	if (!strcmp(kind, "masked"))
		return "masked";
	if (!strcmp(kind, "protected"))
		return "protected";
	return "its mount's source is missing on the host";
}

static void status_denial(int fd, const struct den_entry *e)
{
	char p[4 * DEN_RAW], a[4 * DEN_RAW], jp[6 * DEN_RAW], ja[6 * DEN_RAW];
	char fix[3 * 4 * DEN_RAW], jf[sizeof(fix) * 2], out[4096];
	char line[sizeof(e->line) + 3];
	int n;

	if (fd < 0)
		return;
	diag_term_escape(p, sizeof(p), e->path);
	diag_term_escape(a, sizeof(a), e->at);
	diag_json_escape(jp, sizeof(jp), p);
	diag_json_escape(ja, sizeof(ja), a);
	fix_text(e, fix, sizeof(fix));
	diag_json_escape(jf, sizeof(jf), fix);
	if (e->line[0])
		snprintf(line, sizeof(line), "\"%s\"", e->line);
	else
		snprintf(line, sizeof(line), "null");
	n = snprintf(out, sizeof(out),
		     "{\"event\":\"denial\",\"kind\":\"%s\",\"path\":\"%s\","
		     "\"at\":\"%s\",\"op\":\"%s\",\"syscall\":\"%s\","
		     "\"pid\":%ld,\"comm\":\"%s\",\"line\":%s,\"fix\":\"%s\"}\n",
		     e->kind, jp, ja, e->op, e->syscall, e->pid, e->comm, line,
		     jf);
	if (n > 0 && (size_t)n < sizeof(out))
		guard_write_line(fd, out, n);
}

static void on_denial(const char *line, int status_fd)
{
	struct den_entry e;
	long id;
	char where[sizeof(e.line)];

	memset(&e, 0, sizeof(e));
	if (guard_json_long(line, "id", 0, DEN_IDS - 1, &id) ||
	    guard_json_str(line, "kind", e.kind, sizeof(e.kind)) ||
	    json_raw(line, "path", e.path, sizeof(e.path)) ||
	    json_raw(line, "at", e.at, sizeof(e.at)) || e.at[0] != '/' ||
	    guard_json_str(line, "op", e.op, sizeof(e.op)) ||
	    guard_json_str(line, "syscall", e.syscall, sizeof(e.syscall)) ||
	    guard_json_long(line, "pid", 1, INT_MAX, &e.pid) ||
	    guard_json_str(line, "comm", e.comm, sizeof(e.comm)))
		return;
	if (!strstr("outside read-only masked protected missing-source",
		    e.kind))
		return;
	if (guard_json_str(line, "line", where, sizeof(where)) == 0)
		snprintf(e.line, sizeof(e.line), "%s", where);
	if (guard_json_str(line, "directive", e.directive,
			   sizeof(e.directive)))
		e.directive[0] = '\0';
	if (json_raw(line, "src", e.src, sizeof(e.src)))
		e.src[0] = '\0';
	if (json_raw(line, "dst", e.dst, sizeof(e.dst)))
		e.dst[0] = '\0';
	dl.slot[id] = -1;
	/* Said to exist on the host only when the caller can see it
	 * there: this process has the caller's ids (no setuid, no
	 * capability used), and the path is looked up from the host's
	 * root as the caller would. */
	if (!strcmp(e.kind, "outside") &&
	    faccessat(AT_FDCWD, e.at, R_OK, AT_EACCESS) < 0)
		return;
	e.count = 1;
	dl.any = true;
	if (dl.n >= GUARD_DENIALS_LISTED) {
		dl.slot[id] = -2;
		dl.more_paths++;
		dl.more_calls++;
		return;
	}
	if (!dl.e && !(dl.e = calloc(GUARD_DENIALS_LISTED, sizeof(*dl.e))))
		return;
	e.fix_var = e.line[0] && line_has(e.line, "${WORKSPACE_MOUNT");
	dl.slot[id] = (short)dl.n;
	dl.e[dl.n++] = e;
	status_denial(status_fd, &e);
}

void guard_denial_record(const char *event, const char *line, int status_fd)
{
	long id, count;

	if (!strcmp(event, "denial")) {
		if (!dl.end_seen)
			on_denial(line, status_fd);
		return;
	}
	if (!strcmp(event, "denial-count")) {
		if (guard_json_long(line, "id", 0, DEN_IDS - 1, &id) ||
		    guard_json_long(line, "count", 2, LONG_MAX, &count))
			return;
		if (dl.slot[id] >= 0)
			dl.e[dl.slot[id]].count = (unsigned long)count;
		else if (dl.slot[id] == -2)
			dl.more_calls += (unsigned long)count - 1;
		return;
	}
	if (!strcmp(event, "denials") && !dl.end_seen) {
		long more, unchecked;

		if (guard_json_long(line, "more", 0, LONG_MAX, &more) ||
		    guard_json_long(line, "unchecked", 0, LONG_MAX, &unchecked))
			return;
		dl.end_seen = true;
		dl.more_calls += (unsigned long)more;
		dl.unchecked = (unsigned long)unchecked;
		if (more)
			dl.any = true;
	}
}

void guard_denials_init(void)
{
	memset(dl.slot, 0xff, sizeof(dl.slot));
}

void guard_denials_end(const struct diag *d, const struct guard_opts *o)
{
	unsigned long calls = dl.more_calls;
	char out[512];
	int n;

	if (!o->report_denials)
		return;
	if (o->mode == MODE_LANDLOCK_ONLY) {
		guard_write_line(o->status_fd, out,
				 snprintf(out, sizeof(out),
					  "{\"event\":\"denials\",\"reported\":"
					  "false,\"why\":\"landlock-only\"}\n"));
		return;
	}
	for (unsigned i = 0; i < dl.n; i++)
		calls += dl.e[i].count;
	n = snprintf(out, sizeof(out),
		     "{\"event\":\"denials\",\"reported\":%s,\"paths\":%lu,"
		     "\"calls\":%lu,\"unchecked\":%lu}\n",
		     dl.end_seen ? "true" : "false", dl.n + dl.more_paths,
		     calls, dl.unchecked);
	guard_write_line(o->status_fd, out, n);
	if (!dl.any && !dl.unchecked)
		return;
	fprintf(stderr, "%s: the sandbox denied %lu path%s (%lu call%s):\n",
		d->prog, dl.n + dl.more_paths,
		dl.n + dl.more_paths == 1 ? "" : "s", calls,
		calls == 1 ? "" : "s");
	for (unsigned i = 0; i < dl.n; i++) {
		const struct den_entry *e = &dl.e[i];
		char at[4 * DEN_RAW], path[4 * DEN_RAW], fix[3 * 4 * DEN_RAW];
		char where[sizeof(e->line) * 4 + 4 * DEN_RAW], cnt[32] = "";
		char dst[4 * DEN_RAW];

		diag_term_escape(at, sizeof(at), e->at);
		diag_term_escape(path, sizeof(path), e->path);
		diag_term_escape(where, sizeof(where), e->line);
		diag_term_escape(dst, sizeof(dst), e->dst);
		if (e->line[0])
			snprintf(where + strlen(where),
				 sizeof(where) - strlen(where), " (%s %s)",
				 e->directive, dst);
		fix_text(e, fix, sizeof(fix));
		if (e->count > 1)
			snprintf(cnt, sizeof(cnt), " (%lu calls)", e->count);
		fprintf(stderr, "  %s%s%s%s: %s; %s by pid %ld (%s)%s; %s%s; "
			"fix: %s\n", at, strcmp(at, path) ? " (asked as '" : "",
			strcmp(at, path) ? path : "",
			strcmp(at, path) ? "')" : "", kind_text(e->kind),
			e->op, e->pid, e->comm, cnt,
			e->line[0] ? "decided by " : "no line of the policy "
						     "mounts it",
			e->line[0] ? where : "", fix);
	}
	if (dl.more_paths || dl.more_calls)
		fprintf(stderr, "  and %lu more path%s not listed; %lu denied "
			"call%s in all\n", dl.more_paths,
			dl.more_paths == 1 ? "" : "s", calls,
			calls == 1 ? "" : "s");
	if (dl.unchecked)
		fprintf(stderr, "  %lu call%s on more paths missing from the "
			"view were not checked on the host (pid 1's table "
			"was full)\n", dl.unchecked,
			dl.unchecked == 1 ? "" : "s");
}
