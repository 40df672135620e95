#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/file.h"

int file_read_line(const char *path, char *buf, size_t len)
{
	/* openat, not open: musl's open adds an fcntl for O_CLOEXEC. */
	int fd = openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC), e;
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
