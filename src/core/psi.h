/* SPDX-License-Identifier: GPL-2.0-or-later */
/* psi.h - pressure stall information for memory (/proc/pressure/memory, Linux 4.20+) */
#ifndef THP_PSI_H
#define THP_PSI_H

#include <stdbool.h>
#include <stdint.h>

#include "root.h"

/* One "some" or "full" line: shares of wall time (percent) that tasks stalled. */
struct thp_psi_line {
	bool present;
	double avg10, avg60, avg300; /* percent, averaged over 10, 60 and 300 s */
	uint64_t total_us;           /* stall time since boot, microseconds */
};

struct thp_psi {
	struct thp_psi_line some; /* at least one task stalled */
	struct thp_psi_line full; /* all non-idle tasks stalled at once */
};

/* Parses pressure text ("some avg10=0.00 avg60=0.00 avg300=0.00 total=0" and
 * "full ..."). Returns 0, or -EINVAL when neither line parses. */
int thp_psi_parse(const char *buf, struct thp_psi *p);

/* Reads ROOT/proc/pressure/memory. Returns 0 or -errno: -ENOENT on kernels
 * without PSI, -EOPNOTSUPP when it was turned off at boot (psi=0). */
int thp_psi_read(const struct thp_root *root, struct thp_psi *p);

#endif
