/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.h - many hosts at once: the model 'thp report' prints, read from the
 * JSON documents of 'thp status --json' and 'thp doctor --json' */
#ifndef THP_FLEET_H
#define THP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

/* One host, from its status document, its doctor document, or both. */
struct thp_fleet_host {
	char name[128];          /* the documents' host; else the last part of their root; else the file */
	char key[4096];          /* what pairs documents: the host, else the root, else the file */
	char source[2][512];     /* where its status [0] and doctor [1] documents came from; "" none */
	char kernel[96];         /* release; "" unknown */
	struct thp_kvlist policy; /* every writable setting, as 'thp set' names it, sorted by key */
	char sizes[160];         /* sizes whose anonymous THP is on after inherit ("64K 2M"); "" none */
	uint64_t size_bytes[24]; /* those sizes in bytes */
	int nsizes;              /* -1 when the kernel has no per-size directories */
	int64_t anon_huge;       /* AnonHugePages in bytes; -1 unknown */
	int64_t stalls;          /* compact_stall since boot; -1 unknown */
	double fallback;         /* share of THP faults that fell back since boot; -1 unknown */
	int findings[3];         /* doctor findings per severity (info, warn, crit); -1 without doctor */
};

struct thp_fleet {
	int n, cap;
	struct thp_fleet_host *v; /* in the order their first document was read */
};

/* Called for each document (or file) that is skipped: SOURCE and why. */
typedef void (*thp_fleet_warn_fn)(void *ctx, const char *source, const char *why);

/* Reads the JSON documents of BUF (LEN bytes; one document, several one after
 * another, or an array of them) that came from SOURCE into F. A thp-status/1
 * or thp-doctor/1 document joins the host it names, or adds one; anything else
 * (foreign or malformed JSON, or no document at all) is skipped and named to WARN. Returns the number
 * of documents taken, or -ENOMEM. */
int thp_fleet_parse(struct thp_fleet *f, const char *buf, size_t len, const char *source,
		    thp_fleet_warn_fn warn, void *ctx);

void thp_fleet_free(struct thp_fleet *f);

/* The value of setting KEY of H, or NULL when H does not show it. */
const char *thp_fleet_setting(const struct thp_fleet_host *h, const char *key);

/* True when A and B have the same policy (the same settings with the same values). */
bool thp_fleet_same_policy(const struct thp_fleet_host *a, const struct thp_fleet_host *b);

/* Points KEYS (room for MAX) at the keys whose values differ between A and B,
 * or that only one has, in key order. Returns how many differ (which may be
 * more than MAX). */
int thp_fleet_policy_diff(const struct thp_fleet_host *a, const struct thp_fleet_host *b,
			  const char **keys, int max);

/* Groups the hosts of F by policy: GROUP[i] is the group of host i, groups
 * numbered from 0 by size (the most hosts first; ties: the first host read
 * first); hosts without a status document share the last group. Returns the
 * number of groups. */
int thp_fleet_group(const struct thp_fleet *f, int *group);

#endif
