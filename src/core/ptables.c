/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptables.c - page-table memory of a process and its estimate with 2 MiB pages */
#include "ptables.h"

#include <string.h>

#include "why.h"

uint64_t thp_vma_pt_replaced(const struct thp_vma *v)
{
	enum thp_vma_kind k = thp_vma_kind(v, NULL); /* by name, as without mountinfo */
	uint64_t slots, pmd, tabled, fill;

	if (k != THP_VMA_SHMEM && (k != THP_VMA_ANON || !strncmp(v->name, "[stack", 6)))
		return 0;
	slots = thp_vma_pmd_slots(v, THP_PT_SPAN);
	pmd = v->m.shmem_pmd + v->m.file_pmd;
	tabled = v->m.rss > pmd ? v->m.rss - pmd : 0;
	fill = tabled / THP_PT_SPAN + (tabled % THP_PT_SPAN != 0);
	return fill < slots ? fill : slots;
}

uint64_t thp_pt_estimate(uint64_t vmpte, uint64_t replaced)
{
	return replaced <= vmpte / THP_PT_TABLE ? vmpte - replaced * THP_PT_TABLE : 0;
}

uint64_t thp_pt_shmem(uint64_t rss_shmem, uint64_t pmd_mapped, uint64_t vmpte)
{
	uint64_t small = rss_shmem > pmd_mapped ? rss_shmem - pmd_mapped : 0;
	uint64_t pt = small / (THP_PT_SPAN / THP_PT_TABLE); /* 8 bytes per 4 KiB page */

	return pt < vmpte ? pt : vmpte;
}
