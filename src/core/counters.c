/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters.c - THP and compaction counters from /proc/vmstat, THP lines of /proc/meminfo */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct collect {
	struct thp_counter *v;
	int *n;
	bool (*want)(const char *key, size_t klen);
};

static bool starts(const char *key, size_t klen, const char *prefix)
{
	size_t n = strlen(prefix);
	return klen > n && strncmp(key, prefix, n) == 0;
}

static bool want_vmstat(const char *key, size_t klen)
{
	return starts(key, klen, "thp_") || starts(key, klen, "compact_");
}

static const char *const meminfo_keys[] = {
	"MemTotal", "AnonHugePages", "ShmemHugePages", "ShmemPmdMapped", "FileHugePages",
	"FilePmdMapped", "PageTables", "HugePages_Total", "HugePages_Free", "HugePages_Rsvd",
	"HugePages_Surp", "Hugepagesize", "Hugetlb",
};

static bool want_meminfo(const char *key, size_t klen)
{
	for (size_t i = 0; i < sizeof(meminfo_keys) / sizeof(meminfo_keys[0]); i++)
		if (strlen(meminfo_keys[i]) == klen && strncmp(meminfo_keys[i], key, klen) == 0)
			return true;
	return false;
}

static int collect(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct collect *c = ctx;

	struct thp_counter *slot = &c->v[*c->n];

	if (!c->want(key, klen) || klen >= THP_NAME_MAX || *c->n >= THP_COUNTERS_MAX)
		return 0;
	memcpy(slot->name, key, klen);
	slot->name[klen] = '\0';
	if (thp_counter_get(c->v, *c->n, slot->name, NULL))
		return 0; /* a repeated key keeps its first value */
	slot->val = val;
	(*c->n)++;
	return 0;
}

bool thp_counter_get(const struct thp_counter *v, int n, const char *name, uint64_t *val)
{
	for (int i = 0; i < n; i++) {
		if (strcmp(v[i].name, name) == 0) {
			if (val)
				*val = v[i].val;
			return true;
		}
	}
	return false;
}

/* Reads FILE and collects the wanted keys with PARSE into V/N; returns 0 or -errno. */
static int read_counters(const struct thp_root *root, const char *file,
			 int (*parse)(const char *, thp_kv_fn, void *),
			 bool (*want)(const char *, size_t), struct thp_counter *v, int *n)
{
	struct collect c = { v, n, want };
	char *buf;
	int err = thp_read(root, file, &buf, NULL);

	if (err)
		return err;
	parse(buf, collect, &c);
	free(buf);
	return 0;
}

int thp_vmstat_read(const struct thp_root *root, struct thp_counter *v, int *n)
{
	*n = 0;
	return read_counters(root, "proc/vmstat", thp_parse_vmstat, want_vmstat, v, n);
}

void thp_counters_read(const struct thp_root *root, struct thp_status *st)
{
	st->vmstat_err = thp_vmstat_read(root, st->vmstat, &st->nvmstat);
	st->meminfo_err = read_counters(root, "proc/meminfo", thp_parse_meminfo, want_meminfo,
					st->meminfo, &st->nmeminfo);
}
