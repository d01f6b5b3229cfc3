/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.c - the hosts of 'thp report', from the JSON documents of status and doctor */
#include "fleet.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum doc { DOC_STATUS, DOC_DOCTOR };

/* Member NAME of object O when it has type TYPE, else NULL. */
static struct json_object *member(struct json_object *o, const char *name, json_type type)
{
	struct json_object *v;

	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, name, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* String member NAME of O, or NULL. */
static const char *member_str(struct json_object *o, const char *name)
{
	struct json_object *v = member(o, name, json_type_string);

	return v ? json_object_get_string(v) : NULL;
}

/* Integer member NAME of O, or -1 when absent or not a non-negative integer. */
static int64_t member_int(struct json_object *o, const char *name)
{
	struct json_object *v = member(o, name, json_type_int);
	int64_t n = v ? json_object_get_int64(v) : -1;

	return n < 0 ? -1 : n;
}

/* A block of the texts a fleet keeps. */
struct fleet_text {
	struct fleet_text *prev;
	size_t used, cap;
	char b[];
};

/* A copy of S kept by F until thp_fleet_free(), or NULL when out of memory. */
static const char *keep_text(struct thp_fleet *f, const char *s)
{
	size_t n = strlen(s) + 1;
	struct fleet_text *t = f->text;

	if (!t || t->cap - t->used < n) {
		size_t cap = n > 65536 ? n : 65536;
		if (!(t = malloc(sizeof(*t) + cap)))
			return NULL;
		t->prev = f->text;
		t->used = 0;
		t->cap = cap;
		f->text = t;
	}
	memcpy(t->b + t->used, s, n);
	t->used += n;
	return t->b + t->used - n;
}

static unsigned hash_text(unsigned h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The host a document is about: its host name, else its root ("/" is every
 * live host, so then the document itself, WHERE in FILE). Sets the NAME shown too. */
static void identify(struct json_object *doc, const char *file, const char *where, char *key,
		     size_t kcap, char *name, size_t ncap)
{
	const char *host = member_str(doc, "host"), *root = member_str(doc, "root"), *base;
	size_t n;

	if (host && *host) {
		snprintf(key, kcap, "host:%s", host);
		snprintf(name, ncap, "%s", host);
		return;
	}
	if (root && *root && strcmp(root, "/") != 0) {
		snprintf(key, kcap, "root:%s", root);
		n = strlen(root);
		while (n > 1 && root[n - 1] == '/')
			n--;
		base = root + n;
		while (base > root && base[-1] != '/')
			base--;
		snprintf(name, ncap, "%.*s", (int)(root + n - base), base);
		return;
	}
	snprintf(key, kcap, "document:%s", where);
	base = strrchr(file, '/');
	snprintf(name, ncap, "%s", base ? base + 1 : file);
}

/* Adds setting KEY of value V (a word or a number) to H. */
static void policy_set(struct thp_fleet_policy *h, const char *key, struct json_object *v)
{
	struct thp_key k;
	struct thp_kv *kv;

	if (h->n >= THP_KV_MAX || thp_key_parse(key, &k) != 0)
		return; /* an unknown file */
	kv = &h->v[h->n++];
	memset(kv, 0, sizeof(*kv));
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	snprintf(kv->value, sizeof(kv->value), "%s", json_object_get_string(v));
}

static void policy_add(struct thp_fleet_policy *h, const char *key, struct json_object *setting)
{
	const char *kind = member_str(setting, "kind");
	struct json_object *v;

	if (!kind || !json_object_object_get_ex(setting, "value", &v))
		return; /* a counter, or one the kernel lacks */
	if ((strcmp(kind, "choice") == 0 && json_object_is_type(v, json_type_string)) ||
	    (strcmp(kind, "int") == 0 && json_object_is_type(v, json_type_int)))
		policy_set(h, key, v);
}

/* Adds the setting of a size, member NAME of Z: its word (thp-status/2) or
 * a setting object (thp-status/1). */
static void size_setting(struct thp_fleet_policy *h, const char *key, struct json_object *z, const char *name)
{
	struct json_object *s = member(z, name, json_type_string);

	if (s)
		policy_set(h, key, s);
	else if ((s = member(z, name, json_type_object)))
		policy_add(h, key, s);
}

/* Settings of array A (top-level or khugepaged: PREFIX "" or "khugepaged."). */
static void read_settings(struct thp_fleet_policy *h, struct json_object *a, const char *prefix)
{
	char key[THP_KEY_MAX + 16];

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		const char *name = member_str(s, "name");
		if (!name)
			continue;
		snprintf(key, sizeof(key), "%s%s", prefix, name);
		policy_add(h, key, s);
	}
}

static void read_sizes(struct thp_fleet_policy *h, struct json_object *a)
{
	char key[THP_KEY_MAX + 16], sz[24];
	size_t len = 0;

	h->nsizes = a && json_object_array_length(a) ? 0 : -1;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *z = json_object_array_get_idx(a, i);
		const char *eff = member_str(z, "anon_effective");
		int64_t bytes = member_int(z, "size");
		if (bytes <= 0)
			continue;
		thp_size_name((uint64_t)bytes, sz, sizeof(sz));
		snprintf(key, sizeof(key), "hugepages.%s.enabled", sz);
		size_setting(h, key, z, "enabled");
		snprintf(key, sizeof(key), "hugepages.%s.shmem_enabled", sz);
		size_setting(h, key, z, "shmem_enabled");
		if (!eff || strcmp(eff, "never") == 0 || h->nsizes >= (int)(sizeof(h->size_bytes) / sizeof(h->size_bytes[0])))
			continue;
		h->size_bytes[h->nsizes++] = (uint64_t)bytes;
		len += (size_t)snprintf(h->sizes + len, len < sizeof(h->sizes) ? sizeof(h->sizes) - len : 0,
					"%s%s", len ? " " : "", sz);
	}
}

