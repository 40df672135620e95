/* bench_ref: the reference floor of scripts/bench.sh (issue 9's "a single
 * static program doing the same setup"). It builds python.policy's sandbox
 * with as few system calls as the kernel allows and no checks, diagnostics,
 * policy, guard, rlimits or seccomp filter, then runs the target:
 *
 *   bench_ref [-n] [-f FILTER] [-b PATH | -l TARGET=LINK | -w PATH=FILE]...
 *             WORKSPACE SCRATCH TARGET [ARG...]
 *
 * -n: no net namespace. -f: load FILTER (pysbx-seccomp --export output)
 * just before the target's exec: the kernel's share of the seccomp step,
 * which no design can skip (the compilation it can). The rest is the
 * policy's /etc as scripts/bench/measure.sh reads it from `pysbx policy
 * show`: -b binds PATH read-only at the same path (skipped when missing,
 * as ro-bind-try), -l makes a symlink, -w writes FILE's content at PATH
 * (any -w replaces the four default /etc files).
 *
 * Namespaces user, mount, pid, ipc, uts (+ net); one uid/gid mapped; a
 * tmpfs root with /usr read-only, the merged-usr links, proc, a minimal
 * /dev, a 64 MiB /tmp, the workspace read-only, the scratch dir read-write,
 * the four /etc files (or the -b/-l/-w ones), pivot_root, a read-only root, lo up, a second
 * user+mount namespace that locks the mounts, then the same three processes
 * as pysbx and bwrap (monitor, pid 1, target) with a new session,
 * no_new_privs and the policy's environment. Not a sandbox to use: any
 * failure just exits 1. */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/mount.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define R "/mnt"	/* the staging point of the new root (not above any source) */

