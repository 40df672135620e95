/* The network proxy's directives: net-proxy, net-allow, net-deny and
 * net-resolve (docs/POLICY.md "Network proxy"). A rule that could be read
 * two ways is an error, never a guess: the rules are the only thing
 * between the sandbox and the network. */
#include <stdio.h>
#include <string.h>

#include "policy/internal.h"
#include "policy/netmatch.h"
#include "util/num.h"

void d_netproxy(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	struct pos *first = &c->p->at[PAT_PROXY];
	unsigned port = PLAN_PROXY_PORT;

	if (first->line) {
		perr_at(c, pos, t[0].col, "duplicate 'net-proxy' (first given "
			"at %s:%u)", first->file, first->line);
		return;
	}
	if (n == 2 && (strncmp(t[1].s, "port=", 5) ||
		       px_port_parse(t[1].s + 5, t[1].len - 5, &port))) {
		perr_at(c, pos, t[1].col, "expected 'port=N' with N from 1 to "
			"65535, not '%s'", t[1].s);
		return;
	}
	*first = *pos;
	first->col = t[0].col;
	c->p->net_proxy = true;
	c->p->proxy_port = port;
}

static struct px_rule *rule_new(struct ctx *c, const struct pos *pos,
				const struct tok *t)
{
	struct px_rule *r;

	if (c->p->npx >= PLAN_MAX_PX) {
		perr_at(c, pos, t->col, "too many net-allow and net-deny rules "
			"(max %d)", PLAN_MAX_PX);
		return NULL;
	}
	c->p->px = plan_grow(c, c->p->px, c->p->npx, &c->p->cap_px,
			     sizeof(*r));
	if (!c->p->px) {
		perr_at(c, pos, t->col, "out of memory");
		return NULL;
	}
	r = &c->p->px[c->p->npx];
	memset(r, 0, sizeof(*r));
	r->pos = *pos;
	r->pos.col = t->col;
	return r;
}

/* Why host text h (n bytes) of a rule or pin is refused. */
static void bad_host(struct ctx *c, const struct pos *pos, unsigned col,
		     const char *what, const char *h, size_t n,
		     enum px_host_err e)
{
	char fix[PX_HOST_MAX + 2];

	if (e == PXH_UPPER && n < sizeof(fix)) {
		for (size_t i = 0; i < n; i++)
			fix[i] = (char)(h[i] >= 'A' && h[i] <= 'Z' ? h[i] + 32
								   : h[i]);
		fix[n] = '\0';
		perr_at(c, pos, col, "%s '%.*s' must be lower case (write "
			"'%s')", what, (int)n, h, fix);
	} else if (e == PXH_DOT) {
		perr_at(c, pos, col, "%s '%.*s' must not end with '.' (write "
			"'%.*s')", what, (int)n, h, (int)n - 1, h);
	} else {
		perr_at(c, pos, col, "%s '%.*s' is not valid: %s", what,
			(int)n, h, px_host_strerror(e));
	}
}

/* One rule word: HOST[:PORT], HOST one of example.com, *.example.com,
 * *, 1.2.3.4, [v6]. */
