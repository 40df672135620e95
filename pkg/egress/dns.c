/* Name resolution for the proxy, on the host (the sandbox has no DNS):
 * /etc/hosts and /etc/resolv.conf are read once, when the proxy starts
 * (it can open no file afterwards: its Landlock ruleset grants none, its
 * seccomp filter allows no open); a name is then looked up in /etc/hosts,
 * else asked of the name servers over UDP, an A and an AAAA query at
 * once, without blocking the loop. Search domains and options of
 * resolv.conf are not applied: a request names a host completely. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "egress/internal.h"

#define DNS_TRY_MS 1500		/* wait per name server before the next */
#define DNS_MAX_MSG 1500
#define HOSTS_MAX (1 << 20)

static char *read_small(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *b;
	size_t n = 0;
	ssize_t r;

	if (fd < 0)
		return NULL;
	b = malloc(max + 1);
	while (b && n < max && (r = read(fd, b + n, max - n)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (b)
		b[n] = 0;
	return b;
}

void eg_dns_init(struct eg_ctx *c)
{
	char *rc = read_small("/etc/resolv.conf", 64 << 10), *line, *save;

	c->nns = 0;
	for (line = rc ? strtok_r(rc, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *w = line + strspn(line, " \t");
		size_t n;

		if (strncmp(w, "nameserver", 10) || !strchr(" \t", w[10]))
			continue;
		w += 10;
		w += strspn(w, " \t");
		n = strcspn(w, " \t\r#;");
		if (c->nns < 3 && px_addr_parse(w, n, &c->ns[c->nns]) == 0)
			c->nns++;
	}
	free(rc);
	/* As the C libraries do: no name server line means 127.0.0.1. */
	if (!c->nns) {
		px_addr_parse("127.0.0.1", 9, &c->ns[0]);
		c->nns = 1;
	}
	c->hosts = read_small("/etc/hosts", HOSTS_MAX);
}

size_t eg_hosts_lookup(const struct eg_ctx *c, const char *name,
		       struct px_addr *out, size_t max)
{
	const char *p = c->hosts;
	size_t n = 0, nl = strlen(name);

	while (p && *p && n < max) {
		const char *eol = strchr(p, '\n'), *e, *w;
		const char *hash;
		struct px_addr a;

		if (!eol)
			eol = p + strlen(p);
		hash = memchr(p, '#', (size_t)(eol - p));
		e = hash ? hash : eol;
		w = p + strspn(p, " \t");
		if (w < e) {
			size_t al = strcspn(w, " \t\r\n#");
			bool ok = px_addr_parse(w, al, &a) == 0;

			w += al;
			while (ok && w < e) {
				size_t l;

				w += strspn(w, " \t\r");
				l = strcspn(w, " \t\r\n#");
				if (w + l > e)
					l = (size_t)(e - w);
				if (l && l == nl && !strncasecmp(w, name, nl)) {
					out[n++] = a;
					break;
				}
				if (!l)
					break;
				w += l;
			}
		}
		p = *eol ? eol + 1 : eol;
	}
	return n;
}

/* --- DNS over UDP ----------------------------------------------------- */

static const uint16_t qtype[2] = { 1, 28 };	/* A, AAAA */

static size_t build_query(uint8_t *m, uint16_t id, const char *name,
			  uint16_t type)
{
	size_t n = 12;

	memset(m, 0, 12);
	m[0] = (uint8_t)(id >> 8);
	m[1] = (uint8_t)id;
	m[2] = 0x01;		/* RD */
	m[5] = 1;		/* QDCOUNT */
	while (*name) {
		size_t l = strcspn(name, ".");

		if (!l || l > 63 || n + l + 1 > 12 + 255)
			return 0;
		m[n++] = (uint8_t)l;
		memcpy(m + n, name, l);
		n += l;
		name += l;
		if (*name == '.')
			name++;
	}
	m[n++] = 0;
	m[n++] = (uint8_t)(type >> 8);
	m[n++] = (uint8_t)type;
	m[n++] = 0;
	m[n++] = 1;		/* IN */
	return n;
}

static int send_queries(const struct eg_ctx *c, struct eg_dnsq *q,
			const char *name)
{
	const struct px_addr *ns = &c->ns[q->tries % c->nns];
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t m[300];

	if (q->fd >= 0)
		close(q->fd);
	memset(&ss, 0, sizeof(ss));
	if (ns->family == 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(53);
		memcpy(&s4->sin_addr, ns->a, 4);
		sl = sizeof(*s4);
	} else {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(53);
		memcpy(&s6->sin6_addr, ns->a, 16);
		sl = sizeof(*s6);
	}
	/* Connected: the kernel drops datagrams from any other address
	 * and port, and the random ids and the question checked below do
	 * the rest against a spoofed answer. */
	q->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&ss, sl) < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		size_t n;

		if (q->done[i])
			continue;
		n = build_query(m, q->id[i], name, qtype[i]);
		if (!n) {
			errno = EINVAL;
			return -1;
		}
		send(q->fd, m, n, MSG_NOSIGNAL);
	}
	q->tries++;
	return 0;
}

int eg_dns_start(const struct eg_ctx *c, struct eg_dnsq *q,
		 const char *name, uint64_t now)
{
	memset(q, 0, sizeof(*q));
	q->fd = -1;
	if (getrandom(q->id, sizeof(q->id), 0) != sizeof(q->id))
		return -1;
	if (q->id[0] == q->id[1])
		q->id[1] ^= 1;
	q->retry_at = now + DNS_TRY_MS;
	return send_queries(c, q, name);
}

int eg_dns_retry(const struct eg_ctx *c, struct eg_dnsq *q, const char *name,
		 uint64_t now)
{
	if (q->tries >= 2 * c->nns)
		return -1;
	q->retry_at = now + DNS_TRY_MS;
	return send_queries(c, q, name);
}

void eg_dns_close(struct eg_dnsq *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
}

/* Skip a (possibly compressed) name at *off; -1 if it runs out. */
static int skip_name(const uint8_t *m, size_t len, size_t *off)
{
	size_t o = *off;

	for (int hops = 0; hops < 128; hops++) {
		if (o >= len)
			return -1;
		if ((m[o] & 0xc0) == 0xc0) {
			if (o + 2 > len)
				return -1;
			*off = o + 2;
			return 0;
		}
		if (m[o] & 0xc0)
			return -1;
		if (!m[o]) {
			*off = o + 1;
			return 0;
		}
		o += 1 + m[o];
	}
	return -1;
}

/* The question must be ours: name (uncompressed, any case), type, IN. */
static int same_question(const uint8_t *m, size_t len, size_t *off,
			 const char *name, uint16_t type)
{
	uint8_t q[300];
	size_t n = build_query(q, 0, name, type) - 12;

	if (*off + n > len)
		return -1;
	for (size_t i = 0; i < n; i++) {
		uint8_t a = m[*off + i], b = q[12 + i];

		if (a >= 'A' && a <= 'Z')
			a = (uint8_t)(a + 32);
		if (a != b)
			return -1;
	}
	*off += n;
	return 0;
}

int eg_dns_read(const struct eg_ctx *c, struct eg_dnsq *q, const char *name,
		struct px_addr *out, size_t *n, size_t max)
{
	uint8_t m[DNS_MAX_MSG];
	ssize_t r;
	size_t len, off = 12, an;
	int which;

	(void)c;
	r = recv(q->fd, m, sizeof(m), MSG_DONTWAIT);
	if (r < 12)
		return -1;
	len = (size_t)r;
	which = (m[0] << 8 | m[1]) == q->id[0] ? 0 :
		(m[0] << 8 | m[1]) == q->id[1] ? 1 : -1;
	if (which < 0 || q->done[which] || !(m[2] & 0x80) ||
	    (m[2] & 0x78) || m[4] != 0 || m[5] != 1 ||
	    same_question(m, len, &off, name, qtype[which]) < 0)
		return -1;
	q->done[which] = true;
	if (m[3] & 0x0f)
		q->rcode = m[3] & 0x0f;
	an = (size_t)(m[6] << 8 | m[7]);
	for (size_t i = 0; i < an && !(m[3] & 0x0f); i++) {
		uint16_t type, class, rdlen;

		if (skip_name(m, len, &off) < 0 || off + 10 > len)
			break;
		type = (uint16_t)(m[off] << 8 | m[off + 1]);
		class = (uint16_t)(m[off + 2] << 8 | m[off + 3]);
		rdlen = (uint16_t)(m[off + 8] << 8 | m[off + 9]);
		off += 10;
		if (off + rdlen > len)
			break;
		if (class == 1 && type == qtype[which] && *n < max &&
		    rdlen == (type == 1 ? 4 : 16)) {
			memset(&out[*n], 0, sizeof(out[*n]));
			out[*n].family = type == 1 ? 4 : 6;
			memcpy(out[*n].a, m + off, rdlen);
			/* An AAAA ::ffff:a.b.c.d is a.b.c.d, for the
			 * rules and the host-address check alike. */
			px_addr_unmap(&out[*n]);
			(*n)++;
		}
		off += rdlen;
	}
	if (!q->done[0] || !q->done[1])
		return 0;
	/* IPv4 first: many hosts have no IPv6 route out. */
	for (size_t i = 0, k = 0; i < *n; i++)
		if (out[i].family == 4) {
			struct px_addr t = out[i];

			memmove(&out[k + 1], &out[k], (i - k) * sizeof(*out));
			out[k++] = t;
		}
	return 1;
}
