/* arena: a bump allocator whose lifetime is one plan. Nothing is freed on
 * its own; arena_free releases everything at once, which keeps the parser
 * free of ownership bookkeeping and leak-free under the fuzzer. */
#ifndef PYSBX_ARENA_H
#define PYSBX_ARENA_H

#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* Zeroed memory, aligned for any object; NULL when out of memory. */
void *arena_alloc(struct arena *a, size_t n);
/* The same, not zeroed: for arrays whose elements are written whole
 * when used, so that room reserved but never used is never touched. */
void *arena_alloc_raw(struct arena *a, size_t n);
/* Copy of s (n bytes, plus a NUL); NULL when out of memory. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);

#endif
