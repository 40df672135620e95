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
	/* every socket family but AF_UNIX: local IPC keeps working. A
	 * family with high bits set is not AF_UNIX here, so it is refused
	 * (fail closed) although the kernel would read AF_UNIX. */
	"socket arg0!=AF_UNIX", "socketpair arg0!=AF_UNIX", "socketcall",
	NULL,
};
static const char *const unix_sockets[] = {
	/* family is an int: the kernel ignores the high 32 bits, so a
	 * plain == would let 1<<32|AF_UNIX through. */
	"socket arg0&0xffffffff==AF_UNIX",
	"socketpair arg0&0xffffffff==AF_UNIX", "socketcall",
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
static const char *const clock[] = {
	"settimeofday", "clock_settime", "clock_adjtime", "adjtimex", NULL,
};
static const char *const raw_io[] = {
	"iopl", "ioperm", "pciconfig_read", "pciconfig_write",
	"pciconfig_iobase", NULL,
};
static const char *const reboot[] = {
	"reboot", "kexec_load", "kexec_file_load", NULL,
};
static const char *const swap[] = {
	"swapon", "swapoff", NULL,
};
static const char *const cpu_emulation[] = {
	"modify_ldt", "vm86", "vm86old", "subpage_prot", "switch_endian",
	NULL,
};
static const char *const bpf[] = {
	"bpf", NULL,
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
	{ "clock", "setting the system clock", clock },
	{ "raw-io", "raw I/O port and PCI configuration access", raw_io },
	{ "reboot", "rebooting or replacing the running kernel", reboot },
	{ "swap", "enabling and disabling swap", swap },
	{ "cpu-emulation", "LDT changes and CPU emulation modes",
	  cpu_emulation },
	{ "bpf", "loading eBPF programs and maps", bpf },
	{ NULL, NULL, NULL },
};

const struct sc_preset *sc_preset_find(const char *name)
{
	for (const struct sc_preset *p = sc_presets; p->name; p++)
		if (!strcmp(p->name, name))
			return p;
	return NULL;
}

/* Arguments the kernel declares as int or unsigned int: on a 64-bit ABI
 * the syscall wrappers truncate them, while seccomp sees all 64 bits. A
 * condition on them must compare the low 32 bits only. */
static const struct {
	const char *name;
	unsigned args;		/* bit N: argN is 32 bits wide */
} narrow[] = {
	{ "socket", 0x07 },	{ "socketpair", 0x07 }, { "ioctl", 0x03 },
	{ "fcntl", 0x03 },	{ "prctl", 0x01 },	{ "personality", 0x01 },
	{ "setsockopt", 0x07 }, { "getsockopt", 0x07 }, { "kill", 0x02 },
	{ "tkill", 0x02 },	{ "tgkill", 0x04 },	{ "keyctl", 0x01 },
	{ "open", 0x02 },	{ "openat", 0x05 },	{ "setns", 0x03 },
	{ "bind", 0x01 },	{ "connect", 0x01 },
};

int sc_arg_is_32bit(const char *name, unsigned arg)
{
	for (size_t i = 0; i < sizeof(narrow) / sizeof(narrow[0]); i++)
		if (!strcmp(narrow[i].name, name))
			return arg < 6 && (narrow[i].args >> arg & 1);
	return 0;
}
