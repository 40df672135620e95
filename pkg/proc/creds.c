#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/magic.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include "proc/proc.h"
#include "util/file.h"

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_IS_SET 1
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* The capabilities in the sets; the bit numbers are ABI. */
static const char *const cap_names[] = {
	"cap_chown", "cap_dac_override", "cap_dac_read_search",
	"cap_fowner", "cap_fsetid", "cap_kill", "cap_setgid", "cap_setuid",
	"cap_setpcap", "cap_linux_immutable", "cap_net_bind_service",
	"cap_net_broadcast", "cap_net_admin", "cap_net_raw", "cap_ipc_lock",
	"cap_ipc_owner", "cap_sys_module", "cap_sys_rawio", "cap_sys_chroot",
	"cap_sys_ptrace", "cap_sys_pacct", "cap_sys_admin", "cap_sys_boot",
	"cap_sys_nice", "cap_sys_resource", "cap_sys_time",
	"cap_sys_tty_config", "cap_mknod", "cap_lease", "cap_audit_write",
	"cap_audit_control", "cap_setfcap", "cap_mac_override",
	"cap_mac_admin", "cap_syslog", "cap_wake_alarm",
	"cap_block_suspend", "cap_audit_read", "cap_perfmon", "cap_bpf",
	"cap_checkpoint_restore",
};

const char *proc_cap_name(int cap)
{
	static char buf[16];

	if (cap >= 0 && (size_t)cap < sizeof(cap_names) / sizeof(*cap_names))
		return cap_names[cap];
	snprintf(buf, sizeof(buf), "cap_%d", cap);
	return buf;
}

int proc_status_read(struct proc_status *s)
{
	/* One page: the status text is about 1.5 KiB (CapAmb about 1.1
	 * KiB in); a longer one (thousands of groups) is cut, fails to
	 * parse and the callers fall back. A larger buffer would cost a
	 * page fault of stack in every run. */
	char buf[4096];
	struct statfs sf;
	uint64_t pid;
	ssize_t n;
	int fd;

	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC. */
	fd = openat(AT_FDCWD, "/proc/self/status",
		    O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstatfs(fd, &sf) < 0 || sf.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		return -1;
	}
	/* One read: procfs hands the whole text over at once when it
	 * fits. A line cut short fails to parse (no '\n' after its
	 * value). */
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (file_status_num(buf, "SigIgn", 16, &s->sigign) < 0 ||
	    file_status_num(buf, "SigCgt", 16, &s->sigcgt) < 0 ||
	    file_status_num(buf, "CapBnd", 16, &s->bnd) < 0 ||
	    file_status_num(buf, "CapAmb", 16, &s->amb) < 0 ||
	    /* Our own status, not another process's bound over it. */
	    file_status_num(buf, "Pid", 10, &pid) < 0 ||
	    pid != (uint64_t)getpid())
		return -1;
	return 0;
}

int proc_caps_read_with(struct diag *d, struct proc_caps *c,
			const struct proc_status *st)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct v[2];
	struct proc_status now;

	if (syscall(SYS_capget, &h, v) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to read the capability sets");
	c->eff = v[0].effective | (uint64_t)v[1].effective << 32;
	c->prm = v[0].permitted | (uint64_t)v[1].permitted << 32;
	c->inh = v[0].inheritable | (uint64_t)v[1].inheritable << 32;
	if (!st && proc_status_read(&now) == 0)
		st = &now;
	if (st) {
		c->bnd = st->bnd;
		c->amb = st->amb;
		return 0;
	}
	c->bnd = c->amb = 0;
	/* Up to the first number the kernel does not know (EINVAL): no
	 * /proc needed, which may not be mounted where we run. */
	for (int cap = 0; cap < 64; cap++) {
		int r = prctl(PR_CAPBSET_READ, (unsigned long)cap, 0, 0, 0);

		if (r < 0 && errno == EINVAL)
			break;
		if (r < 0)
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to read the bounding set");
		if (r)
			c->bnd |= 1ULL << cap;
		/* EINVAL before Linux 4.3: no ambient set at all. */
		r = prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET,
			  (unsigned long)cap, 0, 0);
		if (r > 0)
			c->amb |= 1ULL << cap;
	}
	return 0;
}

