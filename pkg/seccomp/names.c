#include <string.h>

#include <seccomp.h>

#include "seccomp/names.h"

int sc_syscall_resolve(const char *name, int *nr)
{
	int n = seccomp_syscall_resolve_name(name);

	if (n == __NR_SCMP_ERROR)
		return -1;
	*nr = n;
	return 0;
}

static const struct {
	const char *name;
	uint64_t value;
} consts[] = {
	{ "AF_UNIX", 1 },	 { "AF_INET", 2 },
	{ "AF_INET6", 10 },	 { "AF_NETLINK", 16 },
	{ "AF_PACKET", 17 },	 { "AF_VSOCK", 40 },
	{ "TIOCSTI", 0x5412 },	 { "TIOCLINUX", 0x541C },
	{ "CLONE_NEWNS", 0x00020000 },	  { "CLONE_NEWCGROUP", 0x02000000 },
	{ "CLONE_NEWUTS", 0x04000000 },	  { "CLONE_NEWIPC", 0x08000000 },
	{ "CLONE_NEWUSER", 0x10000000 },  { "CLONE_NEWPID", 0x20000000 },
	{ "CLONE_NEWNET", 0x40000000 },	  { "CLONE_NEWTIME", 0x00000080 },
};

int sc_const(const char *name, uint64_t *value)
{
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (!strcmp(consts[i].name, name)) {
			*value = consts[i].value;
			return 0;
		}
	return -1;
}

/* The presets. Each list is what one threat needs closed; the policy
 * chooses the action. Names follow systemd's SystemCallFilter groups where
 * one fits. Bypass routes that must go with a group (io_uring with the
 * network, clone3 with namespace flags) are added by the compiler, not
 * here, so that they apply however the policy spells its rules. */
static const char *const python_tool[] = {
	"socket", "socketpair", "ptrace", "bpf", "userfaultfd",
	"perf_event_open", "process_vm_readv", "process_vm_writev",
	"kexec_load", "kexec_file_load", "open_by_handle_at",
	"name_to_handle_at", NULL,
};
static const char *const network[] = {
	"socket", "socketpair", "socketcall", NULL,
};
static const char *const inet[] = {
	/* every socket family but AF_UNIX: local IPC keeps working */
	"socket arg0!=AF_UNIX", "socketpair arg0!=AF_UNIX", "socketcall",
	NULL,
};
static const char *const unix_sockets[] = {
	"socket arg0==AF_UNIX", "socketpair arg0==AF_UNIX", "socketcall",
	NULL,
};
static const char *const mount[] = {
	"mount", "umount", "umount2", "pivot_root", "chroot", "fsopen",
	"fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
	"mount_setattr", NULL,
};
static const char *const namespaces[] = {
	"unshare", "setns",
	"clone arg0&CLONE_NEWNS==CLONE_NEWNS",
	"clone arg0&CLONE_NEWCGROUP==CLONE_NEWCGROUP",
	"clone arg0&CLONE_NEWUTS==CLONE_NEWUTS",
	"clone arg0&CLONE_NEWIPC==CLONE_NEWIPC",
	"clone arg0&CLONE_NEWUSER==CLONE_NEWUSER",
	"clone arg0&CLONE_NEWPID==CLONE_NEWPID",
	"clone arg0&CLONE_NEWNET==CLONE_NEWNET",
	NULL,
};
static const char *const keyring[] = {
	"keyctl", "add_key", "request_key", NULL,
};
static const char *const module[] = {
	"init_module", "finit_module", "delete_module", NULL,
};
static const char *const syslog[] = {
	"syslog", NULL,
};
static const char *const tty_inject[] = {
	/* ioctl's request is an int: the kernel ignores the high 32 bits,
	 * so compare only the low ones or 1<<32|TIOCSTI slips through. */
	"ioctl arg1&0xffffffff==TIOCSTI",
	"ioctl arg1&0xffffffff==TIOCLINUX",
	NULL,
};
static const char *const io_uring[] = {
	"io_uring_setup", "io_uring_enter", "io_uring_register", NULL,
};
static const char *const debug[] = {
	"ptrace", "process_vm_readv", "process_vm_writev", "perf_event_open",
	"kcmp", NULL,
};
static const char *const obsolete[] = {
	"uselib", "acct", "quotactl", "swapon", "swapoff", "reboot",
	"_sysctl", "ustat", "sysfs", "lookup_dcookie", "nfsservctl",
	"vhangup", "iopl", "ioperm", "create_module", "get_kernel_syms",
	"query_module", "settimeofday", "clock_settime", "clock_adjtime",
	"adjtimex", "pciconfig_read", "pciconfig_write", "kexec_load",
	"kexec_file_load", NULL,
};
static const char *const handles[] = {
	"open_by_handle_at", "name_to_handle_at", NULL,
};

const struct sc_preset sc_presets[] = {
	{ "python-tool", "what the seed python tool denies", python_tool },
	{ "network", "creating sockets of any family", network },
	{ "inet", "sockets of every family but AF_UNIX", inet },
	{ "unix-sockets", "AF_UNIX sockets (host sockets behind binds)",
	  unix_sockets },
	{ "mount", "mounting, pivot_root, chroot, the new mount API", mount },
	{ "namespaces", "unshare, setns, clone with namespace flags",
	  namespaces },
	{ "keyring", "the kernel keyrings (the caller's session keyring)",
	  keyring },
	{ "module", "loading and unloading kernel modules", module },
	{ "syslog", "reading or clearing the kernel log", syslog },
	{ "tty-inject", "TIOCSTI and TIOCLINUX terminal injection",
	  tty_inject },
	{ "io-uring", "io_uring (a second syscall table seccomp cannot see)",
	  io_uring },
	{ "debug", "tracing other processes and reading their memory", debug },
	{ "obsolete", "obsolete or host-wide dangerous calls", obsolete },
	{ "handles", "file handles (open_by_handle_at escapes)", handles },
	{ NULL, NULL, NULL },
};

const struct sc_preset *sc_preset_find(const char *name)
{
	for (const struct sc_preset *p = sc_presets; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}
