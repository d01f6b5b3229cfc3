/* proc.c - per-process memory figures from /proc/PID */
#include "proc.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

struct field {
	const char *name;
	size_t off;
};

static const struct field rollup_fields[] = {
	{ "Rss", offsetof(struct thp_rollup, rss) },
	{ "Anonymous", offsetof(struct thp_rollup, anon) },
	{ "AnonHugePages", offsetof(struct thp_rollup, anon_huge) },
	{ "ShmemPmdMapped", offsetof(struct thp_rollup, shmem_pmd) },
	{ "FilePmdMapped", offsetof(struct thp_rollup, file_pmd) },
	{ "Private_Hugetlb", offsetof(struct thp_rollup, private_hugetlb) },
	{ "Shared_Hugetlb", offsetof(struct thp_rollup, shared_hugetlb) },
};

struct rollup_ctx {
	struct thp_rollup *r;
	int seen;
};

static int rollup_field(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct rollup_ctx *c = ctx;

	c->seen++;
	for (size_t i = 0; i < sizeof(rollup_fields) / sizeof(rollup_fields[0]); i++) {
		const struct field *f = &rollup_fields[i];
		if (strlen(f->name) == klen && strncmp(f->name, key, klen) == 0)
			*(uint64_t *)((char *)c->r + f->off) = val;
	}
	return 0;
}

int thp_rollup_parse(const char *buf, struct thp_rollup *r)
{
	struct rollup_ctx c = { r, 0 };

	memset(r, 0, sizeof(*r));
	thp_parse_meminfo(buf, rollup_field, &c);
	return c.seen ? 0 : -ENODATA;
}

int thp_rollup_read(const struct thp_root *root, pid_t pid, struct thp_rollup *r)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "proc/%d/smaps_rollup", (int)pid);
	n = thp_read_buf(root, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return thp_rollup_parse(buf, r);
}

int thp_proc_each(const struct thp_root *root, int (*fn)(pid_t pid, void *ctx), void *ctx)
{
	struct dirent *de;
	DIR *d = thp_opendir(root, "proc");

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (fn((pid_t)pid, ctx))
			break;
	}
	closedir(d);
	return 0;
}

bool thp_proc_gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}