int proc_caps_read(struct diag *d, struct proc_caps *c)
{
	return proc_caps_read_with(d, c, NULL);
}

static int lowest(uint64_t set)
{
	return __builtin_ctzll(set);
}

static int held(struct diag *d, const char *set, uint64_t bits, bool chain)
{
	return diag_fail(d, EXIT_SYSCALL, 0,
			 "unable to run without privileges: %s is in the %s "
			 "set (%d capabilities held, 0x%llx)%s",
			 proc_cap_name(lowest(bits)), set,
			 __builtin_popcountll(bits), (unsigned long long)bits,
			 chain ? "; the step before did not drop it" : "");
}

int proc_caps_check(struct diag *d, bool chain, const struct proc_status *st)
{
	struct proc_caps c;
	int r = -1;

	if (proc_caps_read_with(d, &c, st) < 0)
		return -1;
	if (!(c.eff | c.prm | c.inh | c.amb | c.bnd))
		return 0;
	/* Standalone as root, with the means to drop them: we do. */
	if (!chain && (getuid() == 0 || geteuid() == 0) &&
	    (c.eff & (1ULL << CAP_SETPCAP)))
		return 1;
	if (c.eff)
		r = held(d, "effective", c.eff, chain);
	else if (c.prm)
		r = held(d, "permitted", c.prm, chain);
	else if (c.inh)
		r = held(d, "inheritable", c.inh, chain);
	else if (c.amb)
		r = held(d, "ambient", c.amb, chain);
	else if (chain)
		r = held(d, "bounding", c.bnd, chain);
	else
		/* Standalone and unprivileged: nobody without CAP_SETPCAP
		 * can empty the bounding set, and with the other four sets
		 * empty and no_new_privs set, no execve can add anything
		 * from it (the kernel intersects gains with the old
		 * permitted set). See EXEC.md. */
		return 0;
	if (chain)
		diag_hint(d, "pysbx-mount empties every set before it execs "
			  "pysbx-exec; run the chain through pysbx or "
			  "pysbx-clean");
	else if (getuid() == 0 || geteuid() == 0)
		diag_hint(d, "as root pysbx-exec drops capabilities itself, "
			  "but that needs cap_setpcap in the effective set");
	else
		diag_hint(d, "run it without capabilities (e.g. setpriv "
			  "--inh-caps=-all --ambient-caps=-all), or as root, "
			  "where it drops them itself");
	return r;
}

int proc_caps_drop(struct diag *d)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct v[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	/* Root regains nothing at a later execve (noroot), a setuid()
	 * does not restore (no_setuid_fixup), keep-caps stays off, the
	 * ambient set cannot be raised; each bit locked. */
	unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
			     SECBIT_NO_SETUID_FIXUP |
			     SECBIT_NO_SETUID_FIXUP_LOCKED |
			     SECBIT_KEEP_CAPS_LOCKED |
			     SECBIT_NO_CAP_AMBIENT_RAISE |
			     SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
	struct proc_caps c;

	if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to lock securebits 0x%lx", bits);
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, (unsigned long)cap, 0, 0, 0) < 0) {
			if (errno == EINVAL)
				break;
			return diag_fail(d, EXIT_SYSCALL, errno,
					 "unable to drop %s from the bounding "
					 "set", proc_cap_name(cap));
		}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the ambient set");
	if (syscall(SYS_capset, &h, v) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to clear the capability sets");
	if (proc_caps_read(d, &c) < 0)
		return -1;
	if (c.eff | c.prm | c.inh | c.amb | c.bnd)
		return held(d, c.bnd ? "bounding" : "permitted",
			    c.bnd ? c.bnd : c.eff | c.prm | c.inh | c.amb,
			    false);
	return 0;
}

int proc_no_new_privs(struct diag *d)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to set no_new_privs");
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		return diag_fail(d, EXIT_SYSCALL, errno,
				 "unable to verify no_new_privs");
	return 0;
}
