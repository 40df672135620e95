/* The rules of a proxied policy: which destination a request may reach,
 * and which addresses a name that was allowed may connect to. Deny wins,
 * and what no rule allows is denied. */
#include <stdio.h>
#include <string.h>

#include "policy/netmatch.h"

bool px_host_match(const struct px_rule *r, const struct px_host *h)
{
	size_t hl, sl;
	const char *sfx;

	switch (r->kind) {
	case PXR_ANY:
		return true;
	case PXR_IP:
		return h->kind == PX_IP && px_addr_eq(&r->addr, &h->addr);
	case PXR_NAME:
		return h->kind == PX_NAME && !strcmp(r->host, h->name);
	case PXR_SUFFIX:
		/* "*.example.com": a.example.com and a.b.example.com, never
		 * example.com itself nor badexample.com. */
		if (h->kind != PX_NAME)
			return false;
		sfx = r->host + 2;
		hl = strlen(h->name);
		sl = strlen(sfx);
		return hl > sl + 1 && h->name[hl - sl - 1] == '.' &&
		       !strcmp(h->name + hl - sl, sfx);
	}
	return false;
}

static bool port_match(const struct px_rule *r, unsigned port)
{
	return !r->port || r->port == port;
}

int px_match(const struct plan *p, const struct px_host *h, unsigned port,
	     long *rule)
{
	for (size_t i = 0; i < p->npx; i++)
		if (p->px[i].deny && port_match(&p->px[i], port) &&
		    px_host_match(&p->px[i], h)) {
			*rule = (long)i;
			return 0;
		}
	for (size_t i = 0; i < p->npx; i++)
		if (!p->px[i].deny && port_match(&p->px[i], port) &&
		    px_host_match(&p->px[i], h)) {
			*rule = (long)i;
			return 1;
		}
	*rule = -1;
	return 0;
}

const struct px_addr *px_pin(const struct plan *p, const struct px_host *h)
{
	if (h->kind != PX_NAME)
		return NULL;
	for (size_t i = 0; i < p->npin; i++)
		if (!strcmp(p->pin[i].name, h->name))
			return &p->pin[i].addr;
	return NULL;
}

enum px_addr_verdict px_addr_check(const struct plan *p,
				   const struct px_host *h, unsigned port,
				   const struct px_addr *a,
				   const struct px_addr *own, size_t nown,
				   long *rule)
{
	const struct px_addr *pin = px_pin(p, h);
	bool named = (h->kind == PX_IP && px_addr_same(&h->addr, a)) ||
		     (pin && px_addr_same(pin, a));

	*rule = -1;
	if (px_classify(a) == PX_UNSPEC)
		return PXA_NONPUBLIC;
	/* "net-deny 1.2.3.4" also refuses a name that resolves there. */
	for (size_t i = 0; i < p->npx; i++) {
		const struct px_rule *r = &p->px[i];

		if (r->kind != PXR_IP || !port_match(r, port) ||
		    !px_addr_same(&r->addr, a))
			continue;
		if (r->deny) {
			*rule = (long)i;
			return PXA_DENIED;
		}
		named = true;
	}
	if (named)
		return PXA_OK;
	if (px_classify(a) != PX_PUBLIC)
		return PXA_NONPUBLIC;
	if (!own && nown)
		return PXA_OWN;
	for (size_t i = 0; own && i < nown; i++)
		if (px_addr_same(&own[i], a))
			return PXA_OWN;
	return PXA_OK;
}

char *px_rule_text(const struct plan *p, long rule, char *buf, size_t len)
{
	const struct px_rule *r;

	if (!len)
		return buf;
	if (rule < 0 || (size_t)rule >= p->npx) {
		snprintf(buf, len, "no rule allows it (default deny)");
		return buf;
	}
	r = &p->px[rule];
	if (r->port)
		snprintf(buf, len, "%s %s:%u (%s:%u:%u)",
			 r->deny ? "net-deny" : "net-allow", r->host, r->port,
			 r->pos.file, r->pos.line, r->pos.col);
	else
		snprintf(buf, len, "%s %s (%s:%u:%u)",
			 r->deny ? "net-deny" : "net-allow", r->host,
			 r->pos.file, r->pos.line, r->pos.col);
	return buf;
}
