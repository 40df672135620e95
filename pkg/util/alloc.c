/* The programs' malloc: a bump allocator with power-of-two free lists that
 * never gives memory back to the kernel.
 *
 * Why replace musl's: every pysbx step is a short-lived process that
 * allocates a few hundred small blocks (the plan, libseccomp's rule
 * database) and exits. musl's mallocng returns freed groups to the kernel
 * at once (munmap, madvise), and each munmap flushes the TLB: on the
 * virtual machines our users run agents on, one such call costs 0.1-0.25
 * ms, and a step made up to 22 of them (measured with perf, see
 * docs/BENCHMARKS.md). Here memory comes from one lazily faulted mapping
 * and a freed block goes on its size class's list for reuse, so the
 * long-lived processes (the guard, pid 1) stay bounded too: a block of
 * class c is only ever reused for class c.
 *
 * Linked into every program through libpysbx.a (the linker takes these
 * definitions before musl's). Thread-safe with one spin lock: the
 * programs are single-threaded, a test probe is not. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/alloc.h"

/* The fuzz build (clang, AddressSanitizer) keeps the sanitizer's malloc:
 * ours would hide the heap errors it is there to find. */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PYSBX_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PYSBX_ASAN 1
#endif

#ifdef PYSBX_ASAN
void alloc_prefault(size_t bytes)
{
	(void)bytes;
}
#else

#define ALIGN	 16u
#define MIN_SHIFT 4	/* smallest class: 16 bytes */
#define NCLASS	 48
#define REGION	 ((size_t)64 << 20)	/* reserved, faulted on use */
#define MIN_REGION ((size_t)64 << 10)	/* the smallest under a low limit */
#define KEEP	 NCLASS	/* class of an over-aligned block: never reused */

/* The header keeps user blocks 16-aligned. */
struct block {
	size_t cls;
	size_t fresh;	/* still zero from the kernel: calloc skips memset */
};

static struct block *freelist[NCLASS];
static char *cur, *end;
static char *ready;	/* alloc_prefault: the region is populated below */
static size_t window;	/* alloc_prefault's window, 0: off */
static volatile int lock;

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23	/* Linux 5.14; musl 1.2.3 lacks the name */
#endif

static void take(void)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		;
}

