/* SPDX-License-Identifier: GPL-2.0-or-later */
/* why.h - why a mapping has huge pages or not, of which sizes, from what the
 * kernel shows: every size's policy (mTHP), shmem and tmpfs mounts, the
 * filesystem of a file, the process's prctl, hugetlbfs */
#ifndef THP_WHY_H
#define THP_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mounts.h"
#include "proc.h"
#include "status.h"

enum thp_vma_kind { THP_VMA_ANON, THP_VMA_SHMEM, THP_VMA_FILE, THP_VMA_SPECIAL, THP_VMA_HUGETLB };

/* Where the THP policy of shmem memory comes from. */
enum thp_shmem_kind {
	THP_SHM_ANON,     /* shared anonymous (MAP_SHARED|MAP_ANONYMOUS, /dev/zero): per-size shmem_enabled */
	THP_SHM_INTERNAL, /* SysV shm and memfd, on the kernel's own mount: top-level shmem_enabled */
	THP_SHM_TMPFS,    /* a file on a tmpfs mount: the mount's huge= option */
};

/* Classifies V: anonymous ("", [heap], [stack], [anon:...], private /dev/zero),
 * shmem (SysV, memfd, shared anonymous, files on a tmpfs mount of MOUNTS or
 * below /dev/shm when MOUNTS is NULL), file, a kernel special mapping
 * ([vdso], [vvar], ...) or hugetlbfs. */
enum thp_vma_kind thp_vma_kind(const struct thp_vma *v, const struct thp_mounts *mounts);

/* For a shmem VMA: which policy applies. */
enum thp_shmem_kind thp_vma_shmem_kind(const struct thp_vma *v, const struct thp_mounts *mounts);

/* Number of whole naturally aligned SIZE-byte slots inside V. */
uint64_t thp_vma_pmd_slots(const struct thp_vma *v, uint64_t size);

enum thp_why {
	THP_WHY_HUGE,           /* it has PMD-mapped huge pages */
	THP_WHY_NO_KERNEL,      /* the kernel has no THP */
	THP_WHY_HUGETLB,        /* hugetlbfs: static huge pages, not THP */
	THP_WHY_SPECIAL,        /* a kernel special mapping */
	THP_WHY_PROC_OFF,       /* the process has THP disabled (prctl) */
	THP_WHY_EXCEPT_ADVISED, /* PR_THP_DISABLE_EXCEPT_ADVISED, range not advised (inferred) */
	THP_WHY_NOHUGEPAGE,     /* MADV_NOHUGEPAGE */
	THP_WHY_NEVER,          /* policy never */
	THP_WHY_NOT_ADVISED,    /* policy madvise, range not advised */
	THP_WHY_NO_SLOT,        /* no aligned PMD-sized slot inside */
	THP_WHY_NOT_ELIGIBLE,   /* the kernel says THPeligible 0, for another reason */
	THP_WHY_NOT_FAULTED,    /* eligible, but not faulted or collapsed yet */
	THP_WHY_SHMEM,          /* shared anonymous memory, SysV or memfd, and shmem_enabled */
	THP_WHY_TMPFS,          /* a tmpfs file, and the mount's huge= option */
	THP_WHY_FILE,           /* page cache of a regular file */
};

/* One size other than the PMD size, as the policy leaves it. */
struct thp_why_size {
	uint64_t bytes;
	const char *anon;  /* effective anonymous policy; NULL without a control */
	const char *shmem; /* effective policy for shared anonymous memory; NULL without one */
};

/* What decides: the host policy, the kernel, the process and its mounts. */
struct thp_why_ctx {
	const char *anon_policy;  /* PMD-size anon policy after inherit; NULL when unknown */
	const char *shmem_policy; /* PMD-size policy of shared anonymous memory; NULL when unknown */
	const char *shmem_top;    /* top-level shmem_enabled (SysV, memfd; deny and force for tmpfs) */
	uint64_t pmd_size;        /* 0 when the kernel has no THP */
	int kmajor, kminor;       /* the release; -1 when unknown */
	int proc_thp_enabled;     /* thp_enabled of the process's thp_pstatus (proc.h) */
	bool except_advised;      /* PR_THP_DISABLE_EXCEPT_ADVISED, inferred (thp_except_advised_infer) */
	int nsizes;
	struct thp_why_size sizes[THP_SIZES_MAX]; /* mTHP sizes, ascending */
	const struct thp_mounts *mounts;          /* the process's; NULL when unknown */
};

/* Fills C from the host status ST and the process status P (its policy words
 * point into ST). C->mounts is left NULL. */
void thp_why_ctx_init(struct thp_why_ctx *c, const struct thp_status *st, const struct thp_pstatus *p);

/* The first reason, in the order the kernel checks them, why V has no PMD-sized huge pages. */
enum thp_why thp_vma_why(const struct thp_vma *v, const struct thp_why_ctx *c);

/* The mTHP sizes V may get at a page fault: bit I set for C->sizes[I] when
 * its policy allows it for V (advice, prctl, MADV_NOHUGEPAGE) and V holds a
 * naturally aligned slot of that size. */
unsigned thp_vma_mthp(const struct thp_vma *v, const struct thp_why_ctx *c);

/* WHY of V in words: the mTHP sizes it may get (with the policy that allows
 * each), then reason W for the PMD size, naming the policy, mount, filesystem
 * or hugetlb pages that matter. "" for THP_WHY_HUGE. */
const char *thp_vma_why_text(const struct thp_vma *v, enum thp_why w, const struct thp_why_ctx *c,
			     char *buf, size_t cap);

/* A short stable key for JSON: "huge", "policy-never", "not-advised", ... */
const char *thp_why_key(enum thp_why w);

/* How the mappings of one process bear on PR_THP_DISABLE_EXCEPT_ADVISED,
 * which /proc does not show (THP_enabled stays 1). */
struct thp_ea_evidence {
	int against; /* unadvised anonymous mappings with an aligned slot: THPeligible 1 */
	int support; /* the same with THPeligible 0 and no other reason for it */
};

/* True when the host of C lets the mode be told from smaps: Linux 6.18+
 * (which has it) and a PMD policy of 'always' (under which an unadvised
 * mapping is eligible unless something keeps it out). */
bool thp_except_advised_possible(const struct thp_why_ctx *c);

/* Adds what V says to E: only under policy 'always' on Linux 6.18+, for a
 * process with THP_enabled 1, about unadvised anonymous mappings that hold an
 * aligned PMD slot and show THPeligible. */
void thp_except_advised_evidence(const struct thp_vma *v, const struct thp_why_ctx *c,
				 struct thp_ea_evidence *e);

/* True when E leaves one reading: the mode is set (some support, nothing against). */
bool thp_except_advised_inferred(const struct thp_ea_evidence *e);

/* Reads /proc/PID/smaps and gathers the evidence of process PID (whose
 * THP_enabled C->proc_thp_enabled holds) into E; reads nothing (E empty) when
 * C rules the mode out. Returns 0 or -errno. */
int thp_except_advised_read(const struct thp_root *root, pid_t pid, const struct thp_why_ctx *c,
			    struct thp_ea_evidence *e);

/* Infers the mode for process S under host context C and, when set, finds
 * the topmost ancestor that has it too (ORIGIN, maybe S itself). Returns true
 * when the mode is inferred for S. */
bool thp_except_advised_infer(const struct thp_root *root, const struct thp_pstatus *s,
			      const struct thp_why_ctx *c, struct thp_ea_evidence *e,
			      struct thp_pstatus *origin);

#endif
