#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front/front.h"

int front_self_dir(struct diag *d, char *dir, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", dir, len - 1);
	char *slash;

	if (n < 0) {
		diag_fail(d, EXIT_SYSCALL, errno,
			  "unable to read /proc/self/exe");
		diag_hint(d, "the front door finds its sibling programs and "
			  "the shipped policies through /proc: mount it");
		return -1;
	}
	dir[n] = '\0';
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return diag_fail(d, EXIT_SYSCALL, 0,
				 "unable to locate the pysbx programs "
				 "(running as %s)", dir);
	*slash = '\0';
	return 0;
}

/* A shipped policy's name: letters, digits, '-', '_' and '.', not
 * starting with '.' (no "..", no hidden file, nothing that walks). */
static int name_ok(const char *s)
{
	if (!*s || *s == '.' || strlen(s) > NAME_MAX - 8)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return 0;
	return 1;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), t = strlen(tail);

	return n >= t && !strcmp(s + n - t, tail);
}

int front_policy_path(struct diag *d, const char *arg, const char **out)
{
	/* Static: the path outlives the caller's frame (it becomes the
	 * guard's -p argument), and costs no stack page when unused. */
	static char path[PATH_MAX];
	char dir[PATH_MAX - 64];
	struct stat st;
	char *up;

	*out = arg;
	if (strchr(arg, '/') || ends_with(arg, ".policy"))
		return 0;
	if (!name_ok(arg))
		return diag_fail(d, EXIT_USAGE, 0,
				 "'%s' is not a shipped policy's name (a file "
				 "needs a '/' or the suffix .policy)", arg);
	if (front_self_dir(d, dir, sizeof(dir)) < 0)
		return -1;
	/* DIR is PREFIX/bin once installed: PREFIX/share/pysbx/policies.
	 * In a build tree, DIR is ROOT/build/bin: ROOT/policies. */
	up = strrchr(dir, '/');
	*up = '\0';
	snprintf(path, sizeof(path), "%s/share/pysbx/policies/%s.policy",
		 dir, arg);
	if (stat(path, &st) == 0) {
		*out = path;
		return 0;
	}
	if (ends_with(dir, "/build")) {
		char *root_end = dir + strlen(dir) - strlen("/build");

		snprintf(path, sizeof(path), "%.*s/policies/%s.policy",
			 (int)(root_end - dir), dir, arg);
		if (stat(path, &st) == 0) {
			*out = path;
			return 0;
		}
	}
	diag_fail(d, EXIT_USAGE, 0, "no shipped policy named '%s' in "
		  "%s/share/pysbx/policies", arg, dir);
	diag_hint(d, "name a policy file with a '/' (./%s) or the suffix "
		  ".policy; the shipped ones are listed in pysbx(1)", arg);
	return -1;
}
