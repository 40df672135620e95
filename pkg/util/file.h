/* file: reading the small one-line files of /proc and /sys. */
#ifndef PYSBX_FILE_H
#define PYSBX_FILE_H

#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

/* Read a small file (a /proc or /sys one, which gives its text in one
 * read) at dirfd/path into buf, NUL-terminated, at most len - 1 bytes.
 * Returns the bytes read (0: empty), or -1 with errno set. */
ssize_t file_read_at(int dirfd, const char *path, char *buf, size_t len);

/* Read the first line of a small file such as a sysctl into buf (newline
 * stripped). Returns 0, or -1 with errno set. */
int file_read_line(const char *path, char *buf, size_t len);

/* Read a sysctl file holding one integer. Returns 0, or -1 when it does not
 * exist or does not hold a number (errno set). */
int file_read_long(const char *path, long *val);

/* A numeric field of a /proc/PID/status text ("Name:\tVALUE\n"), in base
 * 10 or 16: the value must end its line. 0, or -1 when the field is
 * missing or not such a number. */
int file_status_num(const char *text, const char *name, int base,
		    uint64_t *v);

#endif
