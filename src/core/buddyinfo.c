/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buddyinfo.c - parse /proc/buddyinfo */
#include "buddyinfo.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Parses one line "Node N, zone NAME counts..." between P and END into Z.
 * Returns 0, -EINVAL, or -E2BIG when it has more orders than kept (Z is filled). */
static int parse_line(const char *p, const char *end, struct thp_buddy_zone *z)
{
	char line[1024], *s, *tok, *save;
	size_t n = (size_t)(end - p);
	uint64_t node;
	int err = 0;

	if (n >= sizeof(line))
		return -EINVAL;
	memcpy(line, p, n);
	line[n] = '\0';
	memset(z, 0, sizeof(*z));
	tok = strtok_r(line, " \t", &save);
	if (!tok || strcmp(tok, "Node") != 0)
		return -EINVAL;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || (s = strchr(tok, ',')) == NULL || s[1])
		return -EINVAL;
	*s = '\0';
	if (thp_parse_u64(tok, &node) || node > 1u << 20)
		return -EINVAL;
	z->node = (int)node;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || strcmp(tok, "zone") != 0)
		return -EINVAL;
	tok = strtok_r(NULL, " \t", &save);
	if (!tok || strlen(tok) >= sizeof(z->zone))
		return -EINVAL;
	strcpy(z->zone, tok);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		uint64_t v;
		if (thp_parse_u64(tok, &v))
			return -EINVAL;
		if (z->norders == THP_BUDDY_ORDERS) {
			err = -E2BIG;
			continue;
		}
		z->free[z->norders++] = v;
	}
	return z->norders ? err : -EINVAL;
}

int thp_buddyinfo_parse(const char *buf, struct thp_buddyinfo *b)
{
	bool any = false;

	b->nzones = 0;
	b->truncated = false;
	for (const char *p = buf; *p;) {
		const char *end = strchr(p, '\n');
		struct thp_buddy_zone z;
		int err;

		if (!end)
			end = p + strlen(p);
		err = parse_line(p, end, &z);
		if (err == 0 || err == -E2BIG) {
			any = true;
			if (err || b->nzones == THP_BUDDY_ZONES)
				b->truncated = true;
			if (b->nzones < THP_BUDDY_ZONES)
				b->zones[b->nzones++] = z;
		}
		p = *end ? end + 1 : end;
	}
	return any ? 0 : -EINVAL;
}

int thp_buddyinfo_read(const struct thp_root *root, struct thp_buddyinfo *b)
{
	char *buf;
	int err = thp_read(root, "proc/buddyinfo", &buf, NULL);

	b->nzones = 0;
	b->truncated = false;
	if (err)
		return err;
	err = thp_buddyinfo_parse(buf, b);
	free(buf);
	return err;
}

uint64_t thp_buddy_free_blocks(const struct thp_buddy_zone *z, int order)
{
	uint64_t sum = 0;

	for (int o = order < 0 ? z->norders : order; o < z->norders; o++) {
		int shift = o - order;
		uint64_t v = shift < 64 && z->free[o] <= UINT64_MAX >> shift ? z->free[o] << shift
									       : UINT64_MAX;
		sum = UINT64_MAX - sum < v ? UINT64_MAX : sum + v;
	}
	return sum;
}

int thp_pmd_order(uint64_t pmd_size, uint64_t page_size)
{
	int order = 0;

	if (!pmd_size || !page_size || pmd_size < page_size || (pmd_size & (pmd_size - 1)) ||
	    (page_size & (page_size - 1)))
		return -1;
	while ((page_size << order) < pmd_size)
		order++;
	return order;
}
