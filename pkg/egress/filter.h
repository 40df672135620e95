/* The proxy's seccomp filter, in policy syntax: what its loop calls and
 * nothing else; anything else kills the process. Compiled at build time
 * by tools/egress-bpf.c (with pkg/seccomp, as any policy's rules) into
 * the BPF program that egress_confine() loads: the proxy's start does
 * not parse or compile it. Sockets only TCP and UDP over IPv4/IPv6 (no
 * raw socket, unix, netlink); mmap and mprotect only without PROT_EXEC
 * (0x4): no new code in the process that reads the sandbox's bytes.
 * test/probe/egress_probe.c checks the loaded program refuses open,
 * exec, fork and the other sockets. */
#ifndef PYSBX_EGRESS_FILTER_H
#define PYSBX_EGRESS_FILTER_H

#define EG_FILTER_TEXT                                                      \
	"seccomp default kill\n"                                           \
	"seccomp allow read write writev close poll ppoll recvfrom sendto " \
	"recvmsg connect accept4 getsockopt setsockopt shutdown "          \
	"clock_gettime exit exit_group rt_sigreturn brk munmap mremap "    \
	"madvise getrandom restart_syscall pipe2 splice rt_sigprocmask "   \
	"signalfd4\n"                                                      \
	"seccomp allow socket if arg0==AF_INET arg1&0xf==1\n"              \
	"seccomp allow socket if arg0==AF_INET arg1&0xf==2\n"              \
	"seccomp allow socket if arg0==AF_INET6 arg1&0xf==1\n"             \
	"seccomp allow socket if arg0==AF_INET6 arg1&0xf==2\n"             \
	"seccomp allow mmap if arg2&0x4==0\n"                              \
	"seccomp allow mprotect if arg2&0x4==0\n"

#endif
