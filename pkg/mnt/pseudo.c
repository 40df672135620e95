/* Pseudo-filesystems that recursive binds copy along. `ro-bind / /` clones
 * every mount below "/": the host's /proc, /sys, /dev, and also a procfs
 * or sysfs mounted elsewhere (a build chroot's /srv/chroot/proc), which
 * would show the sandbox every host process with its command line. Each
 * such submount of a bind is covered by an empty read-only mount; only
 * the bind's own source may be one (the policy named it). The copies are
 * locked (they came from a more privileged user namespace), so they
 * cannot be unmounted: covering is what the kernel allows. */
#include <errno.h>
#include <fcntl.h>
#include <linux/stat.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "mnt/internal.h"
#include "mnt/sys.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

/* The filesystems that reveal or change host state: processes, devices,
 * kernel and cgroup state, tracing, BPF objects, firmware variables, the
 * host's message queues. */
static const char *const pseudo_types[] = {
	"proc",	    "sysfs",	"debugfs",  "tracefs",	   "bpf",
	"cgroup",   "cgroup2",	"devtmpfs", "securityfs",  "pstore",
	"configfs", "efivarfs", "fusectl",  "binfmt_misc", "mqueue",
	"devpts",   "autofs",	"nsfs",	    NULL,
};

bool mnt_is_pseudo_type(const char *type)
{
	for (size_t i = 0; pseudo_types[i]; i++)
		if (!strcmp(type, pseudo_types[i]))
			return true;
	return false;
}

struct mi_entry {
	unsigned long long id, parent;
	char *point;		/* unescaped mount point */
	char *type;
	bool mark;		/* in the bind's tree */
	bool covered;		/* masked, or below a masked one */
};

struct mi {
	char *buf;
	struct mi_entry *e;
	size_t n;
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = '\0';
}

static char *read_all(int dirfd, const char *path)
{
	size_t cap = 16384, len = 0;
	char *buf = malloc(cap);
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);

	if (!buf || fd < 0)
		goto fail;
	for (;;) {
		ssize_t r;

		if (len + 1 >= cap) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				goto fail;
			buf = nb;
		}
		r = read(fd, buf + len, cap - len - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto fail;
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return buf;
fail:
	if (fd >= 0) {
		int e = errno;

		close(fd);
		errno = e;
	}
	free(buf);
	return NULL;
}

/* Parse "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - TYPE SRC SUPER"
 * lines in place. 0 or -1 (errno). */
static int mi_read(int procfd, struct mi *mi)
{
	size_t cap = 0;
	char *line, *next;

	memset(mi, 0, sizeof(*mi));
	mi->buf = read_all(procfd, "thread-self/mountinfo");
	if (!mi->buf)
		return -1;
	for (line = mi->buf; *line; line = next) {
		char *f[6], *p = line, *type = NULL;
		int k = 0;

		next = strchrnul(line, '\n');
		if (*next)
			*next++ = '\0';
		while (k < 6 && (f[k] = strsep(&p, " ")))
			k++;
		while (p && (type = strsep(&p, " ")) && strcmp(type, "-"))
			;
		type = p ? strsep(&p, " ") : NULL;
		if (k < 6 || !type)
			continue;
		if (mi->n == cap) {
			struct mi_entry *ne = realloc(mi->e, (cap = cap ? cap * 2
								  : 64) *
							      sizeof(*ne));

			if (!ne)
				return -1;
			mi->e = ne;
		}
		unescape(f[4]);
		mi->e[mi->n++] = (struct mi_entry){
			strtoull(f[0], NULL, 10), strtoull(f[1], NULL, 10),
			f[4], type, false, false,
		};
	}
	return 0;
}

static void mi_free(struct mi *mi)
{
	free(mi->e);
	free(mi->buf);
}

