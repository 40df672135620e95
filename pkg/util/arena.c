#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* A chunk with its header and malloc's fills one 32 KiB block of
 * alloc.c's power-of-two classes (16 KiB and a header took one anyway):
 * a plan fits one chunk, and each further chunk is one more page to
 * fault. Only what is used is ever touched. */
#define CHUNK (32768 - 128)

struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct arena {
	struct chunk *head;
};

struct arena *arena_new(void)
{
	return calloc(1, sizeof(struct arena));
}

void arena_free(struct arena *a)
{
	struct chunk *c, *next;

	if (!a)
		return;
	for (c = a->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(a);
}

void *arena_alloc_raw(struct arena *a, size_t n)
{
	const size_t align = sizeof(max_align_t);
	struct chunk *c = a->head;
	void *p;

	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + align - 1) / align * align;
	if (!n)
		n = align;
	if (!c || c->cap - c->used < n) {
		/* A large block gets a chunk of its own. */
		size_t cap = n > CHUNK / 4 ? n : CHUNK;

		/* malloc, not calloc: zeroing whole chunks up front (and the
		 * page faults that costs) was most of a step's parse time;
		 * arena_alloc zeroes each block when it hands it out. */
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* ... behind the head, whose free room then still serves
		 * the small blocks that follow (each new chunk is one more
		 * page to fault). */
		if (cap == n && a->head) {
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p = arena_alloc_raw(a, n);

	return p ? memset(p, 0, n) : NULL;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}
