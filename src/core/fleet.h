/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fleet.h - many hosts at once: the model 'thp report' prints, read from the
 * JSON documents of 'thp status --json' and 'thp doctor --json' */
#ifndef THP_FLEET_H
#define THP_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "keys.h"

/* A THP policy as hosts share it: every writable setting, as 'thp set' names
 * it, sorted by key, and the page sizes whose anonymous THP it turns on. The
 * hosts of one policy point to one copy, so that memory grows with the
 * policies of a fleet, not with its hosts. */
struct thp_fleet_policy {
	int n;
	struct thp_kv *v;        /* N settings */
	char sizes[160];         /* sizes whose anonymous THP is on after inherit ("64K 2M"); "" none */
	uint64_t size_bytes[24]; /* those sizes in bytes */
	int nsizes;              /* -1 when the kernel has no per-size directories */
	unsigned hash;
};

/* One host, from its status document, its doctor document, or both. Its
 * texts are kept by the fleet. */
struct thp_fleet_host {
	const char *name;        /* the documents' host; else the last part of their root; else the file */
	const char *key;         /* what pairs documents: the host, else the root, else the file */
	const char *source[2];   /* where its status [0] and doctor [1] documents came from; "" none */
	const char *kernel;      /* release; "" unknown */
	const struct thp_fleet_policy *policy; /* NULL without a status document */
	int64_t anon_huge;       /* AnonHugePages in bytes; -1 unknown */
	int64_t stalls;          /* compact_stall since boot; -1 unknown */
	double fallback;         /* share of THP faults that fell back since boot; -1 unknown */
	int findings[3];         /* doctor findings per severity (info, warn, crit); -1 without doctor */
	int next;                /* the host read before it with the same key hash, plus 1; 0 none */
};

#define THP_FLEET_BUCKETS 4096

struct thp_fleet {
	int n, cap;
	struct thp_fleet_host *v; /* in the order their first document was read */
	int npol, polcap;
	struct thp_fleet_policy **pol;  /* the distinct policies */
	int bucket[THP_FLEET_BUCKETS];  /* the last host of each key hash, plus 1; 0 none */
	struct fleet_text *text;        /* the blocks the texts are kept in */
};

/* Called for each document (or file) that is skipped: SOURCE and why. */
typedef void (*thp_fleet_warn_fn)(void *ctx, const char *source, const char *why);

/* Reads the JSON documents of BUF (LEN bytes; one document, several one after
 * another, or an array of them) that came from SOURCE into F. A thp-status/2
 * (or /1) or thp-doctor/1 document joins the host it names, or adds one; anything else
 * (foreign or malformed JSON, or no document at all) is skipped and named to WARN. Returns the number
 * of documents taken, or -ENOMEM. */
int thp_fleet_parse(struct thp_fleet *f, const char *buf, size_t len, const char *source,
		    thp_fleet_warn_fn warn, void *ctx);

void thp_fleet_free(struct thp_fleet *f);

/* The value of setting KEY of H, or NULL when H does not show it. */
const char *thp_fleet_setting(const struct thp_fleet_host *h, const char *key);

/* True when A and B have the same policy (the same settings with the same
 * values), or neither has a status document. */
bool thp_fleet_same_policy(const struct thp_fleet_host *a, const struct thp_fleet_host *b);

/* Points KEYS (room for MAX) at the keys whose values differ between
 * policies A and B (NULL: none), or that only one has, in key order. Returns
 * how many differ (which may be more than MAX). */
int thp_fleet_policy_diff_of(const struct thp_fleet_policy *a, const struct thp_fleet_policy *b,
			     const char **keys, int max);

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
