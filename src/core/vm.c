/* SPDX-License-Identifier: GPL-2.0-or-later */
/* vm.c - compaction and watermark sysctls, the kernel's min_free_kbytes */
#include "vm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buddyinfo.h"
#include "settings.h"

/* Zones an ordinary allocation (GFP_USER) may use; khugepaged counts these. */
static bool lowmem_zone(const char *zone)
{
	return strcmp(zone, "DMA") == 0 || strcmp(zone, "DMA32") == 0 || strcmp(zone, "Normal") == 0;
}

void thp_vm_read(const struct thp_root *root, struct thp_status *st)
{
	struct thp_buddyinfo *b = malloc(sizeof(*b));
	char path[192];

	st->nvm = 0;
	for (int i = 0; i < thp_nsetting_descs && st->nvm < THP_VM_MAX; i++) {
		const struct thp_setting_desc *d = &thp_setting_descs[i];
		if (d->place != THP_PLACE_VM)
			continue;
		snprintf(path, sizeof(path), THP_SYSCTL_DIR "/%s", d->file);
		thp_setting_read(root, path, d->file, &st->vm[st->nvm]);
		thp_setting_expect(d, &st->vm[st->nvm++]);
	}
	st->nzones = 0;
	if (b && thp_buddyinfo_read(root, b) == 0)
		for (int i = 0; i < b->nzones; i++)
			st->nzones += lowmem_zone(b->zones[i].zone);
	free(b);
}

const struct thp_setting *thp_vm_setting(const struct thp_status *st, const char *name)
{
	return thp_setting_find(st->vm, st->nvm, name);
}

bool thp_vm_num(const struct thp_status *st, const char *name, uint64_t *v)
{
	const struct thp_setting *s = thp_vm_setting(st, name);

	if (!s || s->kind != THP_INT)
		return false;
	*v = s->num;
	return true;
}

uint64_t thp_isqrt(uint64_t n)
{
	uint64_t r = 0;

	for (uint64_t bit = 1ull << 62; bit; bit >>= 2) {
		if (n >= r + bit) {
			n -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

bool thp_min_free_default(const struct thp_status *st, struct thp_min_free *m)
{
	const char *pol = thp_status_pmd_policy(st);
	uint64_t total, pageblock_kb, cap;

	memset(m, 0, sizeof(*m));
	if (!thp_counter_get(st->meminfo, st->nmeminfo, "MemTotal", &total) || !total ||
	    !st->pmd_size || !st->nzones)
		return false;
	total >>= 10;
	m->base_kb = thp_isqrt(total * 16);
	m->base_kb = m->base_kb < 128 ? 128 : m->base_kb > 262144 ? 262144 : m->base_kb;
	if (pol && (strcmp(pol, "always") == 0 || strcmp(pol, "madvise") == 0)) {
		pageblock_kb = st->pmd_size >> 10;
		/* 2 free pageblocks per zone, and 3 x 3 for the fallbacks between the
		 * movable, unmovable and reclaimable types */
		m->thp_kb = pageblock_kb * (uint64_t)st->nzones * (2 + 3 * 3);
		cap = total / 20;
		if (m->thp_kb > cap)
			m->thp_kb = cap;
	}
	m->kb = m->thp_kb > m->base_kb ? m->thp_kb : m->base_kb;
	return true;
}

bool thp_allocstalls(const struct thp_counter *v, int n, uint64_t *sum)
{
	bool found = false;

	*sum = 0;
	for (int i = 0; i < n; i++)
		if (strncmp(v[i].name, "allocstall_", 11) == 0) {
			*sum += v[i].val;
			found = true;
		}
	return found;
}
