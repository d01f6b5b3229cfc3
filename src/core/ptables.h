/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ptables.h - page-table memory of a process (VmPTE), and an estimate of it
 * with 2 MiB hugetlb pages from the process's mappings */
#ifndef THP_PTABLES_H
#define THP_PTABLES_H

#include <stdint.h>

#include "proc.h"

/* The estimate is made for 4 KiB base pages (x86-64, arm64 with 4 KiB pages):
 * a page-table page holds 512 entries of 8 bytes, and one last-level table
 * maps THP_PT_SPAN. */
#define THP_PT_TABLE 4096ull
#define THP_PT_SPAN (2ull << 20)

/* Last-level page tables that mapping V would not need if its memory were in
 * 2 MiB hugetlb pages: its aligned 2 MiB slots, at most as many as the memory
 * it maps through 4 KiB entries fills (Rss less ShmemPmdMapped and
 * FilePmdMapped, in 2 MiB, rounded up). 0 for what hugetlbfs cannot hold
 * (files, stacks, special mappings) and for hugetlb mappings, which have none.
 * Anonymous THP counts as 4 KiB: the kernel keeps a page table deposited
 * under each PMD-mapped anonymous THP, and VmPTE counts it. */
uint64_t thp_vma_pt_replaced(const struct thp_vma *v);

/* Page-table bytes with REPLACED last-level tables fewer than VMPTE bytes
 * (never below 0). */
uint64_t thp_pt_estimate(uint64_t vmpte, uint64_t replaced);

/* Page-table bytes that RSS_SHMEM bytes of shared memory cost a process when
 * mapped with 4 KiB pages (8 bytes per page), PMD_MAPPED of it excluded, and
 * at most VMPTE (what the process spends on page tables at all). */
uint64_t thp_pt_shmem(uint64_t rss_shmem, uint64_t pmd_mapped, uint64_t vmpte);

#endif
