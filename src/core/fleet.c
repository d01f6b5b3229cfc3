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

static void policy_add(struct thp_fleet_host *h, const char *key, struct json_object *setting)
{
	const char *kind = member_str(setting, "kind");
	struct json_object *v;
	struct thp_key k;
	struct thp_kv *kv;

	if (!kind || h->policy.n >= THP_KV_MAX || thp_key_parse(key, &k) != 0 ||
	    !json_object_object_get_ex(setting, "value", &v))
		return; /* a counter, an unknown file, or one the kernel lacks */
	if (strcmp(kind, "choice") == 0 && json_object_is_type(v, json_type_string))
		;
	else if (strcmp(kind, "int") != 0 || !json_object_is_type(v, json_type_int))
		return;
	kv = &h->policy.v[h->policy.n++];
	memset(kv, 0, sizeof(*kv));
	snprintf(kv->key, sizeof(kv->key), "%s", key);
	snprintf(kv->value, sizeof(kv->value), "%s", json_object_get_string(v));
}

/* Settings of array A (top-level or khugepaged: PREFIX "" or "khugepaged."). */
static void read_settings(struct thp_fleet_host *h, struct json_object *a, const char *prefix)
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

static void read_sizes(struct thp_fleet_host *h, struct json_object *a)
{
	char key[THP_KEY_MAX + 16], sz[24];
	size_t len = 0;

	h->nsizes = a && json_object_array_length(a) ? 0 : -1;
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *z = json_object_array_get_idx(a, i), *s;
		const char *eff = member_str(z, "anon_effective");
		int64_t bytes = member_int(z, "size");
		if (bytes <= 0)
			continue;
		thp_size_name((uint64_t)bytes, sz, sizeof(sz));
		if ((s = member(z, "enabled", json_type_object))) {
			snprintf(key, sizeof(key), "hugepages.%s.enabled", sz);
			policy_add(h, key, s);
		}
		if ((s = member(z, "shmem_enabled", json_type_object))) {
			snprintf(key, sizeof(key), "hugepages.%s.shmem_enabled", sz);
			policy_add(h, key, s);
		}
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

static void read_status(struct thp_fleet_host *h, struct json_object *doc)
{
	struct json_object *v;
	const char *rel = member_str(member(doc, "kernel", json_type_object), "release");
	int64_t n;

	snprintf(h->kernel, sizeof(h->kernel), "%s", rel ? rel : "");
	h->policy.n = 0;
	read_settings(h, member(doc, "settings", json_type_array), "");
	read_settings(h, member(doc, "khugepaged", json_type_array), "khugepaged.");
	read_sizes(h, member(doc, "sizes", json_type_array));
	qsort(h->policy.v, (size_t)h->policy.n, sizeof(h->policy.v[0]), cmp_kv);
	n = member_int(member(doc, "meminfo", json_type_object), "AnonHugePages");
	h->anon_huge = n;
	h->stalls = member_int(member(doc, "vmstat", json_type_object), "compact_stall");
	v = member(doc, "fault_fallback_ratio", json_type_double);
	if (!v)
		v = member(doc, "fault_fallback_ratio", json_type_int);
	h->fallback = v ? json_object_get_double(v) : -1;
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
	struct thp_fleet_host *h;

	for (int i = 0; i < f->n; i++)
		if (!f->v[i].source[d][0] && strcmp(f->v[i].key, key) == 0)
			return &f->v[i];
	if (f->n == f->cap) {
		int cap = f->cap ? f->cap * 2 : 16;
		void *v = realloc(f->v, (size_t)cap * sizeof(*f->v));
		if (!v)
			return NULL;
		f->v = v;
		f->cap = cap;
	}
	h = &f->v[f->n++];
	memset(h, 0, sizeof(*h));
	h->nsizes = -1;
	h->anon_huge = h->stalls = -1;
	h->fallback = -1;
	for (int s = 0; s < 3; s++)
		h->findings[s] = -1;
	snprintf(h->key, sizeof(h->key), "%s", key);
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

	if (schema && strcmp(schema, "thp-status/1") == 0)
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
		warn(ctx, source, "a thp-status/1 document without its settings");
		return 0;
	}
	if (d == DOC_DOCTOR && !member(doc, "findings", json_type_array)) {
		warn(ctx, source, "a thp-doctor/1 document without its findings");
		return 0;
	}
	identify(doc, file, source, key, sizeof(key), name, sizeof(name));
	if (!(h = host_for(f, key, d)))
		return -ENOMEM;
	snprintf(h->name, sizeof(h->name), "%s", name);
	snprintf(h->source[d], sizeof(h->source[d]), "%s", source);
	if (d == DOC_STATUS)
		read_status(h, doc);
	else
		read_doctor(h, doc);
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
	free(f->v);
	memset(f, 0, sizeof(*f));
}

const char *thp_fleet_setting(const struct thp_fleet_host *h, const char *key)
{
	for (int i = 0; i < h->policy.n; i++)
		if (strcmp(h->policy.v[i].key, key) == 0)
			return h->policy.v[i].value;
	return NULL;
}

int thp_fleet_policy_diff(const struct thp_fleet_host *a, const struct thp_fleet_host *b,
			  const char **keys, int max)
{
	int i = 0, j = 0, n = 0;

	while (i < a->policy.n || j < b->policy.n) {
		int c = i >= a->policy.n ? 1 : j >= b->policy.n ? -1 : strcmp(a->policy.v[i].key, b->policy.v[j].key);
		const char *key = c <= 0 ? a->policy.v[i].key : b->policy.v[j].key;
		bool differ = c != 0 || strcmp(a->policy.v[i].value, b->policy.v[j].value) != 0;
		i += c <= 0;
		j += c >= 0;
		if (differ && n < max)
			keys[n] = key;
		n += differ;
	}
	return n;
}

bool thp_fleet_same_policy(const struct thp_fleet_host *a, const struct thp_fleet_host *b)
{
	return !a->source[DOC_STATUS][0] == !b->source[DOC_STATUS][0] &&
	       thp_fleet_policy_diff(a, b, NULL, 0) == 0;
}

/* True when provisional group O (of SIZE, first host FIRST) is listed before G. */
static bool listed_before(const struct thp_fleet *f, const int *first, const int *size, int o, int g)
{
	bool ou = !f->v[first[o]].source[DOC_STATUS][0], gu = !f->v[first[g]].source[DOC_STATUS][0];

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
