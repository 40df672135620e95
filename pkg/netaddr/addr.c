/* IP addresses: literals as rules and requests write them, and the class
 * of an address a name resolved to (a name that resolves to 127.0.0.1 or
 * 169.254.169.254 is DNS rebinding to the host's services unless the
 * policy names that address). Own parsers, not inet_pton: musl and glibc
 * differ at the edges (leading zeros), and the fuzzer runs on glibc. */
#include <netinet/in.h>
#include <string.h>

#include "netaddr/netaddr.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Exactly four decimal parts 0-255 without leading zeros: "127.1",
 * "0177.0.0.1" and "0x7f.0.0.1" mean 127.0.0.1 to inet_aton and are
 * refused, never guessed. */
static int ip4(const char *s, size_t n, uint8_t *out)
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		unsigned v = 0;
		size_t d = 0;

		if (part) {
			if (i >= n || s[i] != '.')
				return -1;
			i++;
		}
		while (i < n && s[i] >= '0' && s[i] <= '9' && d < 4) {
			v = v * 10 + (unsigned)(s[i] - '0');
			i++;
			d++;
		}
		if (!d || d > 3 || v > 255 || (d > 1 && s[i - d] == '0'))
			return -1;
		out[part] = (uint8_t)v;
	}
	return i == n ? 0 : -1;
}

/* RFC 4291 2.2: eight groups of 1-4 hex digits, one "::" for a run of
 * zero groups, an IPv4 dotted quad as the last 32 bits. */
static int ip6(const char *s, size_t n, uint8_t *out)
{
	uint16_t g[8];
	int ng = 0, gap = -1;
	size_t i = 0;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	} else if (n && s[0] == ':') {
		return -1;
	}
	while (i < n) {
		size_t start = i;
		unsigned v = 0;
		int h;

		if (ng == 8)
			return -1;
		while (i < n && i - start < 5 && (h = hexval(s[i])) >= 0) {
			v = v * 16 + (unsigned)h;
			i++;
		}
		if (i < n && s[i] == '.') {
			uint8_t q[4];

			/* the trailing IPv4 part: two groups */
			if (ng > 6 || ip4(s + start, n - start, q) < 0)
				return -1;
			g[ng++] = (uint16_t)(q[0] << 8 | q[1]);
			g[ng++] = (uint16_t)(q[2] << 8 | q[3]);
			break;
		}
		if (i == start || i - start > 4)
			return -1;
		g[ng++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i] != ':')
			return -1;
		i++;
		if (i < n && s[i] == ':') {
			if (gap >= 0)
				return -1;
			gap = ng;
			i++;
			continue;
		}
		if (i == n)	/* a trailing single ':' */
			return -1;
	}
	if (gap < 0 && ng != 8)
		return -1;
	if (gap >= 0 && ng > 7)
		return -1;
	memset(out, 0, 16);
	for (int k = 0; k < ng; k++) {
		int at = gap >= 0 && k >= gap ? 8 - ng + k : k;

		out[2 * at] = (uint8_t)(g[k] >> 8);
		out[2 * at + 1] = (uint8_t)g[k];
	}
	return 0;
}

static const uint8_t mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0,
					   0, 0, 0xff, 0xff };
/* 64:ff9b::/96, the well-known NAT64 prefix: an IPv4 address inside. */
static const uint8_t nat64_prefix[12] = { 0, 0x64, 0xff, 0x9b };

/* ::ffff:a.b.c.d reaches a.b.c.d: store it as that. */
void px_addr_unmap(struct px_addr *a)
{
	if (a->family == 6 && !memcmp(a->a, mapped_prefix, 12)) {
		memmove(a->a, a->a + 12, 4);
		memset(a->a + 4, 0, 12);
		a->family = 4;
	}
}

int px_addr_parse(const char *s, size_t n, struct px_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		s++;
		n -= 2;
	} else if (memchr(s, ':', n) == NULL) {
		if (ip4(s, n, out->a) < 0)
			return -1;
		out->family = 4;
		return 0;
	}
	if (!n || ip6(s, n, out->a) < 0)
		return -1;
	out->family = 6;
	px_addr_unmap(out);
	return 0;
}

int px_addr_from_sa(const struct sockaddr *sa, socklen_t len,
		    struct px_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		memcpy(out->a, &((const struct sockaddr_in *)sa)->sin_addr, 4);
		out->family = 4;
		return 0;
	}
	if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		memcpy(out->a, &((const struct sockaddr_in6 *)sa)->sin6_addr,
		       16);
		out->family = 6;
		px_addr_unmap(out);
		return 0;
	}
	return -1;
}

bool px_addr_eq(const struct px_addr *a, const struct px_addr *b)
{
	return a->family == b->family &&
	       !memcmp(a->a, b->a, a->family == 4 ? 4 : 16);
}

bool px_addr_same(const struct px_addr *r, const struct px_addr *a)
{
	struct px_addr v4 = { .family = 4 };

	if (px_addr_eq(r, a))
		return true;
	if (a->family != 6 || r->family != 4 ||
	    (memcmp(a->a, mapped_prefix, 12) && memcmp(a->a, nat64_prefix, 12)))
		return false;
	memcpy(v4.a, a->a + 12, 4);
	return px_addr_eq(r, &v4);
}

static char *dec(char *o, unsigned v)
{
	if (v >= 100)
		*o++ = (char)('0' + v / 100);
	if (v >= 10)
		*o++ = (char)('0' + v / 10 % 10);
	*o++ = (char)('0' + v % 10);
	return o;
}

