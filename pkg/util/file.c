#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file.h"

ssize_t file_read_at(int dirfd, const char *path, char *buf, size_t len)
{
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC. */
	int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC), e;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	e = errno;
	close(fd);
	if (n < 0) {
		errno = e;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int file_read_line(const char *path, char *buf, size_t len)
{
	if (file_read_at(AT_FDCWD, path, buf, len) < 0)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int file_read_long(const char *path, long *val)
{
	char buf[64], *end;
	long v;

	if (file_read_line(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	v = strtol(buf, &end, 10);
	if (end == buf || *end || errno) {
		errno = EINVAL;
		return -1;
	}
	*val = v;
	return 0;
}

/* "Name:" at a line's start: the value's start, or NULL. */
static const char *status_field(const char *text, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ?
	     p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ':')
			return p + n + 1;
	return NULL;
}

int file_status_num(const char *text, const char *name, int base,
		    uint64_t *v)
{
	const char *p = status_field(text, name);
	char *end;

	if (!p)
		return -1;
	errno = 0;
	*v = strtoull(p, &end, base);
	return errno || end == p || *end != '\n' ? -1 : 0;
}
