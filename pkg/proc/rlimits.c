#include <errno.h>
#include <stdio.h>
#include <sys/resource.h>

#include "proc/proc.h"
#include "util/file.h"

/* "unlimited" or the number, into a caller's buffer. */
static const char *rlim_str(char *buf, size_t len, rlim_t v)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* The kernel's ceiling for nofile; the largest value when unreadable. */
static rlim_t nr_open(void)
{
	long v;

	return file_read_long("/proc/sys/fs/nr_open", &v) == 0 && v > 0
		       ? (rlim_t)v
		       : RLIM_INFINITY;
}

static int one(struct diag *d, const struct rlimit_op *op)
{
	const char *name = rlimit_name(op->resource);
	char a[32], b[32];
	struct rlimit cur, want;

	if (!name)
		name = "?";
	/* The current limits only for `keep` and for a failure's hint:
	 * one system call less per limit. */
	if ((op->flags & RL_KEEP_HARD) && getrlimit(op->resource, &cur) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 POS_FMT ": unable to read limit %s",
				 POS_ARGS(op->pos), name);
	want.rlim_max = op->flags & RL_KEEP_HARD ? cur.rlim_max :
		(rlim_t)op->hard;
	want.rlim_cur = op->flags & RL_SOFT_HARD ? want.rlim_max :
		(rlim_t)op->soft;
	if (want.rlim_cur > want.rlim_max)
		/* Only with `keep`: the parser checks explicit pairs. */
		return diag_fail(d, EXIT_SYSCALL, 0,
				 POS_FMT ": unable to set limit %s: soft limit "
				 "%s is above the kept hard limit %s",
				 POS_ARGS(op->pos), name,
				 rlim_str(a, sizeof(a), want.rlim_cur),
				 rlim_str(b, sizeof(b), want.rlim_max));
	if (setrlimit(op->resource, &want) == 0)
		return 0;
	diag_fail(d, EXIT_SYSCALL, errno,
		  POS_FMT ": unable to set limit %s to %s (hard %s)",
		  POS_ARGS(op->pos), name,
		  rlim_str(a, sizeof(a), want.rlim_cur),
		  rlim_str(b, sizeof(b), want.rlim_max));
	if (getrlimit(op->resource, &cur) < 0)
		return -1;
	if (d->err == EPERM && op->resource == RLIMIT_NOFILE &&
	    want.rlim_max > nr_open())
		diag_hint(d, "the nofile limit cannot exceed "
			  "/proc/sys/fs/nr_open (%llu)",
			  (unsigned long long)nr_open());
	else if (d->err == EPERM && want.rlim_max > cur.rlim_max)
		diag_hint(d, "hard limit %s is above the current hard limit "
			  "%s; an unprivileged process can only lower it "
			  "(raising needs CAP_SYS_RESOURCE in the initial user "
			  "namespace)",
			  rlim_str(a, sizeof(a), want.rlim_max),
			  rlim_str(b, sizeof(b), cur.rlim_max));
	return -1;
}

int proc_rlimits(struct diag *d, const struct plan *p)
{
	for (size_t i = 0; i < p->nrl; i++)
		if (one(d, &p->rl[i]) < 0)
			return -1;
	return 0;
}
