/* The report pipe in, --status-fd out. The report records come from the
 * chain's steps (and pid 1), which run before or beside the target: they
 * are parsed defensively (bounded lines, flat objects, validated strings)
 * and a record that does not parse is ignored, never trusted half-way. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard/guard.h"

/* Find "key": at the top level of a flat object (our records have no
 * nesting) and return a pointer past the colon and blanks, or NULL.
 * Every string is skipped whole, so a value never passes for a key. */
static const char *json_find(const char *line, const char *key)
{
	size_t kl = strlen(key);

	for (const char *p = line; *p; p++) {
		const char *q, *end;

		if (*p != '"')
			continue;
		for (end = p + 1; *end && *end != '"'; end++)
			if (*end == '\\' && end[1])
				end++;
		if (!*end)
			return NULL;
		q = end + 1;
		while (*q == ' ')
			q++;
		if (*q == ':' && (size_t)(end - p - 1) == kl &&
		    !strncmp(p + 1, key, kl)) {
			q++;
			while (*q == ' ')
				q++;
			return q;
		}
		p = end;
	}
	return NULL;
}

/* Copy a JSON string value, still escaped, into out. -1 if it is not a
 * string, holds a raw control character, or does not fit. */
int guard_json_str(const char *line, const char *key, char *out,
		    size_t outlen)
{
	const char *p = json_find(line, key);
	size_t n = 0;

	if (!p || *p++ != '"')
		return -1;
	for (; *p && *p != '"'; p++) {
		if ((unsigned char)*p < 0x20 || n + 2 >= outlen)
			return -1;
		if (*p == '\\') {
			if (!p[1] || !strchr("\"\\/bfnrtu", p[1]))
				return -1;
			out[n++] = *p++;
		}
		out[n++] = *p;
	}
	if (*p != '"')
		return -1;
	out[n] = '\0';
	return 0;
}

int guard_json_long(const char *line, const char *key, long min, long max,
		     long *out)
{
	const char *p = json_find(line, key);
	char *end;
	long v;

	if (!p || !(*p == '-' || (*p >= '0' && *p <= '9')))
		return -1;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || end == p || v < min || v > max ||
	    !(*end == ',' || *end == '}' || *end == ' '))
		return -1;
	*out = v;
	return 0;
}


/* pysbx-mount's {"stage":"mount","event":"protect","what":W,"path":P}
 * (docs/SECURITY.md "Protected paths"): passed on as a status record. */
static void protect_line(const struct report *r, const char *line)
{
	char what[16], path[3072], run[16], out[3200];

	if (r->status_fd < 0 || guard_json_str(line, "what", what, sizeof(what)) ||
	    guard_json_str(line, "path", path, sizeof(path)))
		return;
	/* "run":"earlier": found at this start, left by a killed run */
	if (guard_json_str(line, "run", run, sizeof(run)) || strcmp(run, "earlier"))
		run[0] = '\0';
	guard_write_line(r->status_fd, out,
		   snprintf(out, sizeof(out),
			    "{\"event\":\"protect\",\"what\":\"%s\","
			    "\"path\":\"%s\"%s}\n", what, path,
			    run[0] ? ",\"run\":\"earlier\"" : ""));
}

/* pid 1's {"stage":"mount","event":"sigsys",...} (reaper/sigsys.h):
 * kept (the target's own kill over any other, else the first) and passed
 * on as a status record. */