static void give(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* The smallest c >= MIN_SHIFT with 2^c >= n (n > 1: it counts the
 * header). */
static unsigned class_of(size_t n)
{
	unsigned c = 64 - (unsigned)__builtin_clzl(n - 1);

	return c < MIN_SHIFT ? MIN_SHIFT : c;
}

/* Caller holds the lock. The block p..cur was just carved: when it ends
 * past the populated part, populate the next window from where that part
 * (or the block) starts, in one call. Not past the window: the rest of a
 * big block may never be touched. */
static void prefault(char *p)
{
	int e = errno;
	char *a;
	size_t len;

	if (!window || cur <= ready)
		return;
	a = ready > p ? ready : (char *)((uintptr_t)p & ~(uintptr_t)4095);
	len = window < (size_t)(end - a) ? window : (size_t)(end - a);
	/* EINVAL before Linux 5.14, EPERM under a filter that denies it:
	 * fault as usual from then on. */
	if (madvise(a, len, MADV_POPULATE_WRITE) < 0)
		window = 0;
	ready = a + len;
	errno = e;
}

/* Where a region goes: where the kernel put the (unused) brk heap, above
 * the program's data and randomized by the kernel as a brk heap is,
 * rather than near the top of the address space. There it shares the
 * upper page-table pages of the program's text and data: each process
 * (and pid 1's copy) allocates, and frees at its exit or exec, fewer
 * page-table pages, and on the virtual machines our users run agents on
 * each write to an upper page-table level traps to the hypervisor (the
 * whole chain used about 4% less CPU). Only a hint: the kernel maps the
 * region elsewhere when that place is taken, and a failed brk (-errno)
 * rounds to NULL. */
static void *region_hint(void)
{
	uintptr_t brk0 = (uintptr_t)sbrk(0);

	return brk0 ? (void *)((brk0 + 4095) & ~(uintptr_t)4095) : NULL;
}

/* Caller holds the lock. */
static struct block *carve(size_t total)
{
	char *p;

	if ((size_t)(end - cur) < total) {
		size_t len = total > REGION ? total : REGION;

		/* RLIMIT_AS and RLIMIT_DATA count a reservation even when
		 * it is never touched: under `limit as 16M` the chain's
		 * steps still run, on smaller regions (down to the block,
		 * rounded up to 64 KiB). */
		for (;;) {
			p = mmap(region_hint(), len, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
				 -1, 0);
			if (p != MAP_FAILED)
				break;
			if (errno != ENOMEM || len / 2 < total ||
			    len <= MIN_REGION)
				return NULL;
			len = len / 2 > MIN_REGION ? len / 2 : MIN_REGION;
			if (len < total)
				len = (total + MIN_REGION - 1) &
				      ~(MIN_REGION - 1);
		}
		cur = ready = p;
		end = p + len;
	}
	p = cur;
	cur += total;
	prefault(p);
	return (struct block *)p;
}

void alloc_prefault(size_t bytes)
{
	take();
	window = (bytes + 4095) & ~(size_t)4095;
	give();
}

static void *alloc(size_t n, int zero)
{
	struct block *b;
	unsigned c;

	if (n > ((size_t)1 << (NCLASS - 1)) - sizeof(*b)) {
		errno = ENOMEM;
		return NULL;
	}
	c = class_of(n + sizeof(*b));
	take();
	if ((b = freelist[c])) {
		/* fresh is 0 already: cleared when it was first handed out */
		freelist[c] = *(struct block **)(b + 1);
	} else if ((b = carve((size_t)1 << c))) {
		b->cls = c;
		b->fresh = 1;
	}
	give();
	if (!b) {
		errno = ENOMEM;
		return NULL;
	}
	/* What calloc promises: n bytes, not the class's whole size. */
	if (zero && !b->fresh)
		memset(b + 1, 0, n);
	b->fresh = 0;
	return b + 1;
}

void *malloc(size_t n)
{
	return alloc(n, 0);
}

void *calloc(size_t m, size_t n)
{
	if (n && m > SIZE_MAX / n) {
		errno = ENOMEM;
		return NULL;
	}
	return alloc(m * n, 1);
}

void free(void *p)
{
	struct block *b;

	if (!p)
		return;
	b = (struct block *)p - 1;
	if (b->cls == KEEP)
		return;
	take();
	*(struct block **)p = freelist[b->cls];
	freelist[b->cls] = b;
	give();
}

size_t malloc_usable_size(void *p)
{
	struct block *b = (struct block *)p - 1;

	if (!p)
		return 0;
	if (b->cls == KEEP)
		return b->fresh;
	return ((size_t)1 << b->cls) - sizeof(*b);
}

void *realloc(void *p, size_t n)
{
	size_t have = malloc_usable_size(p);
	void *q;

	if (p && n <= have)
		return p;
	if (!(q = malloc(n)))
		return NULL;
	if (p) {
		memcpy(q, p, have);
		free(p);
	}
	return q;
}

/* Only small alignments are asked for by what we link (libseccomp and
 * musl ask for none). A larger one gets a second header in front of the
 * aligned address, marked never to be reused: freeing it leaks the block,
 * which nothing here ever does more than once. */
void *aligned_alloc(size_t align, size_t n)
{
	struct block *b;
	char *p;
	uintptr_t a;

	if (!align || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (align <= ALIGN)
		return malloc(n);
	if (n > SIZE_MAX - 2 * align || !(p = malloc(n + 2 * align)))
		return NULL;
	a = ((uintptr_t)p + sizeof(*b) + align - 1) & ~(uintptr_t)(align - 1);
	b = (struct block *)a - 1;
	b->cls = KEEP;
	b->fresh = n;
	return (void *)a;
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (align < sizeof(void *))
		return EINVAL;
	if (!(p = aligned_alloc(align, n)))
		return errno;
	*out = p;
	return 0;
}

void *memalign(size_t align, size_t n)
{
	return aligned_alloc(align, n);
}
#endif /* PYSBX_ASAN */
