/* file: reading the small one-line files of /proc and /sys. */
#ifndef PYSBX_FILE_H
#define PYSBX_FILE_H

#include <stddef.h>

/* Read the first line of a small file such as a sysctl into buf (newline
 * stripped). Returns 0, or -1 with errno set. */
int file_read_line(const char *path, char *buf, size_t len);

/* Read a sysctl file holding one integer. Returns 0, or -1 when it does not
 * exist or does not hold a number (errno set). */
int file_read_long(const char *path, long *val);

#endif
