/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlb.h - the dTLB misses of a process's threads as 'thp show PID --tlb'
 * prints them, in text and as its JSON document */
#ifndef THP_RENDER_TLB_H
#define THP_RENDER_TLB_H

#include "../core/proc.h"
#include "../core/tlbcount.h"

/* Prints what was counted of process ST over SECS seconds (P; R its
 * rollup) in the document begun with out_doc_begin() (schema
 * THP_SHOW_TLB_SCHEMA): a line about the process, then a line per thread
 * and their sums (in text the columns of the misses, in JSON every one). */
#define THP_SHOW_TLB_SCHEMA "thp-show-tlb/2"
void thp_tlb_print(const struct thp_pstatus *st, double secs, const struct thp_tlb_proc *p,
		   const struct thp_rollup *r);

#endif