char *px_addr_text(const struct px_addr *a, char *buf)
{
	char *o = buf;
	int best = -1, bestn = 1;

	if (a->family == 4) {
		for (int i = 0; i < 4; i++) {
			if (i)
				*o++ = '.';
			o = dec(o, a->a[i]);
		}
		*o = '\0';
		return buf;
	}
	/* RFC 5952 4.2: the longest run of two or more zero groups (the
	 * first of equals) becomes "::". */
	for (int i = 0; i < 8;) {
		int j = i;

		while (j < 8 && !a->a[2 * j] && !a->a[2 * j + 1])
			j++;
		if (j - i > bestn) {
			best = i;
			bestn = j - i;
		}
		i = j > i ? j : i + 1;
	}
	*o++ = '[';
	for (int i = 0; i < 8; i++) {
		unsigned v = (unsigned)(a->a[2 * i] << 8 | a->a[2 * i + 1]);
		int started = 0;

		if (i == best) {
			*o++ = ':';
			if (i == 0)
				*o++ = ':';
			i += bestn - 1;
			continue;
		}
		for (int sh = 12; sh >= 0; sh -= 4) {
			unsigned d = (v >> sh) & 15;

			if (d || started || !sh) {
				*o++ = "0123456789abcdef"[d];
				started = 1;
			}
		}
		if (i < 7)
			*o++ = ':';
	}
	*o++ = ']';
	*o = '\0';
	return buf;
}

static bool in4(const uint8_t *a, uint8_t b0, uint8_t b1, uint8_t b2,
		unsigned bits)
{
	uint32_t x = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 |
		     (uint32_t)a[2] << 8 | a[3];
	uint32_t net = (uint32_t)b0 << 24 | (uint32_t)b1 << 16 |
		       (uint32_t)b2 << 8;
	uint32_t mask = bits ? ~(uint32_t)0 << (32 - bits) : 0;

	return (x & mask) == net;
}

static enum px_class class4(const uint8_t *a)
{
	if (in4(a, 0, 0, 0, 8))
		return PX_UNSPEC;
	if (in4(a, 127, 0, 0, 8))
		return PX_LOOPBACK;
	if (in4(a, 10, 0, 0, 8) || in4(a, 172, 16, 0, 12) ||
	    in4(a, 192, 168, 0, 16))
		return PX_PRIVATE;
	if (in4(a, 169, 254, 0, 16))
		return PX_LINKLOCAL;
	if (in4(a, 100, 64, 0, 10))
		return PX_CGNAT;
	if (in4(a, 224, 0, 0, 4) ||
	    (a[0] == 255 && a[1] == 255 && a[2] == 255 && a[3] == 255))
		return PX_MULTICAST;
	if (in4(a, 192, 0, 0, 24) || in4(a, 192, 0, 2, 24) ||
	    in4(a, 192, 88, 99, 24) || in4(a, 198, 18, 0, 15) ||
	    in4(a, 198, 51, 100, 24) || in4(a, 203, 0, 113, 24) ||
	    in4(a, 240, 0, 0, 4))
		return PX_RESERVED;
	return PX_PUBLIC;
}

enum px_class px_classify(const struct px_addr *ad)
{
	const uint8_t *a = ad->a;
	uint8_t z[16] = { 0 };

	if (ad->family == 4)
		return class4(a);
	if (!memcmp(a, z, 16))
		return PX_UNSPEC;
	if (!memcmp(a, z, 15) && a[15] == 1)
		return PX_LOOPBACK;
	if (!memcmp(a, mapped_prefix, 12))	/* not unmapped by the caller */
		return class4(a + 12);
	if (!memcmp(a, nat64_prefix, 12))
		return class4(a + 12);
	if (!memcmp(a, z, 12))			/* ::a.b.c.d, deprecated */
		return PX_RESERVED;
	if (a[0] == 0xff)
		return PX_MULTICAST;
	if ((a[0] & 0xfe) == 0xfc)
		return PX_PRIVATE;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return PX_LINKLOCAL;
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return PX_PRIVATE;		/* site-local, deprecated */
	if (a[0] == 0 && a[1] == 0x64 && a[2] == 0xff && a[3] == 0x9b &&
	    a[4] == 0 && a[5] == 1)
		return PX_PRIVATE;		/* 64:ff9b:1::/48 local NAT64 */
	if (a[0] == 1 && !a[1] && !memcmp(a + 2, z, 6))
		return PX_RESERVED;		/* 100::/64 discard */
	if (a[0] == 0x20 && a[1] == 0x01 && (a[2] & 0xfe) == 0)
		return PX_RESERVED;		/* 2001::/23 (Teredo, ...) */
	if (a[0] == 0x20 && a[1] == 0x01 && a[2] == 0x0d && a[3] == 0xb8)
		return PX_RESERVED;		/* documentation */
	if (a[0] == 0x20 && a[1] == 0x02)
		return PX_RESERVED;		/* 6to4: an IPv4 inside */
	return PX_PUBLIC;
}

const char *px_class_name(enum px_class c)
{
	static const char *const n[] = {
		[PX_PUBLIC] = "public",		[PX_UNSPEC] = "unspecified",
		[PX_LOOPBACK] = "loopback",	[PX_PRIVATE] = "private",
		[PX_LINKLOCAL] = "link-local",	[PX_CGNAT] = "shared (CGNAT)",
		[PX_MULTICAST] = "multicast",	[PX_RESERVED] = "reserved",
	};

	return (unsigned)c < sizeof(n) / sizeof(n[0]) ? n[c] : "?";
}
