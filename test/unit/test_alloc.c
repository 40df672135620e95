/* The programs' allocator (pkg/util/alloc.c): the C library's contracts,
 * reuse within a size class, and no memory ever given back to the kernel
 * (that last one is why it exists: see the file's comment). */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "util/alloc.h"
#include "tap.h"

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Sizes the compiler cannot see, so that it does not reject the calls. */
static volatile size_t huge = SIZE_MAX / 2;

int main(void)
{
	unsigned char *a, *b, *c;
	void *p;
	size_t i;

	a = malloc(100);
	ok(a && ((uintptr_t)a & 15) == 0, "malloc returns 16-byte aligned memory");
	ok(malloc_usable_size(a) >= 100, "the block holds what was asked");
	memset(a, 0xa5, 100);
	free(a);
	b = malloc(90);
	ok(b == a, "a freed block is reused by the next request of its class");
	c = calloc(10, 10);
	ok(c && all_zero(c, 100), "calloc of fresh memory is zero");
	free(c);
	memset(b, 0xff, malloc_usable_size(b));
	free(b);
	c = calloc(1, 100);
	ok(c == b && all_zero(c, malloc_usable_size(c)),
	   "calloc of a reused block is zeroed again");

	for (i = 0; i < 100; i++)
		c[i] = (unsigned char)i;
	c = realloc(c, 5000);
	for (i = 0; i < 100 && c[i] == (unsigned char)i; i++)
		;
	is_int((int)i, 100, "realloc to a larger class keeps the contents");
	ok(realloc(c, 10) == c, "realloc to a smaller size keeps the block");

	errno = 0;
	ok(!calloc(huge, 4) && errno == ENOMEM,
	   "calloc refuses a size that overflows (ENOMEM)");
	errno = 0;
	ok(!malloc(huge + huge - 8) && errno == ENOMEM,
	   "malloc refuses a size no class holds (ENOMEM)");

	p = aligned_alloc(4096, 100);
	ok(p && ((uintptr_t)p & 4095) == 0, "aligned_alloc honours 4096");
	ok(malloc_usable_size(p) >= 100, "an over-aligned block holds its size");
	free(p);
	ok(posix_memalign(&p, 64, 10) == 0 && ((uintptr_t)p & 63) == 0,
	   "posix_memalign honours 64");
	is_int(posix_memalign(&p, 3, 10), EINVAL,
	       "posix_memalign refuses an alignment that is not a power of two");

	/* A long-lived process (the guard, pid 1) that allocates and frees
	 * in a loop must stay bounded: the same blocks come back. */
	a = malloc(3000);
	free(a);
	for (i = 0; i < 100000; i++) {
		b = malloc(3000);
		free(b);
	}
	ok(b == a, "a malloc/free loop reuses one block");

	/* alloc_prefault: a new block's following pages are resident before
	 * anything touches them, and the block is still zeroed memory. */
	if (madvise(NULL, 0, 23 /* MADV_POPULATE_WRITE */) < 0) {
		skip(2, "no MADV_POPULATE_WRITE (Linux < 5.14)");
	} else {
		unsigned char vec[4] = { 0 };
		uintptr_t pg;

		alloc_prefault(64 << 10);
		c = calloc(1, 6000);	/* a class not carved before */
		alloc_prefault(0);
		pg = ((uintptr_t)c & ~(uintptr_t)4095) + 8192;
		ok(mincore((void *)pg, 4 * 4096, vec) == 0 && (vec[3] & 1),
		   "alloc_prefault: the pages after a new block are resident");
		ok(c && all_zero(c, 6000), "a prefaulted block is zeroed");
	}

	/* 200 MiB in 1 MiB blocks: more than one reserved region. */
	for (i = 0; i < 200; i++)
		if (!(p = malloc(1 << 20)))
			break;
	is_int((int)i, 200, "allocations continue past the first region");
	return done_testing();
}
