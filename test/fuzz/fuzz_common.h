/* Shared by the fuzz targets: the include directory and how a broken
 * invariant is reported (abort, so that libFuzzer keeps the input). */
#ifndef PYSBX_FUZZ_COMMON_H
#define PYSBX_FUZZ_COMMON_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

#endif