static void rule_word(struct ctx *c, const struct pos *pos,
		      const struct tok *t, bool deny)
{
	const char *w = t->s, *colon, *h = w;
	size_t hn = t->len;
	unsigned port = 0;
	struct px_host host;
	enum px_host_err e;
	struct px_rule *r;
	enum px_rule_kind kind;
	char *text;

	if (!t->len) {
		perr_at(c, pos, t->col, "empty rule");
		return;
	}
	if (w[0] == '[') {
		const char *rb = memchr(w, ']', t->len);

		colon = rb && (size_t)(rb - w) + 1 < t->len ? rb + 1 : NULL;
		if (rb && colon && *colon != ':') {
			perr_at(c, pos, t->col, "rule '%s': expected ':PORT' "
				"after ']'", w);
			return;
		}
	} else {
		colon = strchr(w, ':');
		if (colon && strchr(colon + 1, ':')) {
			perr_at(c, pos, t->col, "rule '%s': an IPv6 address "
				"goes in brackets, e.g. '[::1]' or "
				"'[::1]:443'", w);
			return;
		}
	}
	if (colon) {
		hn = (size_t)(colon - w);
		if (px_port_parse(colon + 1, t->len - hn - 1, &port)) {
			perr_at(c, pos, t->col, "rule '%s': port '%s' is not a "
				"number from 1 to 65535", w, colon + 1);
			return;
		}
	}
	if (hn == 1 && h[0] == '*') {
		if (!deny) {
			perr_at(c, pos, t->col, "rule '%s': '*' (every host) "
				"is allowed only in net-deny; allow hosts by "
				"name ('*.example.com')", w);
			return;
		}
		kind = PXR_ANY;
		text = arena_strndup(c->a, "*", 1);
	} else if (memchr(h, '*', hn) && !(hn > 2 && h[0] == '*' &&
					   h[1] == '.' &&
					   !memchr(h + 1, '*', hn - 1))) {
		perr_at(c, pos, t->col, "rule '%s': '*' must be the whole host "
			"(net-deny *) or the whole first label "
			"('*.example.com')", w);
		return;
	} else if (h[0] == '*') {
		e = px_host_parse(h + 2, hn - 2, true, &host);
		if (e) {
			bad_host(c, pos, t->col, "wildcard suffix", h + 2,
				 hn - 2, e);
			return;
		}
		if (host.kind != PX_NAME) {
			perr_at(c, pos, t->col, "rule '%s': a wildcard needs "
				"a name after '*.', not an address", w);
			return;
		}
		kind = PXR_SUFFIX;
		text = arena_strndup(c->a, h, hn);
	} else {
		e = px_host_parse(h, hn, true, &host);
		if (e) {
			bad_host(c, pos, t->col, "host", h, hn, e);
			return;
		}
		kind = host.kind == PX_IP ? PXR_IP : PXR_NAME;
		text = arena_strdup(c->a, host.name);
	}
	if (!text) {
		perr_at(c, pos, t->col, "out of memory");
		return;
	}
	if (!(r = rule_new(c, pos, t)))
		return;
	if (kind == PXR_IP && !deny && px_classify(&host.addr) == PX_UNSPEC) {
		perr_at(c, pos, t->col, "'%s' is the unspecified address: a "
			"connect to it reaches this host; name the address "
			"you mean", text);
		return;
	}
	r->deny = deny;
	r->kind = kind;
	r->port = port;
	r->host = text;
	if (kind == PXR_IP)
		r->addr = host.addr;
	c->p->npx++;
}

void d_netrule(struct ctx *c, const struct pos *pos, struct tok *t, int n)
{
	bool deny = !strcmp(t[0].s, "net-deny");

	for (int i = 1; i < n; i++)
		rule_word(c, pos, &t[i], deny);
}

