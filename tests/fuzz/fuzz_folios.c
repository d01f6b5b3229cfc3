/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_folios.c - pagemap and kpageflags decoding (thp ps --folios): the input
 * holds a PMD size, a VMA and the raw entries of both files, served from a
 * scratch root and a memfd */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/folios.h"
#include "fuzz.h"

static char dir[] = "/tmp/thp-fuzz-folios.XXXXXX";
static struct thp_root root;

/* Writes LEN bytes of DATA to REL below the scratch root. */
static void put(const char *rel, const void *data, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	if (!f || fwrite(data, 1, len, f) != len)
		abort();
	fclose(f);
}

static void cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		fputs("fuzz_folios: could not remove the scratch root\n", stderr);
}

static void setup(void)
{
	char cmd[160];

	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/proc %s/sys/kernel/mm/transparent_hugepage", dir, dir);
	if (system(cmd) != 0 || thp_root_open(&root, dir) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct thp_folio_reader *fr;
	struct thp_folio_stats s = { 0 };
	struct thp_vma v = { 0 };
	uint32_t head[3];
	size_t half;
	char pmd[32];
	int fd;

	if (!root.path[0])
		setup();
	if (size < sizeof(head))
		return 0;
	memcpy(head, data, sizeof(head));
	data += sizeof(head);
	size -= sizeof(head);
	half = size / 2;
	/* a PMD size that is usually sane, sometimes not */
	snprintf(pmd, sizeof(pmd), "%u\n", head[0] & 1 ? 2u << 20 : head[0]);
	put("sys/kernel/mm/transparent_hugepage/hpage_pmd_size", pmd, strlen(pmd));
	put("proc/kpageflags", data + half, size - half);
	/* pagemap entries point into the kpageflags given (PFN: bits 0-54) */
	fd = memfd_create("pagemap", 0);
	if (fd < 0)
		abort();
	for (size_t i = 0; i + 8 <= half; i += 8) {
		uint64_t e, mask = (1ull << 55) - 1, npfn = (size - half) / 8 + 1;
		memcpy(&e, data + i, 8);
		e = (e & ~mask) | ((e & mask) % npfn);
		if (write(fd, &e, 8) != 8)
			abort();
	}
	v.start = (uint64_t)(head[1] % 4096) << 12;
	v.end = v.start + ((uint64_t)(head[2] % 8192) << 12);
	v.m.rss = 1;
	v.m.anon_huge = head[2] & 0x200000;
	memcpy(v.perms, "rw-p", 5);
	if (thp_folio_reader_open(&root, &fr) == 0) {
		thp_folio_reader_cont(fr, (head[1] >> 12) & 0xfffe); /* --cont orders 1..15 */
		thp_folios_vma(fr, fd, &v, &s);
		thp_folio_reader_close(fr);
	}
	close(fd);
	return 0;
}
