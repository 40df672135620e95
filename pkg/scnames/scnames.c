#include <string.h>

#include "scnames/scnames.h"

#ifndef __x86_64__
#error "pkg/seccomp: the syscall table is x86_64's (asm/unistd_64.h)"
#endif

/* x86_64's syscalls, sorted by name in strcmp order, generated at build
 * time from the kernel's uapi <asm/unistd_64.h> (the Makefile's rule for
 * syscalls_x86_64.h: SC_SYSCALL(name, nr) lines). Not libseccomp's
 * resolver: its tables for every ABI would be linked into each program
 * that parses a policy. test_seccomp checks every entry against
 * libseccomp. The names live in one pool (a struct of char arrays) and
 * the table holds offsets into it: 4 bytes an entry, no relocations. */
static const struct pool {
#define SC_SYSCALL(name, nr) char n_##name[sizeof(#name)];
#include "syscalls_x86_64.h"
#undef SC_SYSCALL
} pool = {
#define SC_SYSCALL(name, nr) #name,
#include "syscalls_x86_64.h"
#undef SC_SYSCALL
};

_Static_assert(sizeof(struct pool) <= UINT16_MAX, "pool offsets are 16-bit");

static const struct {
	uint16_t off;
	uint16_t nr;
} native[] = {
#define SC_SYSCALL(name, nr) { offsetof(struct pool, n_##name), nr },
#include "syscalls_x86_64.h"
#undef SC_SYSCALL
};

/* Names that exist only on other ABIs and that presets list, so that a
 * preset reads the same on every architecture. They resolve to negative
 * numbers, which the compiler skips (their ABIs are killed anyway). The
 * numbers are libseccomp's pseudo numbers (__PNR_*, checked by
 * test_seccomp); all that matters is that they are negative and distinct.
 * Keep this in sync with the presets (test_seccomp checks every item);
 * any other name missing from the native table is an unknown syscall.
 * Sorted by name. */