static void sigsys_line(struct report *r, const char *line)
{
	struct sigsys_rec k = { .have = true };
	const char *t = json_find(line, "target"), *n;
	char out[400];

	n = json_find(line, "syscall");
	if (!n || (strncmp(n, "null", 4) &&
		   guard_json_str(line, "syscall", k.name, sizeof(k.name))) ||
	    guard_json_long(line, "nr", 0, INT_MAX, &k.nr) ||
	    guard_json_str(line, "arch", k.arch, sizeof(k.arch)) ||
	    guard_json_long(line, "pid", 1, INT_MAX, &k.pid) ||
	    guard_json_str(line, "comm", k.comm, sizeof(k.comm)) ||
	    guard_json_long(line, "kills", 1, INT_MAX, &k.kills) || !t)
		return;
	k.target = !strncmp(t, "true", 4);
	if (!r->sigsys.have || (k.target && !r->sigsys.target))
		r->sigsys = k;
	else
		r->sigsys.kills = k.kills;
	guard_write_line(r->status_fd, out,
		   snprintf(out, sizeof(out),
			    "{\"event\":\"sigsys\",\"syscall\":%s%s%s,"
			    "\"nr\":%ld,\"arch\":\"%s\",\"pid\":%ld,"
			    "\"comm\":\"%s\",\"target\":%s}\n",
			    k.name[0] ? "\"" : "null", k.name,
			    k.name[0] ? "\"" : "", k.nr, k.arch, k.pid, k.comm,
			    k.target ? "true" : "false"));
}

/* Returns 1 for a new "started" record. */
static int report_line(struct report *r, const char *line)
{
	char stage[32], event[32], err[sizeof(r->fail_error)];
	long v, e, code;

	if (line[0] != '{' || guard_json_str(line, "stage", stage, sizeof(stage)))
		return 0;
	if (!guard_json_str(line, "event", event, sizeof(event)) &&
	    !strcmp(event, "protect")) {
		protect_line(r, line);
		return 0;
	}
	if (!guard_json_str(line, "event", event, sizeof(event)) &&
	    !strncmp(event, "denial", 6)) {
		guard_denial_record(event, line, r->status_fd);
		return 0;
	}
	if (!guard_json_str(line, "event", event, sizeof(event)) &&
	    !strcmp(event, "sigsys")) {
		sigsys_line(r, line);
		return 0;
	}
	if (!guard_json_str(line, "event", event, sizeof(event))) {
		if (strcmp(event, "started") || r->started ||
		    guard_json_long(line, "pid", 1, INT_MAX, &v))
			return 0;
		r->started = true;
		r->started_pid = v;
		return 1;
	}
	if (!strcmp(stage, "target")) {
		if (guard_json_long(line, "status", 0, 0xffff, &v))
			return 0;
		r->have_target = true;
		r->target_status = (int)v;
		return 0;
	}
	if (guard_json_str(line, "error", err, sizeof(err)) ||
	    guard_json_long(line, "errno", 0, 4095, &e) ||
	    guard_json_long(line, "code", 0, 255, &code))
		return 0;
	/* The first failure is the cause; a later one (a step reporting
	 * that its child failed) is a consequence. */
	if (r->have_fail)
		return 0;
	r->have_fail = true;
	snprintf(r->fail_stage, sizeof(r->fail_stage), "%s", stage);
	snprintf(r->fail_error, sizeof(r->fail_error), "%s", err);
	r->fail_errno = (int)e;
	r->fail_code = (int)code;
	return 0;
}

void report_init(struct report *r)
{
	r->len = 0;
	r->overflow = r->started = r->have_target = r->have_fail = false;
	r->started_pid = 0;
	r->target_status = r->fail_errno = r->fail_code = 0;
	r->fail_stage[0] = r->fail_error[0] = '\0';
	r->status_fd = -1;
	r->sigsys.have = false;
}

int report_feed(struct report *r, const char *p, size_t n)
{
	int started = 0;

	for (size_t i = 0; i < n; i++) {
		if (p[i] != '\n') {
			if (r->len + 1 < sizeof(r->buf))
				r->buf[r->len++] = p[i];
			else
				r->overflow = true;
			continue;
		}
		r->buf[r->len] = '\0';
		if (!r->overflow && !memchr(r->buf, '\0', r->len) &&
		    report_line(r, r->buf))
			started = 1;
		r->len = 0;
		r->overflow = false;
	}
	return started;
}

