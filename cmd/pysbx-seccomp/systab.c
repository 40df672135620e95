/* libseccomp's syscall name table, replaced in this program by pysbx's own.
 *
 * Why: libseccomp keeps the syscall names and numbers of all 16 ABIs it
 * knows in one gperf table (syscalls.perf.o: 56 KiB, a quarter of the
 * stripped pysbx-seccomp), and every ABI's definition points at the functions
 * below, so the linker keeps the table although our filters name x86_64
 * syscalls by number. These three functions are all that object offers
 * besides the table: defined here, on the link line before libseccomp.a,
 * they keep the archive member out. (Only in this program: test_seccomp
 * links the real table and checks pkg/seccomp/names.c against it, both
 * ways.)
 *
 * What asks in pysbx-seccomp: --list (gen_pfc names the syscall of each
 * "# filter for syscall" line) and libseccomp's probe for the number of
 * seccomp(2), which the API level set in compile.c skips. Both ask about
 * the native ABI, x86_64, the only one our filters hold: it is answered
 * from pkg/seccomp/names.c; any other ABI gets "unknown", which
 * libseccomp only asks for when a filter holds that ABI. */
#include <stddef.h>

#include <seccomp.h>
#include "scnames/scnames.h"

/* Signatures and table layout of libseccomp's src/syscalls.h, which is
 * not installed: check them again before moving to another release. */
#if SCMP_VER_MAJOR != 2 || SCMP_VER_MINOR != 5 || SCMP_VER_MICRO != 4
#error "systab.c mirrors libseccomp 2.5.4's src/syscalls.h: check it"
#endif

/* The head of struct arch_syscall_table: a column's offset names the
 * ABI (OFFSET_ARCH). */
struct table_head {
	int name, index, x86, x86_64;
};
#define X86_64 ((int)offsetof(struct table_head, x86_64))

struct arch_syscall_def {
	const char *name;
	unsigned int num;
};

int syscall_resolve_name(const char *name, int offset);
const char *syscall_resolve_num(int num, int offset);
const struct arch_syscall_def *syscall_iterate(unsigned int spot,
					       int offset);

int syscall_resolve_name(const char *name, int offset)
{
	int nr;

	if (offset != X86_64 || sc_syscall_resolve(name, &nr) < 0)
		return __NR_SCMP_ERROR;
	return nr;
}

const char *syscall_resolve_num(int num, int offset)
{
	const char *name;
	int nr;

	if (offset != X86_64)
		return NULL;
	for (int abis = 0; abis < 2; abis++)
		for (size_t i = 0; (name = sc_syscall_at(abis, i, &nr)); i++)
			if (nr == num)
				return name;
	return NULL;
}

/* Only libseccomp's arch-syscall-dump tool iterates; not thread-safe,
 * like the original. */
const struct arch_syscall_def *syscall_iterate(unsigned int spot, int offset)
{
	static struct arch_syscall_def def;
	int nr;

	def.name = offset == X86_64 ? sc_syscall_at(0, spot, &nr) : NULL;
	def.num = def.name ? (unsigned)nr : (unsigned)__NR_SCMP_ERROR;
	return &def;
}