int mnt_pseudo_init(struct diag *d, struct mnt_build *b, int procfd)
{
	struct mi mi;
	size_t n = 0;

	b->npseudo = 0;
	b->pseudo = NULL;
	if (mi_read(procfd, &mi) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read the mount table");
	b->pseudo = calloc(mi.n + 1, sizeof(*b->pseudo));
	if (!b->pseudo) {
		mi_free(&mi);
		return diag_fail(d, EXIT_SYSCALL, ENOMEM,
				 "unable to read the mount table");
	}
	/* After the first pivot the host's tree hangs at /old. */
	for (size_t i = 0; i < mi.n; i++) {
		const char *pt = mi.e[i].point;

		if (!mnt_is_pseudo_type(mi.e[i].type) ||
		    strncmp(pt, "/old", 4) || (pt[4] && pt[4] != '/'))
			continue;
		b->pseudo[n] = strdup(pt[4] ? pt + 4 : "/");
		if (!b->pseudo[n]) {
			mi_free(&mi);
			return diag_fail(d, EXIT_SYSCALL, ENOMEM,
					 "unable to read the mount table");
		}
		n++;
	}
	b->npseudo = n;
	mi_free(&mi);
	return 0;
}

void mnt_pseudo_free(struct mnt_build *b)
{
	for (size_t i = 0; i < b->npseudo; i++)
		free(b->pseudo[i]);
	free(b->pseudo);
	b->pseudo = NULL;
	b->npseudo = 0;
}

/* A pseudo-filesystem mount of the host strictly below src: only then
 * must the bind's copy be looked at (most binds, /usr, a workspace,
 * have none: no second read of the mount table). */
bool mnt_pseudo_below(const struct mnt_build *b, const char *src)
{
	size_t l = strcmp(src, "/") ? strlen(src) : 0;

	for (size_t i = 0; i < b->npseudo; i++)
		if (!strncmp(b->pseudo[i], src, l) && b->pseudo[i][l] == '/' &&
		    b->pseudo[i][l + 1])
			return true;
	return false;
}

static int statx_of(int fd, struct statx *sx)
{
	return (int)syscall(SYS_statx, fd, "", AT_EMPTY_PATH, STATX_MNT_ID,
			    sx);
}

static struct mi_entry *by_id(struct mi *mi, unsigned long long id)
{
	for (size_t i = 0; i < mi->n; i++)
		if (mi->e[i].id == id)
			return &mi->e[i];
	return NULL;
}

/* Is e below (or the same as) anc in the tree? */
static bool below(struct mi *mi, struct mi_entry *e, struct mi_entry *anc)
{
	for (size_t hops = 0; e && hops <= mi->n; hops++) {
		if (e == anc)
			return true;
		if (e->parent == e->id)
			break;
		e = by_id(mi, e->parent);
	}
	return false;
}

/* Cover the mount e (below the bind root at tree) with an empty
 * read-only mount, through an fd checked to be e's own root. */
static int cover(struct diag *d, struct mnt_build *b, const struct fs_op *op,
		 struct mi *mi, int tree, struct mi_entry *root,
		 struct mi_entry *e)
{
	const char *rel = e->point + strlen(root->point);
	struct statx sx;
	struct mi_entry *got;
	int fd, m;

	while (*rel == '/')
		rel++;
	if (!*rel)
		return mnt_op_fail(d, op, EBUSY, NULL,
				   " (a pseudo-filesystem covers its root)");
	fd = sys_openat2(tree, rel, O_PATH | O_CLOEXEC, 0, MNT_RESOLVE);
	if (fd < 0 || statx_of(fd, &sx) < 0) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		return mnt_op_fail(d, op, err, NULL, " (masking a copied "
				   "pseudo-filesystem)");
	}
	got = by_id(mi, sx.stx_mnt_id);
	if (sx.stx_mnt_id != e->id) {
		close(fd);
		/* Something else is mounted on top of e's root: e is hidden
		 * already, and what lies on top is looked at on its own. */
		if (got && got != e && below(mi, got, e) &&
		    !strcmp(got->point, e->point))
			return 0;
		/* The path led elsewhere (a rename on the host since the
		 * table was read): never mask the wrong mount, stop. */
		return mnt_op_fail(d, op, ESTALE, NULL,
				   " (a copied pseudo-filesystem moved while "
				   "it was being masked)");
	}
	m = mnt_mask_tree(d, b, S_ISDIR(sx.stx_mode), op->dst);
	if (m < 0 || sys_move_fd(m, fd) < 0) {
		int err = errno;

		if (m >= 0)
			close(m);
		close(fd);
		return m < 0 ? -1 : mnt_op_fail(d, op, err, NULL,
						" (masking a copied "
						"pseudo-filesystem)");
	}
	close(m);
	close(fd);
	return 0;
}

int mnt_pseudo_mask(struct diag *d, struct mnt_build *b,
		    const struct fs_op *op, int tree)
{
	struct statx sx;
	struct mi mi;
	struct mi_entry *root;
	bool more = true;
	int r = 0;

	if (statx_of(tree, &sx) < 0 || mi_read(b->procfd, &mi) < 0)
		return mnt_op_fail(d, op, errno, NULL,
				   " (reading the mount table)");
	root = by_id(&mi, sx.stx_mnt_id);
	if (!root) {
		mi_free(&mi);
		return mnt_op_fail(d, op, ENOENT, NULL,
				   " (the bind is not in the mount table)");
	}
	root->mark = true;
	/* The bind's tree: every mount whose chain of parents reaches it. */
	while (more) {
		more = false;
		for (size_t i = 0; i < mi.n; i++) {
			struct mi_entry *p;

			if (mi.e[i].mark || !(p = by_id(&mi, mi.e[i].parent)) ||
			    !p->mark || p == &mi.e[i])
				continue;
			mi.e[i].mark = more = true;
		}
	}
	/* Parents before children: the table lists a mount after its
	 * parent, and a child of a covered mount is hidden with it. */
	for (size_t i = 0; i < mi.n && !r; i++) {
		struct mi_entry *e = &mi.e[i], *p;

		if (!e->mark || e == root)
			continue;
		p = by_id(&mi, e->parent);
		if (p && p->covered) {
			e->covered = true;
			continue;
		}
		if (!mnt_is_pseudo_type(e->type))
			continue;
		/* Devices are what dev-bind asks for: ptys included. */
		if (op->kind == FS_DEV_BIND && !strcmp(e->type, "devpts"))
			continue;
		r = cover(d, b, op, &mi, tree, root, e);
		e->covered = true;
	}
	mi_free(&mi);
	return r;
}
