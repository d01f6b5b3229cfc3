/* SPDX-License-Identifier: GPL-2.0-or-later */
/* boot.c - THP and huge page parameters on the kernel command line */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static const char *const boot_keys[] = {
	"transparent_hugepage", "transparent_hugepage_shmem", "transparent_hugepage_tmpfs",
	"thp_anon", "thp_shmem", "hugepagesz", "hugepages", "default_hugepagesz",
	"hugetlb_free_vmemmap",
};

bool thp_boot_key(const char *key, size_t klen)
{
	for (size_t i = 0; i < sizeof(boot_keys) / sizeof(boot_keys[0]); i++)
		if (strlen(boot_keys[i]) == klen && strncmp(boot_keys[i], key, klen) == 0)
			return true;
	return false;
}

static int collect(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
	struct thp_status *st = ctx;
	struct thp_boot_param *p = &st->boot[st->nboot];

	if (!thp_boot_key(key, klen) || st->nboot >= THP_BOOT_MAX)
		return 0;
	snprintf(p->name, sizeof(p->name), "%.*s", (int)klen, key);
	snprintf(p->value, sizeof(p->value), "%.*s", val ? (int)vlen : 0, val ? val : "");
	st->nboot++;
	return 0;
}

void thp_boot_read(const struct thp_root *root, struct thp_status *st)
{
	char buf[8192];
	ssize_t n = thp_read_buf(root, "proc/cmdline", buf, sizeof(buf));

	if (n < 0) {
		st->cmdline_err = (int)n;
		return;
	}
	thp_parse_cmdline(buf, collect, st);
}
