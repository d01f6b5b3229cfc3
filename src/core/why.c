/* SPDX-License-Identifier: GPL-2.0-or-later */
/* why.c - why a mapping has no PMD-sized huge pages */
#include "why.h"

#include <stdio.h>
#include <string.h>

enum thp_vma_kind thp_vma_kind(const struct thp_vma *v)
{
	static const char *const shmem[] = { "/SYSV", "/memfd:", "/dev/zero", "/dev/shm/" };

	if (thp_vma_flag(v, "ht"))
		return THP_VMA_HUGETLB;
	if (v->name[0] == '/' || (v->inode && v->name[0] != '[')) {
		for (size_t i = 0; i < sizeof(shmem) / sizeof(shmem[0]); i++)
			if (strncmp(v->name, shmem[i], strlen(shmem[i])) == 0)
				return THP_VMA_SHMEM;
		return THP_VMA_FILE;
	}
	if (v->perms[3] == 's')
		return THP_VMA_SHMEM; /* shared anonymous memory is shmem */
	if (!v->name[0] || !strcmp(v->name, "[heap]") || !strncmp(v->name, "[stack", 6) ||
	    !strncmp(v->name, "[anon:", 6))
		return THP_VMA_ANON;
	return THP_VMA_SPECIAL;
}

uint64_t thp_vma_pmd_slots(const struct thp_vma *v, uint64_t pmd)
{
	uint64_t first, last;

	if (!pmd)
		return 0;
	first = (v->start + pmd - 1) / pmd;
	last = v->end / pmd;
	return last > first ? last - first : 0;
}

void thp_why_ctx_init(struct thp_why_ctx *c, const struct thp_status *st, const struct thp_pstatus *p)
{
	const struct thp_size *z = thp_status_pmd_size(st);

	memset(c, 0, sizeof(*c));
	c->pmd_size = st->dir ? (st->pmd_size ? st->pmd_size : 2u << 20) : 0;
	c->anon_policy = thp_status_pmd_policy(st);
	c->shmem_policy = z && z->shmem_effective ? z->shmem_effective
						  : thp_setting_word(thp_status_setting(st, "shmem_enabled"));
	c->proc_thp_enabled = p ? p->thp_enabled : -1;
}

static bool is(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

enum thp_why thp_vma_why(const struct thp_vma *v, const struct thp_why_ctx *c)
{
	enum thp_vma_kind k = thp_vma_kind(v);

	if (v->m.anon_huge || v->m.shmem_pmd || v->m.file_pmd)
		return THP_WHY_HUGE;
	if (k == THP_VMA_HUGETLB)
		return THP_WHY_HUGETLB;
	if (!c->pmd_size)
		return THP_WHY_NO_KERNEL;
	if (k == THP_VMA_SPECIAL)
		return THP_WHY_SPECIAL;
	if (c->proc_thp_enabled == 0)
		return THP_WHY_PROC_OFF;
	if (thp_vma_flag(v, "nh"))
		return THP_WHY_NOHUGEPAGE;
	if (k == THP_VMA_FILE)
		return THP_WHY_FILE;
	if (k == THP_VMA_SHMEM) {
		if (is(c->shmem_policy, "never") || is(c->shmem_policy, "deny") ||
		    (is(c->shmem_policy, "advise") && !thp_vma_flag(v, "hg")))
			return THP_WHY_SHMEM;
	} else if (is(c->anon_policy, "never")) {
		return THP_WHY_NEVER;
	} else if (is(c->anon_policy, "madvise") && !thp_vma_flag(v, "hg")) {
		return THP_WHY_NOT_ADVISED;
	}
	if (thp_vma_pmd_slots(v, c->pmd_size) == 0)
		return THP_WHY_NO_SLOT;
	if (v->eligible == 0)
		return THP_WHY_NOT_ELIGIBLE;
	return THP_WHY_NOT_FAULTED;
}

const char *thp_why_text(enum thp_why w, const struct thp_why_ctx *c, char *buf, size_t cap)
{
	char pmd[32];

	snprintf(pmd, sizeof(pmd), "%llu MiB", (unsigned long long)(c->pmd_size >> 20));
	switch (w) {
	case THP_WHY_HUGE: snprintf(buf, cap, "%s", ""); break;
	case THP_WHY_NO_KERNEL: snprintf(buf, cap, "kernel without THP support"); break;
	case THP_WHY_HUGETLB: snprintf(buf, cap, "hugetlbfs: static huge pages, not THP"); break;
	case THP_WHY_SPECIAL: snprintf(buf, cap, "kernel special mapping"); break;
	case THP_WHY_PROC_OFF: snprintf(buf, cap, "process has THP disabled (prctl)"); break;
	case THP_WHY_NOHUGEPAGE: snprintf(buf, cap, "MADV_NOHUGEPAGE"); break;
	case THP_WHY_NEVER:
		snprintf(buf, cap, "policy 'never' (MADV_COLLAPSE still possible)");
		break;
	case THP_WHY_NOT_ADVISED:
		snprintf(buf, cap, "policy 'madvise' and range not advised (MADV_HUGEPAGE)");
		break;
	case THP_WHY_NO_SLOT:
		snprintf(buf, cap, "no aligned %s slot inside (too small or misaligned)", pmd);
		break;
	case THP_WHY_NOT_ELIGIBLE: snprintf(buf, cap, "kernel reports it not eligible (THPeligible 0)"); break;
	case THP_WHY_NOT_FAULTED:
		snprintf(buf, cap, "eligible, not yet faulted or collapsed (khugepaged, or 'thp collapse')");
		break;
	case THP_WHY_SHMEM:
		snprintf(buf, cap, "shmem: shmem_enabled is '%s'%s", c->shmem_policy ? c->shmem_policy : "unknown",
			 is(c->shmem_policy, "advise") ? " and range not advised" : "");
		break;
	case THP_WHY_FILE:
		snprintf(buf, cap, "file-backed: huge only with large-folio filesystems or collapsed read-only text");
		break;
	}
	return buf;
}

const char *thp_why_key(enum thp_why w)
{
	static const char *const keys[] = {
		[THP_WHY_HUGE] = "huge",           [THP_WHY_NO_KERNEL] = "no-thp-kernel",
		[THP_WHY_HUGETLB] = "hugetlbfs",   [THP_WHY_SPECIAL] = "special-mapping",
		[THP_WHY_PROC_OFF] = "process-thp-disabled", [THP_WHY_NOHUGEPAGE] = "madv-nohugepage",
		[THP_WHY_NEVER] = "policy-never",  [THP_WHY_NOT_ADVISED] = "not-advised",
		[THP_WHY_NO_SLOT] = "no-aligned-slot", [THP_WHY_NOT_ELIGIBLE] = "not-eligible",
		[THP_WHY_NOT_FAULTED] = "not-faulted", [THP_WHY_SHMEM] = "shmem-policy",
		[THP_WHY_FILE] = "file-backed",
	};
	return keys[w];
}
