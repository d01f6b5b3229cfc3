/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlbreach.h - how much memory the CPU's data TLB covers with 4 KiB and with
 * 2 MiB pages, from the TLB sizes the CPU reports (x86 cpuid) or the "TLB size"
 * line of /proc/cpuinfo */
#ifndef THP_TLBREACH_H
#define THP_TLBREACH_H

#include <stdint.h>

#include "root.h"

enum thp_tlb_src {
	THP_TLB_SRC_NONE,    /* no TLB sizes: see why */
	THP_TLB_SRC_CPUID,   /* cpuid of the running CPU (data TLB entries) */
	THP_TLB_SRC_CPUINFO, /* /proc/cpuinfo "TLB size" (AMD: the 4 KiB entries of
			      * the L2 instruction and data TLBs together) */
};

/* Entries of the largest data TLB level for one page size (0: unknown). */
struct thp_tlb_level {
	uint32_t entries;
	int level; /* 1, 2, ...; 0 when unknown */
};

struct thp_tlb_reach {
	enum thp_tlb_src src;
	struct thp_tlb_level k4, m2; /* 4 KiB and 2 MiB pages */
	const char *why;             /* THP_TLB_SRC_NONE: why there are no sizes */
};

/* Data TLB sizes from AMD's extended leaves: L5 is cpuid 0x80000005 and L6
 * 0x80000006, each { eax, ebx, ecx, edx } (EAX: 2M/4M pages, EBX: 4K pages;
 * L1 entries in bits 23:16, L2 in bits 27:16). Returns 0 or -ENOENT when
 * neither level reports a data TLB. */
int thp_tlb_reach_amd(const uint32_t l5[4], const uint32_t l6[4], struct thp_tlb_reach *r);

/* Data TLB sizes from Intel's leaf 0x18 (deterministic address translation
 * parameters): SUB[i] is sub-leaf i, { eax, ebx, ecx, edx }, N of them. Data,
 * unified and load-only TLBs count; entries are ways (EBX 31:16) times sets
 * (ECX). Returns 0 or -ENOENT when no sub-leaf describes a data TLB. */
int thp_tlb_reach_leaf18(const uint32_t (*sub)[4], int n, struct thp_tlb_reach *r);

/* The "TLB size : N 4K pages" line of /proc/cpuinfo text. Returns 0, or
 * -ENOENT without the line, -EINVAL for a line that is not that. */
int thp_tlb_reach_cpuinfo(const char *buf, struct thp_tlb_reach *r);

/* TLB sizes of ROOT's CPU: on the live host of an x86 CPU from cpuid, else
 * from ROOT/proc/cpuinfo (a capture's record); never the live CPU for a
 * recorded tree. Always fills R (src NONE with why when unknown). */
void thp_tlb_reach_read(const struct thp_root *root, struct thp_tlb_reach *r);

/* Bytes covered by L's entries with pages of PAGE bytes (0 when unknown). */
uint64_t thp_tlb_reach_bytes(const struct thp_tlb_level *l, uint64_t page);

#endif
