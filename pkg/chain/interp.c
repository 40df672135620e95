/* Why an execve of an existing file said ENOENT: its ELF interpreter or
 * its #! interpreter is missing. The kernel reports that as if the file
 * itself were absent, which sends a user looking for the wrong file. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chain/chain.h"

/* The #! interpreter of the first line in buf (n bytes) into out. */
static int shebang(const char *buf, size_t n, char *out, size_t len, bool *cr)
{
	size_t i = 2, k = 0;

	while (i < n && (buf[i] == ' ' || buf[i] == '\t'))
		i++;
	while (i < n && buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' &&
	       k + 1 < len)
		out[k++] = buf[i++];
	out[k] = '\0';
	*cr = k > 0 && out[k - 1] == '\r';
	return k ? 0 : -1;
}

/* PT_INTERP of the ELF file fd whose first n bytes are in buf. */
static int elf_interp(int fd, const unsigned char *buf, size_t n, char *out,
		      size_t len)
{
	unsigned long phoff, phnum, phentsize;
	bool is64 = buf[EI_CLASS] == ELFCLASS64;

	if (is64 && n >= sizeof(Elf64_Ehdr)) {
		const Elf64_Ehdr *e = (const void *)buf;

		phoff = e->e_phoff;
		phnum = e->e_phnum;
		phentsize = e->e_phentsize;
	} else if (!is64 && n >= sizeof(Elf32_Ehdr)) {
		const Elf32_Ehdr *e = (const void *)buf;

		phoff = e->e_phoff;
		phnum = e->e_phnum;
		phentsize = e->e_phentsize;
	} else {
		return -1;
	}
	if (phnum > 256 ||
	    phentsize < (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) ||
	    phentsize > 256)
		return -1;
	for (unsigned long i = 0; i < phnum; i++) {
		union {
			Elf64_Phdr p64;
			Elf32_Phdr p32;
		} ph;
		unsigned long off, sz;
		ssize_t r;

		if (pread(fd, &ph, is64 ? sizeof(ph.p64) : sizeof(ph.p32),
			  (off_t)(phoff + i * phentsize)) <= 0)
			return -1;
		if ((is64 ? ph.p64.p_type : ph.p32.p_type) != PT_INTERP)
			continue;
		off = is64 ? ph.p64.p_offset : ph.p32.p_offset;
		sz = is64 ? ph.p64.p_filesz : ph.p32.p_filesz;
		if (!sz || sz >= len)
			return -1;
		r = pread(fd, out, sz, (off_t)off);
		if (r != (ssize_t)sz)
			return -1;
		out[sz - 1] = '\0'; /* NUL-terminated in the file */
		return 0;
	}
	return -1;
}

/* The first component of an absolute path: "/lib64" of
 * "/lib64/ld-linux-x86-64.so.2". */
static void top_dir(const char *path, char *out, size_t len)
{
	const char *e = strchr(path + 1, '/');
	size_t n = e ? (size_t)(e - path) : strlen(path);

	snprintf(out, len, "%.*s", (int)n, path);
}

/* The directories merged /usr turns into links (Debian 12, Fedora). */
static bool merged_usr(const char *top)
{
	static const char *const dirs[] = { "/bin",   "/sbin",	"/lib",
					    "/lib32", "/lib64", "/libx32" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (!strcmp(top, dirs[i]))
			return true;
	return false;
}

static void hint_line(struct diag *d, const char *interp)
{
	char top[256];

	if (interp[0] != '/') {
		diag_hint(d, "the interpreter must be an absolute path");
		return;
	}
	top_dir(interp, top, sizeof(top));
	if (!strcmp(top, "/usr"))
		diag_hint(d, "if it exists on the host, add the line "
			     "'ro-bind /usr /usr' to the policy");
	else if (merged_usr(top))
		diag_hint(d,
			  "add a line that puts %s in the sandbox: "
			  "'symlink usr%s %s' where the host's %s is a link "
			  "into /usr (merged /usr, as on Debian 12), else "
			  "'ro-bind %s %s'",
			  top, top, top, top, top, top);
	else
		diag_hint(d,
			  "if it exists on the host, add the line "
			  "'ro-bind %s %s' to the policy",
			  top, top);
}

/* path is a symlink (through further ones) to a missing absolute path:
 * that path into out. Debian's /usr/lib64/ld-linux-x86-64.so.2 points
 * into /lib, so binding /lib64 alone is not enough. */
static int dangling_end(const char *path, char *out, size_t len)
{
	char cur[256], link[256];
	struct stat st;
	ssize_t n;
	int hops;

	snprintf(cur, sizeof(cur), "%s", path);
	for (hops = 0; hops < 8; hops++) {
		if (fstatat(AT_FDCWD, cur, &st, AT_SYMLINK_NOFOLLOW) < 0)
			break;
		if (!S_ISLNK(st.st_mode))
			return -1;
		n = readlink(cur, link, sizeof(link) - 1);
		if (n <= 0)
			return -1;
		link[n] = '\0';
		if (link[0] == '/') {
			snprintf(cur, sizeof(cur), "%s", link);
		} else {
			char *slash = strrchr(cur, '/');

			if (!slash || (size_t)(slash - cur) + 1 + (size_t)n >=
					      sizeof(cur))
				return -1;
			memcpy(slash + 1, link, (size_t)n + 1);
		}
	}
	if (!hops || hops == 8 || errno != ENOENT || !strcmp(cur, path))
		return -1;
	snprintf(out, len, "%s", cur);
	return 0;
}

int chain_explain_enoent(struct diag *d, const char *what, const char *path,
			 int depth)
{
	unsigned char buf[256];
	char interp[256];
	const char *kind;
	bool cr = false;
	ssize_t n;
	int fd;

	fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	if (n >= 4 && !memcmp(buf, ELFMAG, SELFMAG)) {
		kind = "ELF interpreter";
		n = elf_interp(fd, buf, (size_t)n, interp, sizeof(interp));
	} else if (n >= 2 && buf[0] == '#' && buf[1] == '!') {
		kind = "#! interpreter";
		n = shebang((const char *)buf, (size_t)n, interp,
			    sizeof(interp), &cr);
	} else {
		n = -1;
	}
	close(fd);
	if (n < 0)
		return -1;
	if (cr) {
		diag_fail(d, EXIT_NOTFOUND, 0,
			  "unable to execute %s%s: its #! line ends in a "
			  "carriage return (\"%.*s\\r\" does not exist)",
			  what, path, (int)strlen(interp) - 1, interp);
		diag_hint(d, "the script has CRLF line ends: convert it with "
			     "sed -i 's/\\r$//' FILE (or dos2unix)");
		return 0;
	}
	if (faccessat(AT_FDCWD, interp, F_OK, 0) < 0) {
		char end[256];

		if (dangling_end(interp, end, sizeof(end)) == 0) {
			diag_fail(d, EXIT_NOTFOUND, 0,
				  "unable to execute %s%s: its %s %s is a "
				  "symlink to %s, which does not exist in the "
				  "sandbox",
				  what, path, kind, interp, end);
			hint_line(d, end);
			return 0;
		}
		diag_fail(d, EXIT_NOTFOUND, 0,
			  "unable to execute %s%s: its %s %s does not exist "
			  "in the sandbox",
			  what, path, kind, interp);
		hint_line(d, interp);
		return 0;
	}
	/* The interpreter is there: its own interpreter may not be. */
	if (depth < 4 && chain_explain_enoent(d, what, interp, depth + 1) == 0)
		return 0;
	return -1;
}