static int cmp_kv(const void *a, const void *b)
{
	return strcmp(((const struct thp_kv *)a)->key, ((const struct thp_kv *)b)->key);
}

/* The policy of F equal to P, or a copy of P kept from now on; NULL when out
 * of memory. */
static const struct thp_fleet_policy *policy_keep(struct thp_fleet *f, struct thp_fleet_policy *p)
{
	struct thp_fleet_policy *k;

	p->hash = hash_text(2166136261u, p->sizes);
	for (int i = 0; i < p->n; i++)
		p->hash = hash_text(hash_text(p->hash, p->v[i].key), p->v[i].value);
	for (int i = 0; i < f->npol; i++) {
		k = f->pol[i];
		if (k->hash == p->hash && k->n == p->n && k->nsizes == p->nsizes &&
		    strcmp(k->sizes, p->sizes) == 0 && thp_fleet_policy_diff_of(k, p, NULL, 0) == 0)
			return k;
	}
	if (f->npol == f->polcap) {
		int cap = f->polcap ? f->polcap * 2 : 8;
		void *v = reallocarray(f->pol, (size_t)cap, sizeof(void *));
		if (!v)
			return NULL;
		f->pol = v;
		f->polcap = cap;
	}
	if (!(k = malloc(sizeof(*k))) || !(k->v = malloc(sizeof(*k->v) * (size_t)(p->n ? p->n : 1)))) {
		free(k);
		return NULL;
	}
	*k = (struct thp_fleet_policy){ .n = p->n, .v = memcpy(k->v, p->v, sizeof(*k->v) * (size_t)p->n) };
	memcpy(k->sizes, p->sizes, sizeof(k->sizes));
	memcpy(k->size_bytes, p->size_bytes, sizeof(k->size_bytes));
	k->nsizes = p->nsizes;
	k->hash = p->hash;
	f->pol[f->npol++] = k;
	return k;
}

/* Line NAME of section KEY of DOC (/proc/meminfo, /proc/vmstat): a member of
 * an object (thp-status/1), or the value of the row of an array that names it
 * (thp-status/2); -1 when absent. */
static int64_t counter(struct json_object *doc, const char *key, const char *name)
{
	struct json_object *a = member(doc, key, json_type_array);

	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		const char *n = member_str(json_object_array_get_idx(a, i), "name");
		if (n && strcmp(n, name) == 0)
			return member_int(json_object_array_get_idx(a, i), "value");
	}
	return a ? -1 : member_int(member(doc, key, json_type_object), name);
}

/* Reads status document DOC into H, its policy one of F's. Returns 0 or -ENOMEM. */
static int read_status(struct thp_fleet *f, struct thp_fleet_host *h, struct json_object *doc)
{
	struct thp_kv kv[THP_KV_MAX];
	struct thp_fleet_policy p = { .v = kv };
	struct json_object *v;
	const char *rel = member_str(member(doc, "kernel", json_type_object), "release");

	if (!(h->kernel = keep_text(f, rel ? rel : "")))
		return -ENOMEM;
	read_settings(&p, member(doc, "settings", json_type_array), "");
	read_settings(&p, member(doc, "khugepaged", json_type_array), "khugepaged.");
	read_sizes(&p, member(doc, "sizes", json_type_array));
	qsort(p.v, (size_t)p.n, sizeof(p.v[0]), cmp_kv);
	if (!(h->policy = policy_keep(f, &p)))
		return -ENOMEM;
	h->anon_huge = counter(doc, "meminfo", "AnonHugePages");
	h->stalls = counter(doc, "vmstat", "compact_stall");
	v = member(doc, "fault_fallback_ratio", json_type_double);
	if (!v)
		v = member(doc, "fault_fallback_ratio", json_type_int);
	h->fallback = v ? json_object_get_double(v) : -1;
	return 0;
}

