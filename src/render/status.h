/* SPDX-License-Identifier: GPL-2.0-or-later */
/* status.h - the status of the host as text and as its JSON document, which
 * 'thp status' prints and 'thp report' reads of a capture */
#ifndef THP_RENDER_STATUS_H
#define THP_RENDER_STATUS_H

#include "../core/root.h"
#include "../core/status.h"

struct thp_status_extra;

/* Prints the status ST, read below ROOT, with X (the NUMA nodes and the
 * journals, thp_status_extra_read()) in the document begun with
 * out_doc_begin() (schema THP_STATUS_SCHEMA). */
#define THP_STATUS_SCHEMA "thp-status/2"
void thp_status_print(const struct thp_root *root, const struct thp_status *st,
		      const struct thp_status_extra *x);

/* Prints the kernel's THP features that ST (read below ROOT) shows, and
 * since which Linux, as the document THP_FEATURES_SCHEMA (JSON when JSON). */
#define THP_FEATURES_SCHEMA "thp-features/1"
int thp_features_print(const struct thp_root *root, const struct thp_status *st, bool json);

#endif