int guard_write_line(int fd, const char *line, int n)
{
	ssize_t w;

	if (fd < 0)
		return 0;
	if (n < 0 || n >= 4096)
		return -1;
	/* One write(2) below PIPE_BUF: a reader never sees half a record. */
	do
		w = write(fd, line, (size_t)n);
	while (w < 0 && errno == EINTR);
	return w == n ? 0 : -1;
}

/* The mode of this run for the started record (status_set_mode). */
static const char *run_mode;

void status_set_mode(const char *mode)
{
	run_mode = mode;
}

int status_started(int fd, long pid)
{
	char line[128], mode[48] = "";

	if (run_mode)
		snprintf(mode, sizeof(mode), ",\"mode\":\"%s\"", run_mode);
	return guard_write_line(fd, line,
			  snprintf(line, sizeof(line),
				   "{\"event\":\"started\",\"pid\":%ld%s}\n", pid,
				   mode));
}

void run_result_init(struct run_result *r)
{
	r->stage[0] = r->error[0] = r->scratch_error[0] = '\0';
	r->err = r->code = r->signal = 0;
	r->timeout = false;
	r->wall_ms = r->user_ms = r->sys_ms = 0;
	r->max_rss_kb = 0;
	r->mode = NULL;
	r->sigsys.have = false;
}

static void json_or_null(char *dst, size_t len, const char *escaped)
{
	if (*escaped)
		snprintf(dst, len, "\"%s\"", escaped);
	else
		snprintf(dst, len, "null");
}

static int exit_line(int fd, const struct run_result *r)
{
	char line[4000], error[sizeof(r->error) + 3], extra[600] = "";

	json_or_null(error, sizeof(error), r->error);
	if (r->scratch_error[0])
		snprintf(extra, sizeof(extra), ",\"scratch_error\":\"%s\"",
			 r->scratch_error);
	if (r->mode)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 ",\"mode\":\"%s\"", r->mode);
	if (r->sigsys.have)
		snprintf(extra + strlen(extra), sizeof(extra) - strlen(extra),
			 ",\"syscall\":%s%s%s,\"syscall_nr\":%ld,"
			 "\"syscall_arch\":\"%s\",\"syscall_pid\":%ld,"
			 "\"syscall_target\":%s",
			 r->sigsys.name[0] ? "\"" : "null", r->sigsys.name,
			 r->sigsys.name[0] ? "\"" : "", r->sigsys.nr,
			 r->sigsys.arch, r->sigsys.pid,
			 r->sigsys.target ? "true" : "false");
	return guard_write_line(
		fd, line,
		snprintf(line, sizeof(line),
			 "{\"event\":\"exit\",\"stage\":\"%s\",\"error\":%s,"
			 "\"errno\":%d,\"code\":%d,\"signal\":%d,"
			 "\"timeout\":%s,\"wall_ms\":%llu,\"user_ms\":%llu,"
			 "\"sys_ms\":%llu,\"max_rss_kb\":%ld%s}\n",
			 r->stage, error, r->err, r->code, r->signal,
			 r->timeout ? "true" : "false",
			 (unsigned long long)r->wall_ms,
			 (unsigned long long)r->user_ms,
			 (unsigned long long)r->sys_ms, r->max_rss_kb, extra));
}

/* No reader: nothing to format (the guard's last step, on the caller's
 * critical path). */
int status_exit(int fd, const struct run_result *r)
{
	return fd < 0 ? 0 : exit_line(fd, r);
}

int status_fail(int fd, const struct diag *d)
{
	struct run_result r;
	char full[1400];

	if (fd < 0)
		return 0;
	memset(&r, 0, sizeof(r));
	snprintf(r.stage, sizeof(r.stage), "%s", d->stage);
	if (d->err)
		snprintf(full, sizeof(full), "%s: %s", d->msg,
			 strerror(d->err));
	else
		snprintf(full, sizeof(full), "%s", d->msg);
	diag_json_escape(r.error, sizeof(r.error), full);
	r.err = d->err;
	r.code = d->code ? d->code : EXIT_SYSCALL;
	return status_exit(fd, &r);
}