static void read_doctor(struct thp_fleet_host *h, struct json_object *doc)
{
	struct json_object *a = member(doc, "findings", json_type_array);
	static const char *const sev[] = { "info", "warn", "crit" };

	for (int s = 0; s < 3; s++)
		h->findings[s] = 0;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		const char *w = member_str(json_object_array_get_idx(a, i), "severity");
		for (int s = 0; w && s < 3; s++)
			h->findings[s] += strcmp(w, sev[s]) == 0;
	}
}

/* The host KEY names that has no document of kind D yet, or a new one. */
static struct thp_fleet_host *host_for(struct thp_fleet *f, const char *key, enum doc d)
{
	unsigned b = hash_text(2166136261u, key) % THP_FLEET_BUCKETS;
	struct thp_fleet_host *h;

	for (int i = f->bucket[b]; i; i = f->v[i - 1].next)
		if (!f->v[i - 1].source[d][0] && strcmp(f->v[i - 1].key, key) == 0)
			return &f->v[i - 1];
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 16;
		void *v = realloc(f->v, (size_t)cap * sizeof(*f->v));
		if (!v)
			return NULL;
		f->v = v;
		f->cap = cap;
	}
	h = &f->v[f->n];
	*h = (struct thp_fleet_host){ .name = "", .source = { "", "" }, .kernel = "", .anon_huge = -1,
				      .stalls = -1, .fallback = -1, .findings = { -1, -1, -1 },
				      .next = f->bucket[b] };
	if (!(h->key = keep_text(f, key)))
		return NULL;
	f->bucket[b] = ++f->n;
	return h;
}

/* Takes one document DOC, found at SOURCE in FILE. Returns 1 taken, 0 skipped, -ENOMEM. */
static int take(struct thp_fleet *f, struct json_object *doc, const char *file, const char *source,
		thp_fleet_warn_fn warn, void *ctx)
{
	const char *schema = member_str(doc, "schema");
	char key[4096 + 8], name[128], why[160];
	struct thp_fleet_host *h;
	enum doc d;

	if (schema && (strcmp(schema, "thp-status/1") == 0 || strcmp(schema, "thp-status/2") == 0))
		d = DOC_STATUS;
	else if (schema && strcmp(schema, "thp-doctor/1") == 0)
		d = DOC_DOCTOR;
	else {
		snprintf(why, sizeof(why), schema ? "a '%.100s' document, not thp status or doctor JSON"
					  : "%s, not thp status or doctor JSON",
			 schema ? schema : json_object_is_type(doc, json_type_object) ? "an object without a schema"
										: "not an object");
		warn(ctx, source, why);
		return 0;
	}
	if (d == DOC_STATUS && !member(doc, "settings", json_type_array)) {
		snprintf(why, sizeof(why), "a %s document without its settings", schema);
		warn(ctx, source, why);
		return 0;
	}
	if (d == DOC_DOCTOR && !member(doc, "findings", json_type_array)) {
		warn(ctx, source, "a thp-doctor/1 document without its findings");
		return 0;
	}
	identify(doc, file, source, key, sizeof(key), name, sizeof(name));
	if (!(h = host_for(f, key, d)) || !(h->name = keep_text(f, name)) || !(h->source[d] = keep_text(f, source)))
		return -ENOMEM;
	if (d == DOC_DOCTOR)
		read_doctor(h, doc);
	else if (read_status(f, h, doc))
		return -ENOMEM;
	return 1;
}

