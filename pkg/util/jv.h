/* jv: a bounded JSON reader. One pass checks a message (RFC 8259, UTF-8
 * only) and records every value as a node over its text; nothing is
 * copied, and a string is decoded only when asked for. For text from
 * programs that are not trusted to be well-formed (an MCP client, a
 * session client, the sandbox's worker): every limit is checked and
 * reported, never a crash. */
#ifndef PYSBX_UTIL_JV_H
#define PYSBX_UTIL_JV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/mbuf.h"

#define JV_DEPTH_MAX 64

/* --- jv.c ---------------------------------------------------------- */

enum jv_type { JV_NULL, JV_FALSE, JV_TRUE, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

/* One value: its text is src[start, end) (a string's with its quotes);
 * next is the index of the node after its subtree (the next sibling, or
 * past the parent's last child); n its children (an object's members:
 * each is a key node, then its value's subtree). */
struct jv_node {
	uint8_t type;
	uint32_t start, end, next, n;
};

struct jv {
	const char *src;
	size_t len;
	struct jv_node *node;	/* the caller's, cap entries */
	size_t cap, n;
	const char *why;	/* jv_parse failed: why */
	bool too_big;		/* ... because of cap or depth, not syntax */
};

/* Parse src (len bytes: exactly one JSON value, whitespace around it)
 * strictly: RFC 8259, UTF-8 only, no lone surrogate, nesting at most
 * JV_DEPTH_MAX, at most cap nodes. 0, or -1 with j->why. Node 0 is the
 * root. */
int jv_parse(struct jv *j, const char *src, size_t len,
	     struct jv_node *node, size_t cap);

/* The value of member key of object node obj: its index, -1 none, -2
 * the key is there twice. */
int jv_get(const struct jv *j, int obj, const char *key);

/* A string node decoded into dst (cap bytes, NUL-terminated): its length,
 * or -1 when it does not fit (or is not a string). The decoded bytes are
 * never more than the node's text. */
long jv_str(const struct jv *j, int node, char *dst, size_t cap);

/* Is node a string equal to s? */
bool jv_is(const struct jv *j, int node, const char *s);

/* Its type, or JV_NULL for -1. */
int jv_type(const struct jv *j, int node);

/* String node v decoded into the empty b. 0, or -1. */
int jv_mbuf(const struct jv *j, int v, struct mbuf *b);

#endif
