/* pkg/util/alloc.c replaces malloc, calloc, realloc, free, aligned_alloc,
 * posix_memalign, memalign and malloc_usable_size for every program linked
 * with libpysbx.a: same contracts as the C library's, but freed memory is
 * kept for reuse by blocks of the same power-of-two class and never
 * returned to the kernel (no munmap: see alloc.c for why). */
#ifndef PYSBX_UTIL_ALLOC_H
#define PYSBX_UTIL_ALLOC_H

#include <malloc.h>	/* memalign, malloc_usable_size */
#include <stdlib.h>

#endif
