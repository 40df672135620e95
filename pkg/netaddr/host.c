/* Host names as requests and rules write them. Only what DNS names and
 * literal addresses can be: a byte that is not a letter, a digit, '.',
 * '-' or '_' is refused (NUL, CR, LF and spaces split or inject lines
 * downstream; '%', '@' and '\\' are URL syntax that parsers read
 * differently; non-ASCII would need IDNA, which we do not guess). */
#include <string.h>

#include "netaddr/netaddr.h"

static bool name_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Does the label s[0..n) read as a number to inet_aton or a URL parser
 * (all digits, or 0x and hex digits)? */
static bool numeric_label(const char *s, size_t n)
{
	size_t i = 0;

	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		for (i = 2; i < n; i++)
			if (!((s[i] >= '0' && s[i] <= '9') ||
			      (s[i] >= 'a' && s[i] <= 'f') ||
			      (s[i] >= 'A' && s[i] <= 'F')))
				return false;
		return true;
	}
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return n > 0;
}

enum px_host_err px_host_parse(const char *s, size_t n, bool strict,
			       struct px_host *out)
{
	size_t start = 0, last = 0;
	bool upper = false;

	memset(out, 0, sizeof(*out));
	if (!n)
		return PXH_EMPTY;
	if (s[0] == '[') {
		if (px_addr_parse(s, n, &out->addr) < 0)
			return PXH_IPV6;
		out->kind = PX_IP;
		px_addr_text(&out->addr, out->name);
		return PXH_OK;
	}
	for (size_t i = 0; i < n; i++) {
		if (!name_byte((unsigned char)s[i]))
			return PXH_CHAR;
		if (s[i] >= 'A' && s[i] <= 'Z')
			upper = true;
	}
	if (upper && strict)
		return PXH_UPPER;
	/* "example.com." is example.com to a resolver: one trailing dot
	 * is dropped, or a rule could be passed by. */
	if (s[n - 1] == '.') {
		if (strict)
			return PXH_DOT;
		n--;
		if (!n)
			return PXH_LABEL;
	}
	if (n > PX_HOST_MAX)
		return PXH_LONG;
	for (size_t i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (i == start || s[start] == '-' || s[i - 1] == '-')
			return PXH_LABEL;
		if (i - start > 63)
			return PXH_LONG;
		last = start;
		start = i + 1;
	}
	if (numeric_label(s + last, n - last)) {
		/* An address, in the one form we read: a dotted quad. */
		if (px_addr_parse(s, n, &out->addr) < 0)
			return PXH_NUMERIC;
		out->kind = PX_IP;
		px_addr_text(&out->addr, out->name);
		return PXH_OK;
	}
	out->kind = PX_NAME;
	for (size_t i = 0; i < n; i++)
		out->name[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32
								  : s[i]);
	out->name[n] = '\0';
	return PXH_OK;
}

const char *px_host_strerror(enum px_host_err e)
{
	switch (e) {
	case PXH_OK: return "valid";
	case PXH_EMPTY: return "the host is empty";
	case PXH_LONG: return "the host is longer than 253 bytes or has a "
			      "label longer than 63";
	case PXH_CHAR: return "the host holds a byte other than letters, "
			      "digits, '.', '-' and '_' (no IDNA: write "
			      "xn-- names)";
	case PXH_LABEL: return "the host has an empty label or one that "
			       "starts or ends with '-'";
	case PXH_NUMERIC: return "the host is a number but not a dotted-quad "
				 "IPv4 address (a.b.c.d, no leading zeros)";
	case PXH_IPV6: return "the host is not a valid IPv6 address in "
			      "brackets (zone ids are not accepted)";
	case PXH_UPPER: return "upper case";
	case PXH_DOT: return "trailing dot";
	}
	return "invalid";
}

/* A port: 1-65535 in decimal, no sign, no leading zero (so that one
 * port has one spelling in rules, requests and the log). */
int px_port_parse(const char *s, size_t n, unsigned *out)
{
	unsigned v = 0;

	if (!n || n > 5 || s[0] == '0')
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (v > 65535)
		return -1;
	*out = v;
	return 0;
}
