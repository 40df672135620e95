/* Shared by the fuzz targets: the include directory and how a broken
 * invariant is reported (abort, so that libFuzzer keeps the input). */
#ifndef PYSBX_FUZZ_COMMON_H
#define PYSBX_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy/policy.h"

/* Fixed, so that a crash file reproduces on another machine. */
#define FUZZ_INC_DIR "/tmp/pysbx-fuzz-inc"

static inline void fuzz_put_file(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", FUZZ_INC_DIR, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		abort();
	}
	fputs(text, f);
	fclose(f);
}

static inline void fuzz_link_policies(const char *dir)
{
	char src[4096], abs[4096], dst[4096];
	struct dirent *de;
	DIR *d;

	if (!dir || !(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", dir, de->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", FUZZ_INC_DIR, de->d_name);
		if (!realpath(src, abs))
			continue;
		unlink(dst);
		if (symlink(abs, dst) < 0)
			perror(dst);
	}
	closedir(d);
}

/* A few policies to include (or to name with -p): one good file that
 * includes another by a relative path, one that includes itself, one
 * with two errors, a FIFO; and, when PYSBX_FUZZ_POLICIES names the repository's
 * policies/ (scripts/fuzz.sh sets it), a link to each shipped file, so
 * that "include home-secrets.inc" works as it does there. */
static inline void fuzz_inc_dir(void)
{
	mkdir(FUZZ_INC_DIR, 0700);
	mkdir(FUZZ_INC_DIR "/sub", 0700);
	fuzz_put_file("a.policy", "unshare mount\ndir /from-a mode=0700\n"
				  "include sub/b.policy\n");
	fuzz_put_file("sub/b.policy", "env B=${B:-1}\nlimit nofile 64\n");
	fuzz_put_file("self.policy", "include self.policy\n");
	fuzz_put_file("bad.policy", "limt 1\nunshare pids\n");
	/* "include fifo" once hung the parser in open(2). */
	if (mkfifo(FUZZ_INC_DIR "/fifo", 0600) < 0 && errno != EEXIST)
		perror(FUZZ_INC_DIR "/fifo");
	fuzz_link_policies(getenv("PYSBX_FUZZ_POLICIES"));
}

static inline void fuzz_die(const char *prog, const char *what, const char *a,
		     const char *b)
{
	fprintf(stderr, "%s: %s\n--- first ---\n%s\n--- second ---\n%s\n",
		prog, what, a ? a : "(null)", b ? b : "(null)");
	abort();
}

/* plan_write (what the guard seals, written through one page) must give
 * plan_format's bytes exactly. */
static inline void fuzz_written(const char *prog, const struct plan *p,
				const char *text, size_t len)
{
	int fd = memfd_create("fuzz-plan", MFD_CLOEXEC);
	char *w;
	int err;

	if (fd < 0)
		abort();
	err = plan_write(p, fd);
	w = malloc(len + 1);
	if (err || !w || lseek(fd, 0, SEEK_END) != (off_t)len ||
	    pread(fd, w, len, 0) != (ssize_t)len || memcmp(w, text, len)) {
		if (w)
			w[len] = '\0';
		fuzz_die(prog, "plan_write differs from plan_format", text, w);
	}
	free(w);
	close(fd);
}

/* The round-trip invariant both plan targets check on a plan p that
 * parsed: the text plan_format prints parses back, formatting that second
 * plan gives byte-identical text (every step must see exactly the plan
 * the first one sealed), and plan_show agrees on both. save, when not
 * NULL, gets the plan text (to seed fuzz_plan). Frees p. */
static inline void fuzz_round_trip(const char *prog, struct plan *p,
				   void (*save)(const char *, size_t))
{
	char *t1, *t2, *s1, *s2;
	struct perr e;
	struct plan q;
	size_t l1, l2;

	t1 = plan_format(p, &l1);
	if (!t1 || strlen(t1) != l1)
		fuzz_die(prog, "plan_format failed", t1, NULL);
	if (save)
		save(t1, l1);
	if (plan_init(&q) < 0)
		abort();
	if (policy_parse_plan(&q, t1, l1, &e) < 0)
		fuzz_die(prog, "a formatted plan does not parse back",
			 e.n ? e.msg[0] : "?", t1);
	t2 = plan_format(&q, &l2);
	if (!t2 || l1 != l2 || memcmp(t1, t2, l1))
		fuzz_die(prog, "plan_format(policy_parse_plan(plan_format(p))) "
			 "differs", t1, t2);
	fuzz_written(prog, p, t1, l1);
	s1 = plan_show(p);
	s2 = plan_show(&q);
	if (!s1 || !s2 || strcmp(s1, s2))
		fuzz_die(prog, "plan_show differs after the round trip", s1,
			 s2);
	free(t1);
	free(t2);
	free(s1);
	free(s2);
	plan_free(&q);
	plan_free(p);
}

#endif