void d_netresolve(struct ctx *c, const struct pos *pos, struct tok *t,
		  int n)
{
	for (int i = 1; i < n; i++) {
		const char *w = t[i].s, *eq = strchr(w, '=');
		size_t nl = eq ? (size_t)(eq - w) : 0;
		struct px_host host;
		struct px_addr addr;
		enum px_host_err e;
		struct px_pin *pin;
		char *name;

		if (!eq) {
			perr_at(c, pos, t[i].col, "expected NAME=ADDRESS, not "
				"'%s'", w);
			continue;
		}
		if ((e = px_host_parse(w, nl, true, &host))) {
			bad_host(c, pos, t[i].col, "net-resolve name", w, nl, e);
			continue;
		}
		if (host.kind != PX_NAME) {
			perr_at(c, pos, t[i].col, "net-resolve '%s': '%.*s' is "
				"already an address", w, (int)nl, w);
			continue;
		}
		if (px_addr_parse(eq + 1, strlen(eq + 1), &addr) < 0) {
			perr_at(c, pos, t[i].col, "net-resolve '%s': '%s' is not "
				"an IPv4 address (a.b.c.d) or an IPv6 address",
				w, eq + 1);
			continue;
		}
		if (px_classify(&addr) == PX_UNSPEC) {
			perr_at(c, pos, t[i].col, "net-resolve '%s': '%s' is "
				"the unspecified address: a connect to it "
				"reaches this host", w, eq + 1);
			continue;
		}
		for (size_t k = 0; k < c->p->npin; k++)
			if (!strcmp(c->p->pin[k].name, host.name)) {
				perr_at(c, pos, t[i].col, "'%s' is already "
					"pinned at %s:%u", host.name,
					c->p->pin[k].pos.file,
					c->p->pin[k].pos.line);
				goto next;
			}
		if (c->p->npin >= PLAN_MAX_PIN) {
			perr_at(c, pos, t[i].col, "too many net-resolve pins "
				"(max %d)", PLAN_MAX_PIN);
			return;
		}
		c->p->pin = plan_grow(c, c->p->pin, c->p->npin, &c->p->cap_pin,
				      sizeof(*pin));
		name = arena_strdup(c->a, host.name);
		if (!c->p->pin || !name) {
			perr_at(c, pos, t[i].col, "out of memory");
			return;
		}
		pin = &c->p->pin[c->p->npin++];
		pin->name = name;
		pin->addr = addr;
		pin->pos = *pos;
		pin->pos.col = t[i].col;
next:;
	}
}

/* Would a request for pin's name ever be allowed, on some port? Every
 * port that could be is tried: those the allow rules name, and, for a
 * rule of every port, one that no port of a deny rule names (among the
 * first npx + 1, one is free). */
static bool pin_used(const struct plan *p, const struct px_pin *pin)
{
	struct px_host h = { .kind = PX_NAME };
	long rule;

	snprintf(h.name, sizeof(h.name), "%s", pin->name);
	for (size_t i = 0; i < p->npx; i++)
		if (!p->px[i].deny && p->px[i].port &&
		    px_match(p, &h, p->px[i].port, &rule))
			return true;
	for (unsigned port = 1; port <= p->npx + 1; port++)
		if (px_match(p, &h, port, &rule))
			return true;
	return false;
}

/* Does a net-allow rule name it at all (whatever the port and the deny
 * rules)? Only for the wording of the error. */
static bool pin_named(const struct plan *p, const struct px_pin *pin)
{
	struct px_host h = { .kind = PX_NAME };

	snprintf(h.name, sizeof(h.name), "%s", pin->name);
	for (size_t i = 0; i < p->npx; i++)
		if (!p->px[i].deny && px_host_match(&p->px[i], &h))
			return true;
	return false;
}

void plan_validate_net(struct ctx *c)
{
	struct plan *p = c->p;
	const struct pos *at;

	if (p->net_proxy && !(p->ns & NS_NET)) {
		at = &p->at[PAT_PROXY];
		perr_at(c, at, at->col, "'net-proxy' needs a network namespace "
			"('unshare net'): without one the sandbox has the "
			"host's network and no rule would hold");
	}
	if (!p->net_proxy && (p->npx || p->npin)) {
		at = p->npx ? &p->px[0].pos : &p->pin[0].pos;
		perr_at(c, at, at->col, "'%s' needs 'net-proxy' (without the "
			"proxy, rules filter nothing)", !p->npx ?
			"net-resolve" : p->px[0].deny ? "net-deny" :
			"net-allow");
	}
	/* A pin no request can use is a mistake (a typo of the name, a
	 * rule left out): without this error, the name would silently be
	 * resolved by DNS instead, or not be reachable at all. */
	for (size_t i = 0; p->net_proxy && i < p->npin; i++) {
		const struct px_pin *pin = &p->pin[i];

		if (pin_used(p, pin))
			continue;
		perr_at(c, &pin->pos, pin->pos.col, "net-resolve pin '%s' is "
			"never used: %s", pin->name, pin_named(p, pin) ?
			"net-deny rules refuse it on every port a net-allow "
			"rule allows (remove the pin)" :
			"no net-allow rule allows it (allow the name, or "
			"remove the pin)");
	}
}
