#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "front/front.h"
#include "mnt/mnt.h"
#include "policy/policy.h"
#include "seccomp/lint.h"
#include "trust/trust.h"

/* The seccomp lint's warnings, positioned like errors. Returns how many. */
static size_t lint_print(const struct plan *p)
{
	struct sc_warning w[PLAN_MAX_ERRORS];
	size_t n = sc_lint(p, w, PLAN_MAX_ERRORS);

	for (size_t i = 0; i < n && i < PLAN_MAX_ERRORS; i++)
		fprintf(stderr, "%s:%u:%u: warning: %s\n", w[i].pos.file,
			w[i].pos.line, w[i].pos.col, w[i].msg);
	return n;
}

/* What each mask hides on this host now (the sandbox's view of the
 * same path, for the shipped policies, which bind the host's own paths
 * at the same place): docs/POLICY.md "mask". */
static void show_masks(const struct plan *p)
{
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	bool head = false;

	for (size_t i = 0; root >= 0 && i < p->nfs; i++) {
		const struct fs_op *f = &p->fs[i];
		char real[PLAN_MAX_PATH + 1], esc[PLAN_MAX_PATH * 4 + 1];
		struct stat st;
		const char *what;

		if (f->kind != FS_MASK)
			continue;
		if (!head)
			printf("# masks, as resolved on this host now:\n");
		head = true;
		diag_term_escape(esc, sizeof(esc), f->dst);
		if (mnt_resolve_in(root, f->dst + 1, real, sizeof(real)) < 0) {
			printf("#   mask %s: %s: skipped\n", esc,
			       errno == ENOENT || errno == ENOTDIR ? "missing"
			       : errno == EACCES ? "not reachable"
					       : strerror(errno));
			continue;
		}
		what = fstatat(root, *real ? real : ".", &st,
			       AT_SYMLINK_NOFOLLOW) < 0 ? "?"
		       : S_ISDIR(st.st_mode) ? "a directory: an empty "
					       "read-only tmpfs over it"
					     : "a file: an empty read-only "
					       "file over it";
		if (strcmp(real, f->dst + 1)) {
			char t[PLAN_MAX_PATH * 4 + 1], abs[PLAN_MAX_PATH + 2];

			snprintf(abs, sizeof(abs), "/%s", real);
			diag_term_escape(t, sizeof(t), abs);
			printf("#   mask %s: a symlink to %s, %s\n", esc, t, what);
		} else {
			printf("#   mask %s: %s\n", esc, what);
		}
	}
	if (root >= 0)
		close(root);
}

/* pysbx policy check|show FILE [-D NAME=VALUE]... (options may come
 * before or after FILE, as with most checkers). */
int front_policy(struct diag *d, int argc, char **argv)
{
	struct vars v = { 0 };
	const char *file = NULL, *verb;
	struct plan p;
	struct perr e;
	char err[256];
	int show, strict = 0, untrusted = 0, r;
	size_t nwarn;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: pysbx policy check|show POLICY "
			       "[-D NAME=VALUE]... [--strict]\n"
			       "                   [--allow-untrusted]\n"
			       "  check  report every mistake, and every "
			       "refusal pysbx run would make\n"
			       "         before it starts anything; nothing is "
			       "run\n"
			       "  show   print the resolved plan, every "
			       "default spelled out\n"
			       "  -D NAME=VALUE      define ${NAME}, taken "
			       "verbatim\n"
			       "  --strict           (check) the seccomp "
			       "lint's warnings are errors\n"
			       "  --allow-untrusted  accept a policy others "
			       "could change\n"
			       "exit status: 0 valid, 100 invalid or bad "
			       "usage.\n");
			exit(0);
		}
	if (argc < 2 || (strcmp(argv[1], "check") && strcmp(argv[1], "show"))) {
		diag_fail(d, EXIT_USAGE, 0, "usage: pysbx policy check|show "
			  "POLICY [-D NAME=VALUE]... [--strict] "
			  "[--allow-untrusted]");
		diag_exit(d);
	}
	verb = argv[1];
	show = !strcmp(verb, "show");
	for (int i = 2; i < argc; i++) {
		const char *val = NULL;

		if (!strcmp(argv[i], "--strict") && !show) {
			strict = 1;
			continue;
		}
		if (!strcmp(argv[i], "--allow-untrusted")) {
			untrusted = 1;
			continue;
		}
		if (!strcmp(argv[i], "-D") && i + 1 < argc)
			val = argv[++i];
		else if (!strncmp(argv[i], "-D", 2) && argv[i][2])
			val = argv[i] + 2;
		else if (argv[i][0] == '-' || file) {
			diag_fail(d, EXIT_USAGE, 0, "unexpected argument '%s'"
				  " (usage: pysbx policy %s POLICY "
				  "[-D NAME=VALUE]...)", argv[i], verb);
			diag_exit(d);
		} else {
			file = argv[i];
			continue;
		}
		if (vars_add_arg(&v, val, err, sizeof(err)) < 0) {
			diag_fail(d, EXIT_USAGE, 0, "%s", err);
			diag_exit(d);
		}
	}
	if (!file) {
		diag_fail(d, EXIT_USAGE, 0, "no policy file given");
		diag_exit(d);
	}
	if (front_policy_path(d, file, &file) < 0)
		diag_exit(d);
	if (plan_init(&p) < 0) {
		diag_fail(d, EXIT_SYSCALL, 12, "unable to allocate the plan");
		diag_exit(d);
	}
	chain_resolve_vars(&v);
	r = policy_parse_file(&p, file, &v, PARSE_NO_SCRATCH, &e);
	perr_print(&e, "pysbx", file);
	if (r < 0) {
		plan_free(&p);
		return EXIT_USAGE;
	}
	/* What run refuses before it starts anything, refused alike: a
	 * policy others could change, a -D SCRATCH it would not take. */
	if ((!untrusted && trust_plan(d, &p) < 0) ||
	    chain_scratch_var(d, &v, p.scratch) < 0)
		diag_exit(d);
	if (show) {
		char *text = plan_show(&p);

		if (text)
			fputs(text, stdout);
		free(text);
		show_masks(&p);
	} else if ((nwarn = lint_print(&p)) && strict) {
		fprintf(stderr, "pysbx: %zu warning%s in %s (--strict: treated "
			"as errors)\n", nwarn, nwarn == 1 ? "" : "s", file);
		plan_free(&p);
		return EXIT_USAGE;
	} else {
		printf("%s: ok\n", file);
	}
	plan_free(&p);
	return 0;
}
