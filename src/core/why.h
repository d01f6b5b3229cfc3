/* SPDX-License-Identifier: GPL-2.0-or-later */
/* why.h - why a mapping has no PMD-sized huge pages, from what the kernel shows */
#ifndef THP_WHY_H
#define THP_WHY_H

#include <stddef.h>
#include <stdint.h>

#include "proc.h"
#include "status.h"

enum thp_vma_kind { THP_VMA_ANON, THP_VMA_SHMEM, THP_VMA_FILE, THP_VMA_SPECIAL, THP_VMA_HUGETLB };

/* Classifies V: anonymous ("", [heap], [stack], [anon:...]), shmem (SysV,
 * memfd, /dev/zero, /dev/shm, shared anonymous), file, a kernel special
 * mapping ([vdso], [vvar], ...) or hugetlbfs. */
enum thp_vma_kind thp_vma_kind(const struct thp_vma *v);

/* Number of whole PMD_SIZE-aligned PMD_SIZE slots inside V. */
uint64_t thp_vma_pmd_slots(const struct thp_vma *v, uint64_t pmd_size);

enum thp_why {
	THP_WHY_HUGE,         /* it has PMD-mapped huge pages */
	THP_WHY_NO_KERNEL,    /* the kernel has no THP */
	THP_WHY_HUGETLB,      /* hugetlbfs: static huge pages, not THP */
	THP_WHY_SPECIAL,      /* a kernel special mapping */
	THP_WHY_PROC_OFF,     /* the process has THP disabled (prctl) */
	THP_WHY_NOHUGEPAGE,   /* MADV_NOHUGEPAGE */
	THP_WHY_NEVER,        /* policy never */
	THP_WHY_NOT_ADVISED,  /* policy madvise, range not advised */
	THP_WHY_NO_SLOT,      /* no aligned PMD-sized slot inside */
	THP_WHY_NOT_ELIGIBLE, /* the kernel says THPeligible 0, for another reason */
	THP_WHY_NOT_FAULTED,  /* eligible, but not faulted or collapsed yet */
	THP_WHY_SHMEM,        /* shmem, and its policy */
	THP_WHY_FILE,         /* page cache of a regular file */
};

/* What decides: the host policy and the process. */
struct thp_why_ctx {
	const char *anon_policy;  /* PMD-size anon policy after inherit; NULL when unknown */
	const char *shmem_policy; /* PMD-size shmem policy; NULL when unknown */
	uint64_t pmd_size;        /* 0 when the kernel has no THP */
	int proc_thp_enabled;     /* THP_enabled of the process: 1, 0, -1 unknown */
};

/* Fills C from the host status ST and the process status P. */
void thp_why_ctx_init(struct thp_why_ctx *c, const struct thp_status *st, const struct thp_pstatus *p);

/* The first reason, in the order the kernel checks them, why V has no huge pages. */
enum thp_why thp_vma_why(const struct thp_vma *v, const struct thp_why_ctx *c);

/* Writes the reason in words into BUF (the policy named where it matters). */
const char *thp_why_text(enum thp_why w, const struct thp_why_ctx *c, char *buf, size_t cap);

/* A short stable key for JSON: "huge", "policy-never", "not-advised", ... */
const char *thp_why_key(enum thp_why w);

#endif
