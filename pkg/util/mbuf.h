/* mbuf: a growing byte buffer, always NUL-terminated. Past 64 KiB it is
 * a mapping of its own, unmapped when freed: the programs' malloc
 * (alloc.c) never gives memory back, and a long-lived process (pysbx
 * mcp, pysbx session) must not keep the pages of one large message. */
#ifndef PYSBX_UTIL_MBUF_H
#define PYSBX_UTIL_MBUF_H

#include <stdbool.h>
#include <stddef.h>

struct mbuf {
	char *p;
	size_t len, cap;
	bool oom;	/* an allocation failed: later output is dropped */
};

/* Room for n more bytes (and the NUL). */
bool mbuf_room(struct mbuf *b, size_t n);
void mbuf_put(struct mbuf *b, const char *p, size_t n);
void mbuf_free(struct mbuf *b);

#endif
