/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prom.h - Prometheus text exposition format (version 0.0.4) */
#ifndef THP_PROM_H
#define THP_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/metrics.h"

/* Writes the "# HELP" and "# TYPE" lines of metric family NAME; TYPE is
 * "gauge" or "counter". The family's samples must follow before the next one. */
void out_prom_family(FILE *f, const char *name, const char *type, const char *help);

/* Ends the label list of out_prom_u64() and out_prom_num(). */
#define OUT_PROM_END ((const char *)NULL)

/* Writes one sample of NAME with value V; the variable arguments are label
 * name/value pairs ending with OUT_PROM_END. Label values are escaped with
 * out_escape(OUT_ESC_LABEL: \xHH for control characters and bytes that are not
 * UTF-8) and then for the exposition format, so any command name is safe. */
void out_prom_u64(FILE *f, const char *name, uint64_t v, ...);
void out_prom_num(FILE *f, const char *name, double v, ...);

/* Copies TEXT into BUF as a metric name part: lower case, with '_' before
 * each capital that follows a small letter or digit ("AnonHugePages" becomes
 * "anon_huge_pages") and '_' for any character not allowed in a name. */
const char *out_prom_snake(char *buf, size_t cap, const char *text);

/* Writes every family of M: build and kernel, policy, khugepaged, vmstat and
 * per-size counters, the huge page lines of /proc/meminfo, static pools,
 * buddyinfo, the top processes or command names, the doctor's findings and
 * drift. */
void out_prom_host(FILE *f, const struct thp_metrics *m);

#endif
