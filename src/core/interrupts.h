/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interrupts.h - TLB shootdowns received, from the "TLB" row of /proc/interrupts */
#ifndef THP_INTERRUPTS_H
#define THP_INTERRUPTS_H

#include <stdbool.h>
#include <stdint.h>

#include "root.h"

/* The TLB shootdown interrupts the CPUs have received since boot. */
struct thp_tlb_irqs {
	bool present;   /* the kernel shows a TLB row (x86); other architectures have none */
	int ncpus;      /* CPU columns of the file (online CPUs) */
	uint64_t total; /* the row's counts summed over the CPUs */
};

/* Parses /proc/interrupts text: a header of CPU column names ("CPU0 CPU1 ..."),
 * and the row "TLB:" with one decimal count per CPU column, then its
 * description. Returns 0 (a file without the row leaves T->present false),
 * -EINVAL for a header that is not CPU names, a second TLB row, or a TLB row
 * without a plain decimal count in every column, or -ERANGE when the sum
 * passes 2^64-1. */
int thp_tlb_irqs_parse(const char *buf, struct thp_tlb_irqs *t);

/* Reads ROOT/proc/interrupts. Returns 0 or -errno (see thp_tlb_irqs_parse). */
int thp_tlb_irqs_read(const struct thp_root *root, struct thp_tlb_irqs *t);

#endif
