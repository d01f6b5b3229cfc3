/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rules.h - what doctor rules share; only the rule files and doctor.c include it */
#ifndef THP_RULES_H
#define THP_RULES_H

#include "doctor.h"

/* A rule reads H and adds findings to OUT; it never prints or fails. */
typedef void (*thp_rule_fn)(const struct thp_host *h, struct thp_findings *out);

/* Host rules (rules_host.c). */
void rule_always_always(const struct thp_host *h, struct thp_findings *out);
void rule_compaction_stalls(const struct thp_host *h, struct thp_findings *out);
void rule_khugepaged(const struct thp_host *h, struct thp_findings *out);
void rule_in_use_anyway(const struct thp_host *h, struct thp_findings *out);
void rule_hugetlb_pool(const struct thp_host *h, struct thp_findings *out);
void rule_page_tables(const struct thp_host *h, struct thp_findings *out);
void rule_tlb_shootdowns(const struct thp_host *h, struct thp_findings *out);
void rule_fallback_charge(const struct thp_host *h, struct thp_findings *out);
void rule_virtual_machine(const struct thp_host *h, struct thp_findings *out);
void rule_no_huge_blocks(const struct thp_host *h, struct thp_findings *out);
void rule_persistence(const struct thp_host *h, struct thp_findings *out);
void rule_tuned(const struct thp_host *h, struct thp_findings *out);
void rule_journal(const struct thp_host *h, struct thp_findings *out);
void rule_pools_journal(const struct thp_host *h, struct thp_findings *out);

/* Compaction and watermark rules (rules_vm.c). */
void rule_proactive_off(const struct thp_host *h, struct thp_findings *out);
void rule_min_free_high(const struct thp_host *h, struct thp_findings *out);

/* Process rules (rules_proc.c). */
void rule_workloads(const struct thp_host *h, struct thp_findings *out);
void rule_thp_inherited(const struct thp_host *h, struct thp_findings *out);
void rule_malloc_conf(const struct thp_host *h, struct thp_findings *out);
void rule_page_tables_shared(const struct thp_host *h, struct thp_findings *out);
void rule_remote_hugetlb(const struct thp_host *h, struct thp_findings *out);

/* Adds a finding (a scratch one when OUT is full, counted as dropped). */
struct thp_finding *finding_add(struct thp_findings *out, const char *id, enum thp_severity sev,
				const char *why);
void finding_title(struct thp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void finding_fix(struct thp_finding *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Evidence of each kind; SRC is the file the value comes from ("" when derived). */
void ev_count(struct thp_finding *f, const char *src, const char *name, uint64_t v);
void ev_bytes(struct thp_finding *f, const char *src, const char *name, uint64_t v);
void ev_ratio(struct thp_finding *f, const char *src, const char *name, uint64_t part,
	      uint64_t whole);
void ev_rate(struct thp_finding *f, const char *src, const char *name, double per_sec);
void ev_seconds(struct thp_finding *f, const char *src, const char *name, double secs);
void ev_text(struct thp_finding *f, const char *src, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* "/sys/kernel/mm/transparent_hugepage/NAME" for the host's THP directory. */
const char *thp_src(const struct thp_host *h, const char *name, char *buf, size_t cap);

/* A /proc/meminfo value in bytes (or count); false when absent. */
bool meminfo(const struct thp_host *h, const char *name, uint64_t *v);

/* A /proc/vmstat counter over the sample window (since boot without a
 * sample); false when the kernel lacks it. */
bool vm_delta(const struct thp_host *h, const char *name, uint64_t *v);

/* TLB shootdowns (/proc/interrupts) over the sample window, or since boot
 * without a sample; false when the kernel does not count them, the file could
 * not be read, or CPUs came or went during the sample. */
bool tlb_delta(const struct thp_host *h, uint64_t *v);

/* Adds the TLB shootdown rate over the window as evidence, or that this
 * architecture does not count them; nothing when /proc/interrupts is unread. */
void ev_tlb(struct thp_finding *f, const struct thp_host *h);

/* The sample length, or the uptime without a sample; 0 when unknown. */
double window_secs(const struct thp_host *h);

/* Adds the window as evidence: "sample" or "uptime". */
void ev_window(struct thp_finding *f, const struct thp_host *h);

/* True when word W equals S (NULL-safe). */
bool word_is(const char *w, const char *s);

#endif