int thp_fleet_parse(struct thp_fleet *f, const char *buf, size_t len, const char *source,
		    thp_fleet_warn_fn warn, void *ctx)
{
	struct json_tokener *tok = json_tokener_new();
	char where[600], why[160];
	size_t off = 0;
	int taken = 0, ndoc = 0;

	if (!tok)
		return -ENOMEM;
	for (;;) {
		struct json_object *doc;
		int err = 0;

		while (off < len && strchr(" \t\r\n", buf[off]))
			off++;
		if (off >= len)
			break;
		json_tokener_reset(tok);
		doc = json_tokener_parse_ex(tok, buf + off, (int)(len - off > 0x7fffffff ? 0x7fffffff : len - off));
		ndoc++;
		snprintf(where, sizeof(where), ndoc > 1 ? "%s (document %d)" : "%s", source, ndoc);
		if (!doc) {
			enum json_tokener_error e = json_tokener_get_error(tok);
			snprintf(why, sizeof(why), "not JSON at byte %zu: %s", off + json_tokener_get_parse_end(tok),
				 e == json_tokener_continue ? "it ends too early" : json_tokener_error_desc(e));
			warn(ctx, where, why);
			break; /* nothing after a syntax error can be trusted */
		}
		off += json_tokener_get_parse_end(tok);
		if (json_object_is_type(doc, json_type_array)) {
			for (size_t i = 0; err >= 0 && i < json_object_array_length(doc); i++) {
				char item[640];
				snprintf(item, sizeof(item), "%s [%zu]", where, i);
				err = take(f, json_object_array_get_idx(doc, i), source, item, warn, ctx);
				taken += err > 0;
			}
		} else {
			err = take(f, doc, source, where, warn, ctx);
			taken += err > 0;
		}
		json_object_put(doc);
		if (err < 0) {
			json_tokener_free(tok);
			return err;
		}
	}
	json_tokener_free(tok);
	if (!ndoc)
		warn(ctx, source, "empty (no JSON document in it)");
	return taken;
}

void thp_fleet_free(struct thp_fleet *f)
{
	while (f->text) {
		struct fleet_text *t = f->text;
		f->text = t->prev;
		free(t);
	}
	for (int i = 0; i < f->npol; i++) {
		free(f->pol[i]->v);
		free(f->pol[i]);
	}
	free(f->pol);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const char *thp_fleet_setting(const struct thp_fleet_host *h, const char *key)
{
	for (int i = 0; h->policy && i < h->policy->n; i++)
		if (strcmp(h->policy->v[i].key, key) == 0)
			return h->policy->v[i].value;
	return NULL;
}

int thp_fleet_policy_diff_of(const struct thp_fleet_policy *a, const struct thp_fleet_policy *b,
			     const char **keys, int max)
{
	static const struct thp_fleet_policy none;
	int i = 0, j = 0, n = 0;

	a = a ? a : &none;
	b = b ? b : &none;
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->v[i].key, b->v[j].key);
		const char *key = c <= 0 ? a->v[i].key : b->v[j].key;
		bool differ = c != 0 || strcmp(a->v[i].value, b->v[j].value) != 0;
		i += c <= 0;
		j += c >= 0;
		if (differ && n < max)
			keys[n] = key;
		n += differ;
	}
	return n;
}

int thp_fleet_policy_diff(const struct thp_fleet_host *a, const struct thp_fleet_host *b,
			  const char **keys, int max)
{
	return thp_fleet_policy_diff_of(a->policy, b->policy, keys, max);
}

bool thp_fleet_same_policy(const struct thp_fleet_host *a, const struct thp_fleet_host *b)
{
	return !a->policy == !b->policy && (a->policy == b->policy || thp_fleet_policy_diff(a, b, NULL, 0) == 0);
}

/* True when provisional group O (of SIZE, first host FIRST) is listed before G. */
static bool listed_before(const struct thp_fleet *f, const int *first, const int *size, int o, int g)
{
	bool ou = !f->v[first[o]].policy, gu = !f->v[first[g]].policy;

	if (ou != gu)
		return gu; /* the hosts of unknown policy come last */
	return size[o] != size[g] ? size[o] > size[g] : o < g;
}

int thp_fleet_group(const struct thp_fleet *f, int *group)
{
	size_t cap = (size_t)(f->n ? f->n : 1);
	int *first = malloc(cap * sizeof(int)), *size = calloc(cap, sizeof(int)), *rank = malloc(cap * sizeof(int));
	int n = 0;

	if (!first || !size || !rank) {
		free(first);
		free(size);
		free(rank);
		return -ENOMEM;
	}
	for (int i = 0; i < f->n; i++) { /* provisional groups, in the order met */
		int g = 0;
		while (g < n && !thp_fleet_same_policy(&f->v[first[g]], &f->v[i]))
			g++;
		if (g == n)
			first[n++] = i;
		size[g]++;
		group[i] = g;
	}
	for (int g = 0; g < n; g++) {
		rank[g] = 0;
		for (int o = 0; o < n; o++)
			rank[g] += o != g && listed_before(f, first, size, o, g);
	}
	for (int i = 0; i < f->n; i++)
		group[i] = rank[group[i]];
	free(first);
	free(size);
	free(rank);
	return n;
}