static const struct {
	const char *name;
	int nr;
} foreign[] = {
	{ "pciconfig_iobase", -10086 },	/* alpha, powerpc */
	{ "pciconfig_read", -10087 },	/* alpha, arm, powerpc, ... */
	{ "pciconfig_write", -10088 },
	{ "socketcall", -10060 },	/* i386, s390, ... */
	{ "subpage_prot", -10207 },	/* powerpc */
	{ "switch_endian", -10191 },	/* powerpc */
	{ "umount", -10070 },		/* i386 (x86_64 has umount2 only) */
	{ "vm86", -10071 },		/* i386 */
	{ "vm86old", -10072 },		/* i386 */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

const char *sc_syscall_at(int other_abis, size_t i, int *nr)
{
	if (other_abis) {
		if (i >= NELEM(foreign))
			return NULL;
		*nr = foreign[i].nr;
		return foreign[i].name;
	}
	if (i >= NELEM(native))
		return NULL;
	*nr = native[i].nr;
	return (const char *)&pool + native[i].off;
}

const char *sc_syscall_name(int nr)
{
	for (size_t i = 0; i < NELEM(native); i++)
		if (native[i].nr == nr)
			return (const char *)&pool + native[i].off;
	return NULL;
}

int sc_syscall_max(void)
{
	int max = 0;

	for (size_t i = 0; i < NELEM(native); i++)
		if (native[i].nr > max)
			max = native[i].nr;
	return max;
}

int sc_syscall_resolve(const char *name, int *nr)
{
	size_t lo = 0, hi = NELEM(native);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, (const char *)&pool + native[mid].off);

		if (!c) {
			*nr = native[mid].nr;
			return 0;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	for (size_t i = 0; i < NELEM(foreign); i++)
		if (!strcmp(name, foreign[i].name)) {
			*nr = foreign[i].nr;
			return 0;
		}
	return -1;
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
/* An anonymous AF_UNIX stream (or seqpacket) pair reaches nothing
 * outside the process tree that made it: asyncio's self-pipe,
 * multiprocessing.Pipe() and libuv's child stdio need one. A datagram
 * pair does not stay anonymous: sendto() or connect() with a path sends to
 * any datagram socket the sandbox can see (a host daemon's, through a
 * bind). The type's bit 1 is set in SOCK_DGRAM (2), SOCK_RAW (3, which
 * AF_UNIX turns into a datagram socket) and SOCK_PACKET (10), clear in
 * SOCK_STREAM (1) and SOCK_SEQPACKET (5); the flags (SOCK_CLOEXEC,
 * SOCK_NONBLOCK) sit far above it. A family other than AF_UNIX, high bits
 * included, is refused (fail closed). */
#define SOCKETPAIR_NOT_ANON_UNIX \
	"socketpair arg0!=AF_UNIX", "socketpair arg1&0x2==0x2"

static const char *const python_tool[] = {
	/* the seed's set, socketpair narrowed to what reaches something */
	"socket", SOCKETPAIR_NOT_ANON_UNIX, "ptrace", "bpf", "userfaultfd",
	"perf_event_open", "process_vm_readv", "process_vm_writev",
	"kexec_load", "kexec_file_load", "open_by_handle_at",
	"name_to_handle_at", "fanotify_init", "fanotify_mark", NULL,
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
static const char *const proxy_client[] = {
	/* What a net-proxy sandbox needs: TCP over IPv4 and IPv6, to its
	 * own loopback (the proxy's listener; nothing else is there). Every
	 * other family (AF_UNIX included: a socket could reach a host
	 * socket under a bind) and every type but SOCK_STREAM (UDP, raw,
	 * packet) is refused. family is an int: < and > compare all 64
	 * bits, so high bits make a value refused (fail closed). */
	"socket arg0<2", "socket arg0>10", "socket arg0==3", "socket arg0==4",
	"socket arg0==5", "socket arg0==6", "socket arg0==7",
	"socket arg0==8", "socket arg0==9",
	"socket arg1&0xf==2", "socket arg1&0xf==3", "socket arg1&0xf==4",
	"socket arg1&0xf==5", "socket arg1&0xf==6", "socket arg1&0xf==10",
	SOCKETPAIR_NOT_ANON_UNIX, "socketcall", NULL,
};
static const char *const unix_sockets[] = {
	/* family is an int: the kernel ignores the high 32 bits, so a
	 * plain == would let 1<<32|AF_UNIX through. */
	"socket arg0&0xffffffff==AF_UNIX", "socketpair arg1&0x2==0x2",
	"socketcall", NULL,
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
	/* fanotify watches other processes' file accesses (and reports
	 * their pids) on whatever the sandbox can see. */
	"ptrace", "process_vm_readv", "process_vm_writev", "perf_event_open",
	"kcmp", "fanotify_init", "fanotify_mark", NULL,
};
static const char *const obsolete[] = {
	"uselib", "acct", "quotactl", "swapon", "swapoff", "reboot",
	"_sysctl", "ustat", "sysfs", "lookup_dcookie", "nfsservctl",
	"vhangup", "iopl", "ioperm", "create_module", "get_kernel_syms",
	"query_module", "settimeofday", "clock_settime", "clock_adjtime",
	"adjtimex", "pciconfig_read", "pciconfig_write", "kexec_load",
	"kexec_file_load",
	/* 16-bit segments (Wine, dosemu): a long record of kernel bugs
	 * (CVE-2014-8133, CVE-2015-5157, CVE-2017-17806) for no use a
	 * sandboxed tool has. Also in @cpu-emulation. */
	"modify_ldt", NULL,
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
	{ "python-tool",
	  "every socket but an anonymous AF_UNIX stream pair; tracing, bpf, "
	  "userfaultfd, kexec, file handles",
	  python_tool },
	{ "network", "creating sockets of any family", network },
	{ "inet", "sockets of every family but AF_UNIX", inet },
	{ "proxy-client",
	  "every socket but TCP over IPv4/IPv6 (the egress proxy on the "
	  "sandbox's loopback) and an anonymous AF_UNIX stream pair",
	  proxy_client },
	{ "unix-sockets",
	  "AF_UNIX sockets but an anonymous stream pair (host sockets "
	  "behind binds)",
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
