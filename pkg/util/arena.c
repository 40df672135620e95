#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

#define CHUNK 16384

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

void *arena_alloc(struct arena *a, size_t n)
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
		size_t cap = n > CHUNK ? n : CHUNK;

		/* malloc, not calloc: zeroing whole chunks up front (and the
		 * page faults that costs) was most of a step's parse time;
		 * each block is zeroed when handed out instead. */
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = (char *)c->data + c->used;
	c->used += n;
	return memset(p, 0, n);
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
