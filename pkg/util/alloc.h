/* pkg/util/alloc.c replaces malloc, calloc, realloc, free, aligned_alloc,
 * posix_memalign, memalign and malloc_usable_size for every program linked
 * with libpysbx.a: same contracts as the C library's, but freed memory is
 * kept for reuse by blocks of the same power-of-two class and never
 * returned to the kernel (no munmap: see alloc.c for why). */
#ifndef PYSBX_UTIL_ALLOC_H
#define PYSBX_UTIL_ALLOC_H

#include <malloc.h>	/* memalign, malloc_usable_size */
#include <stdlib.h>

/* From now on, whenever allocation goes past the part of the heap already
 * faulted in, fault in the next bytes (rounded up to pages) with one
 * madvise(MADV_POPULATE_WRITE) instead of one page fault per page: on the
 * VMs pysbx runs on a fault costs about twice what populating a page
 * does. Pages populated but never used stay resident, so this is for a
 * short-lived step that execs soon (pysbx-seccomp), not for the guard or
 * pid 1. 0 turns it off; so does any failure of madvise (a kernel before
 * 5.14, a filter that denies it), for good.
 * Turn it off before a seccomp filter is loaded: the filter may deny
 * madvise. */
void alloc_prefault(size_t bytes);

#endif
