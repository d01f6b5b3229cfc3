/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlbreach.c - data TLB sizes from cpuid or /proc/cpuinfo, and the memory they cover */
#include "tlbreach.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "parse.h"

#define SUBLEAVES_MAX 16

/* Keeps the level with more entries (the larger level on a tie). */
static void keep(struct thp_tlb_level *l, uint32_t entries, int level)
{
	if (entries > l->entries || (entries && entries == l->entries && level > l->level)) {
		l->entries = entries;
		l->level = level;
	}
}

int thp_tlb_reach_amd(const uint32_t l5[4], const uint32_t l6[4], struct thp_tlb_reach *r)
{
	memset(r, 0, sizeof(*r));
	/* L1: EAX 2M/4M, EBX 4K, data TLB entries in bits 23:16 */
	keep(&r->m2, l5[0] >> 16 & 0xff, 1);
	keep(&r->k4, l5[1] >> 16 & 0xff, 1);
	/* L2: data TLB entries in bits 27:16; associativity 0 (bits 31:28) means off */
	if (l6[0] >> 28)
		keep(&r->m2, l6[0] >> 16 & 0xfff, 2);
	if (l6[1] >> 28)
		keep(&r->k4, l6[1] >> 16 & 0xfff, 2);
	if (!r->k4.entries && !r->m2.entries)
		return -ENOENT;
	r->src = THP_TLB_SRC_CPUID;
	return 0;
}

int thp_tlb_reach_leaf18(const uint32_t (*sub)[4], int n, struct thp_tlb_reach *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < n; i++) {
		uint32_t ebx = sub[i][1], ecx = sub[i][2], edx = sub[i][3];
		uint32_t type = edx & 0x1f, entries = (ebx >> 16) * ecx;
		int level = (int)(edx >> 5 & 7);

		if (type != 1 && type != 3 && type != 4) /* data, unified, load-only */
			continue;
		if (ebx & 1)
			keep(&r->k4, entries, level);
		if (ebx & 2)
			keep(&r->m2, entries, level);
	}
	if (!r->k4.entries && !r->m2.entries)
		return -ENOENT;
	r->src = THP_TLB_SRC_CPUID;
	return 0;
}

int thp_tlb_reach_cpuinfo(const char *buf, struct thp_tlb_reach *r)
{
	const char *p = buf;
	char *end;
	unsigned long n;

	memset(r, 0, sizeof(*r));
	while (p && strncmp(p, "TLB size", 8) != 0)
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	if (!p)
		return -ENOENT;
	p += 8 + strspn(p + 8, " \t");
	if (*p != ':')
		return -EINVAL;
	p += 1 + strspn(p + 1, " ");
	if (*p < '0' || *p > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(p, &end, 10);
	if (errno || n == 0 || n > UINT32_MAX || strncmp(end, " 4K pages", 9) != 0 ||
	    (end[9] != '\n' && end[9] != '\0'))
		return -EINVAL;
	r->k4.entries = (uint32_t)n;
	r->k4.level = 2;
	r->src = THP_TLB_SRC_CPUINFO;
	return 0;
}

#if defined(__x86_64__) || defined(__i386__)
/* The running CPU's data TLB sizes from cpuid. Returns 0 or -ENOENT. */
static int from_cpuid(struct thp_tlb_reach *r)
{
	uint32_t v[4], l5[4], l6[4], sub[SUBLEAVES_MAX][4];
	unsigned max = __get_cpuid_max(0, NULL), ext = __get_cpuid_max(0x80000000, NULL);
	char vendor[13];
	int n;

	__cpuid(0, v[0], v[1], v[2], v[3]);
	memcpy(vendor, &v[1], 4);
	memcpy(vendor + 4, &v[3], 4);
	memcpy(vendor + 8, &v[2], 4);
	vendor[12] = '\0';
	if (!strcmp(vendor, "AuthenticAMD") || !strcmp(vendor, "HygonGenuine")) {
		if (ext < 0x80000006)
			return -ENOENT;
		__cpuid(0x80000005, l5[0], l5[1], l5[2], l5[3]);
		__cpuid(0x80000006, l6[0], l6[1], l6[2], l6[3]);
		return thp_tlb_reach_amd(l5, l6, r);
	}
	if (max < 0x18)
		return -ENOENT;
	__cpuid_count(0x18, 0, sub[0][0], sub[0][1], sub[0][2], sub[0][3]);
	n = sub[0][0] + 1 < SUBLEAVES_MAX ? (int)sub[0][0] + 1 : SUBLEAVES_MAX;
	for (int i = 1; i < n; i++)
		__cpuid_count(0x18, i, sub[i][0], sub[i][1], sub[i][2], sub[i][3]);
	return thp_tlb_reach_leaf18(sub, n, r);
}
#else
static int from_cpuid(struct thp_tlb_reach *r)
{
	(void)r;
	return -ENOENT;
}
#endif

void thp_tlb_reach_read(const struct thp_root *root, struct thp_tlb_reach *r)
{
	char *buf = NULL;
	int err;

	if (root->live && from_cpuid(r) == 0)
		return;
	err = thp_read(root, "proc/cpuinfo", &buf, NULL);
	if (!err)
		err = thp_tlb_reach_cpuinfo(buf, r);
	if (!err) {
		free(buf);
		return;
	}
	memset(r, 0, sizeof(*r));
	if (err == -EINVAL)
		r->why = "the 'TLB size' line of /proc/cpuinfo is not 'N 4K pages'";
	else if (root->live)
		r->why = "the CPU reports no TLB sizes (x86 cpuid) and /proc/cpuinfo has no 'TLB size' line";
	else if (!buf)
		r->why = "the capture has no readable /proc/cpuinfo";
	else
		r->why = "the recorded /proc/cpuinfo has no 'TLB size' line";
	free(buf);
}

uint64_t thp_tlb_reach_bytes(const struct thp_tlb_level *l, uint64_t page)
{
	return (uint64_t)l->entries * page;
}
