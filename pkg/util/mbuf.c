/* A growing buffer: malloc'd while small, mapped when large. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/mbuf.h"

#define MBUF_MAP (64 * 1024)

bool mbuf_room(struct mbuf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	char *np;

	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	while (cap < b->len + n + 1)
		cap *= 2;
	if (cap <= MBUF_MAP) {
		np = realloc(b->p, cap);
	} else if (b->cap > MBUF_MAP) {
		np = mremap(b->p, b->cap, cap, MREMAP_MAYMOVE);
		np = np == MAP_FAILED ? NULL : np;
	} else {
		np = mmap(NULL, cap, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		np = np == MAP_FAILED ? NULL : np;
		if (np && b->len)
			memcpy(np, b->p, b->len);
		if (np)
			free(b->p);
	}
	if (!np) {
		b->oom = true;
		return false;
	}
	b->p = np;
	b->cap = cap;
	return true;
}

void mbuf_put(struct mbuf *b, const char *p, size_t n)
{
	if (!mbuf_room(b, n))
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mbuf_free(struct mbuf *b)
{
	if (b->cap > MBUF_MAP)
		munmap(b->p, b->cap);
	else
		free(b->p);
	*b = (struct mbuf){ 0 };
}