static void die(int ok)
{
	if (!ok)
		_exit(1);
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	die(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

static void map_self(unsigned uid, unsigned gid)
{
	char line[64];

	put("/proc/self/setgroups", "deny");
	snprintf(line, sizeof(line), "%u %u 1", uid, uid);
	put("/proc/self/uid_map", line);
	snprintf(line, sizeof(line), "%u %u 1", gid, gid);
	put("/proc/self/gid_map", line);
}

static void ro(const char *path, unsigned recursive)
{
	struct mount_attr a = { .attr_set = MOUNT_ATTR_RDONLY |
					    MOUNT_ATTR_NOSUID |
					    MOUNT_ATTR_NODEV };

	die(syscall(SYS_mount_setattr, AT_FDCWD, path, recursive, &a,
		    sizeof(a)) == 0);
}

static void bind_to(const char *src, const char *dst, int rdonly)
{
	die(mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == 0);
	if (rdonly)
		ro(dst, AT_RECURSIVE);
}

#define MAX_EXTRA 64
static const char *binds[MAX_EXTRA], *links[MAX_EXTRA], *writes[MAX_EXTRA];
static int nbinds, nlinks, nwrites;

/* The directories above path (below R), made as needed. */
static void parents(char *path)
{
	for (char *s = path + strlen(R) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		die(mkdir(path, 0755) == 0 || errno == EEXIST);
		*s = '/';
	}
}

static void etc_extra(void)
{
	static char buf[1 << 16];
	char dst[512];
	struct stat st;

	for (int i = 0; i < nwrites; i++) {
		const char *eq = strchr(writes[i], '=');
		int fd = open(eq + 1, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		die(n >= 0);
		close(fd);
		buf[n] = '\0';
		snprintf(dst, sizeof(dst), R "%.*s", (int)(eq - writes[i]),
			 writes[i]);
		parents(dst);
		put(dst, buf);
	}
	for (int i = 0; i < nbinds; i++) {
		if (stat(binds[i], &st) < 0)
			continue;
		snprintf(dst, sizeof(dst), R "%s", binds[i]);
		parents(dst);
		if (S_ISDIR(st.st_mode))
			die(mkdir(dst, 0755) == 0 || errno == EEXIST);
		else
			put(dst, "");
		bind_to(binds[i], dst, 1);
	}
	for (int i = 0; i < nlinks; i++) {
		const char *eq = strchr(links[i], '=');
		char target[512];

		snprintf(target, sizeof(target), "%.*s", (int)(eq - links[i]),
			 links[i]);
		snprintf(dst, sizeof(dst), R "%s", eq + 1);
		parents(dst);
		die(symlink(target, dst) == 0);
	}
}

static void dev(void)
{
	static const char *const nodes[] = { "null", "zero", "full", "random",
					     "urandom", "tty" };
	char src[32], dst[32];

	die(mkdir(R "/dev", 0755) == 0);
	die(mount("tmpfs", R "/dev", "tmpfs", MS_NOSUID, "mode=0755") == 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(*nodes); i++) {
		snprintf(src, sizeof(src), "/dev/%s", nodes[i]);
		snprintf(dst, sizeof(dst), R "/dev/%s", nodes[i]);
		put(dst, "");
		die(mount(src, dst, NULL, MS_BIND, NULL) == 0);
	}
}

static void root(const char *ws, const char *scratch, unsigned uid,
		 unsigned gid)
{
	char pw[128];

	die(mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == 0);
	die(mount("tmpfs", R, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") == 0);
	die(mkdir(R "/usr", 0755) == 0 && mkdir(R "/proc", 0755) == 0 &&
	    mkdir(R "/tmp", 01777) == 0 && mkdir(R "/workspace", 0755) == 0 &&
	    mkdir(R "/scratch", 0755) == 0 && mkdir(R "/etc", 0755) == 0);
	bind_to("/usr", R "/usr", 1);
	die(symlink("usr/bin", R "/bin") == 0 &&
	    symlink("usr/sbin", R "/sbin") == 0 &&
	    symlink("usr/lib", R "/lib") == 0 &&
	    symlink("usr/lib64", R "/lib64") == 0);
	die(mount("proc", R "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  NULL) == 0);
	dev();
	die(mount("tmpfs", R "/tmp", "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=64M,mode=1777") == 0);
	bind_to(ws, R "/workspace", 1);
	bind_to(scratch, R "/scratch", 0);
	if (!nwrites) {
		snprintf(pw, sizeof(pw),
			 "sandbox:x:%u:%u:sandbox:/scratch:/usr/sbin/nologin\n",
			 uid, gid);
		put(R "/etc/passwd", pw);
		snprintf(pw, sizeof(pw), "sandbox:x:%u:\n", gid);
		put(R "/etc/group", pw);
		put(R "/etc/hosts", "127.0.0.1 localhost\n::1 localhost\n");
		put(R "/etc/hostname", "sandbox\n");
	}
	etc_extra();
	die(chdir(R) == 0 && syscall(SYS_pivot_root, ".", ".") == 0 &&
	    umount2(".", MNT_DETACH) == 0 && chdir("/") == 0);
	ro("/", 0);
}

static void lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	die(s >= 0 && ioctl(s, SIOCGIFFLAGS, &ifr) == 0);
	ifr.ifr_flags |= IFF_UP;
	die(ioctl(s, SIOCSIFFLAGS, &ifr) == 0);
	close(s);
}

static int wait_for(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) != pid)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static struct sock_filter insn[4096];
static struct sock_fprog prog;

/* Read at start: the file is not in the sandbox's view. */
static void read_filter(const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, insn, sizeof(insn));

	die(n > 0 && n % 8 == 0);
	close(fd);
	prog.len = n / 8;
	prog.filter = insn;
}

int main(int argc, char **argv)
{
	static char *env[] = { "PATH=/usr/bin:/bin", "HOME=/scratch",
			       "TMPDIR=/tmp", "LANG=C.UTF-8", NULL };
	int net = CLONE_NEWNET, i = 1;
	unsigned uid = getuid(), gid = getgid();
	pid_t pid;

	if (argc > i && !strcmp(argv[i], "-n")) {
		net = 0;
		i++;
	}
	if (argc > i + 1 && !strcmp(argv[i], "-f")) {
		read_filter(argv[i + 1]);
		i += 2;
	}
	for (; argc > i + 1 && argv[i][0] == '-' && argv[i][1] && !argv[i][2];
	     i += 2) {
		const char *a = argv[i + 1];

		if (argv[i][1] == 'b' && nbinds < MAX_EXTRA && a[0] == '/')
			binds[nbinds++] = a;
		else if (argv[i][1] == 'l' && nlinks < MAX_EXTRA &&
			 strchr(a, '='))
			links[nlinks++] = a;
		else if (argv[i][1] == 'w' && nwrites < MAX_EXTRA &&
			 a[0] == '/' && strchr(a, '='))
			writes[nwrites++] = a;
		else
			return 100;
	}
	if (argc - i < 3)
		return 100;
	die(unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC |
		    CLONE_NEWUTS | net) == 0);
	map_self(uid, gid);
	if ((pid = fork()))
		return pid < 0 ? 1 : wait_for(pid);	/* the monitor */
	/* pid 1 */
	die(prctl(PR_SET_PDEATHSIG, SIGKILL) == 0);
	die(sethostname("sandbox", 7) == 0);
	if (net)
		lo_up();
	root(argv[i], argv[i + 1], uid, gid);
	if ((pid = fork()))
		return pid < 0 ? 1 : wait_for(pid);
	/* the target: the locking namespaces, then the process state */
	die(unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0);
	map_self(uid, gid);
	die(setsid() > 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
	    prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && chdir("/workspace") == 0);
	if (prog.len)
		die(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) ==
		    0);
	execve(argv[i + 2], argv + i + 2, env);
	return 127;
}
