/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c - the THP sysfs tree: global settings, per-size (mTHP) policy, khugepaged */
#include "internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Known files in documentation order, with the kind of value each must hold. */
static const struct known {
	const char *name;
	bool khugepaged;
	enum thp_kind kind; /* THP_CHOICE, THP_INT, or THP_TEXT for "either" */
	const char *meaning;
} known[] = {
	{ "enabled", false, THP_CHOICE, "THP for anonymous memory on page fault" },
	{ "defrag", false, THP_CHOICE, "what a THP fault does when no huge block is free" },
	{ "shmem_enabled", false, THP_CHOICE, "THP for tmpfs and shared anonymous memory" },
	{ "use_zero_page", false, THP_INT, "a read fault maps the shared huge zero page" },
	{ "shrink_underused", false, THP_INT, "split THPs that are mostly zero pages under memory pressure" },
	{ "anon_beside_full", false, THP_INT, "anonymous THP beside a full mapping (kernel-specific)" },
	{ "hpage_pmd_size", false, THP_INT, "size of a PMD-mapped huge page in bytes" },
	{ "pages_to_scan", true, THP_INT, "pages scanned in each pass" },
	{ "scan_sleep_millisecs", true, THP_INT, "sleep between passes (0 keeps a CPU busy)" },
	{ "alloc_sleep_millisecs", true, THP_INT, "wait after a failed huge page allocation" },
	{ "defrag", true, THP_TEXT, "khugepaged may compact memory to get a huge page" },
	{ "max_ptes_none", true, THP_INT, "empty PTEs allowed in a range it collapses" },
	{ "max_ptes_swap", true, THP_INT, "swapped-out PTEs allowed in a range it collapses" },
	{ "max_ptes_shared", true, THP_INT, "shared PTEs allowed in a range it collapses" },
	{ "full_scans", true, THP_INT, "complete passes over all registered memory since boot" },
	{ "pages_collapsed", true, THP_INT, "huge pages made by collapsing since boot" },
};

#define NKNOWN (int)(sizeof(known) / sizeof(known[0]))

/* Index of a known file in KNOWN, or NKNOWN. */
static int known_index(const char *name, bool khugepaged)
{
	for (int i = 0; i < NKNOWN; i++)
		if (known[i].khugepaged == khugepaged && strcmp(known[i].name, name) == 0)
			return i;
	return NKNOWN;
}

const char *thp_setting_meaning(const struct thp_status *st, const char *name, bool khugepaged, char *buf,
				size_t cap)
{
	int i = known_index(name, khugepaged);
	uint64_t ptes = thp_status_ptes_per_pmd(st);

	if (i == NKNOWN)
		return NULL;
	if (!khugepaged || strcmp(name, "max_ptes_none") != 0 || !ptes)
		return known[i].meaning;
	snprintf(buf, cap, "%s (%llu: any)", known[i].meaning, (unsigned long long)(ptes - 1));
	return buf;
}

/* Turns a value of the wrong kind for a known file into a "malformed" error. */
static void expect_kind(struct thp_setting *s, enum thp_kind want)
{
	if (s->kind == THP_MISSING || s->kind == THP_ERROR || want == THP_TEXT || s->kind == want)
		return;
	s->kind = THP_ERROR;
	s->err = -EINVAL;
}

/* Copies at most CAP-1 bytes of S, stopping at the first newline. */
static void copy_line(char *dst, size_t cap, const char *s)
{
	size_t n = strcspn(s, "\n");
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

void thp_setting_read(const struct thp_root *root, const char *rel, const char *name,
		      struct thp_setting *s)
{
	char buf[1024];
	ssize_t n = thp_read_buf(root, rel, buf, sizeof(buf));

	memset(s, 0, sizeof(*s));
	copy_line(s->name, sizeof(s->name), name);
	if (n < 0) {
		s->kind = n == -ENOENT ? THP_MISSING : THP_ERROR;
		s->err = (int)n;
		return;
	}
	if (strchr(buf, '[')) {
		int err = thp_parse_choice(buf, &s->choice);
		s->kind = err ? THP_ERROR : THP_CHOICE;
		s->err = err;
		return;
	}
	int err = thp_parse_u64(buf, &s->num);
	if (err == 0) {
		s->kind = THP_INT;
		return;
	}
	if (err == -ERANGE) {
		s->kind = THP_ERROR;
		s->err = err;
		return;
	}
	const char *p = buf;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || memchr(buf, '\0', (size_t)n)) {
		s->kind = THP_ERROR;
		s->err = -EINVAL;
		return;
	}
	s->kind = THP_TEXT;
	copy_line(s->text, sizeof(s->text), p);
}

const struct thp_setting *thp_setting_find(const struct thp_setting *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

const char *thp_setting_word(const struct thp_setting *s)
{
	if (!s || s->kind != THP_CHOICE || s->choice.sel < 0)
		return NULL;
	return s->choice.words[s->choice.sel];
}

const struct thp_setting *thp_status_setting(const struct thp_status *st, const char *name)
{
	return thp_setting_find(st->settings, st->nsettings, name);
}

/* Orders settings as documented; ARG points to the khugepaged flag (qsort_r
 * keeps this reentrant for concurrent readers such as `thp serve`). */
static int cmp_setting(const void *a, const void *b, void *arg)
{
	bool sort_khugepaged = *(const bool *)arg;
	const struct thp_setting *x = a, *y = b;
	int rx = known_index(x->name, sort_khugepaged), ry = known_index(y->name, sort_khugepaged);
	return rx != ry ? rx - ry : strcmp(x->name, y->name);
}

static int cmp_size(const void *a, const void *b)
{
	const struct thp_size *x = a, *y = b;
	return (x->bytes > y->bytes) - (x->bytes < y->bytes);
}

static int cmp_counter(const void *a, const void *b)
{
	return strcmp(((const struct thp_counter *)a)->name, ((const struct thp_counter *)b)->name);
}

/* Reads every regular file of directory DIR into V (at most MAX), skipping SKIP.
 * Returns the count, or -errno when the directory cannot be listed. */
static int read_settings_dir(const struct thp_root *root, const char *dir, struct thp_setting *v,
			     int max, const char *skip, bool khugepaged)
{
	char path[512];
	struct dirent *de;
	DIR *d = thp_opendir(root, dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d)) && n < max) {
		int k = known_index(de->d_name, khugepaged);
		bool is_known = k < NKNOWN;

		if (de->d_name[0] == '.' || (skip && strcmp(de->d_name, skip) == 0))
			continue;
		if (de->d_type == DT_DIR && !is_known)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		thp_setting_read(root, path, de->d_name, &v[n]);
		if (!is_known && v[n].kind == THP_ERROR && v[n].err == -EISDIR)
			continue;
		if (is_known)
			expect_kind(&v[n], known[k].kind);
		n++;
	}
	closedir(d);
	qsort_r(v, (size_t)n, sizeof(*v), cmp_setting, &khugepaged);
	return n;
}

/* Reads hugepages-<size>kB/stats/ counters into Z. */
static void read_stats(const struct thp_root *root, const char *sizedir, struct thp_size *z)
{
	char dir[512], path[640];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/stats", sizedir);
	d = thp_opendir(root, dir);
	if (!d) {
		z->stats_err = errno == ENOENT ? 0 : -errno;
		return;
	}
	while ((de = readdir(d)) && z->nstats < THP_STATS_MAX) {
		char buf[64];
		struct thp_counter *c = &z->stats[z->nstats];

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (thp_read_buf(root, path, buf, sizeof(buf)) < 0 || thp_parse_u64(buf, &c->val))
			continue;
		copy_line(c->name, sizeof(c->name), de->d_name);
		z->nstats++;
	}
	closedir(d);
	qsort(z->stats, (size_t)z->nstats, sizeof(z->stats[0]), cmp_counter);
}

/* Resolves a per-size value: "inherit" takes the top-level word. */
static const char *resolve(const struct thp_setting *own, const char *top)
{
	const char *w = thp_setting_word(own);
	if (w && strcmp(w, "inherit") == 0)
		return top;
	return w;
}

/* Effective shmem policy for one size: top-level deny and force override every size. */
static const char *shmem_effective(const struct thp_status *st, const struct thp_size *z,
				   const char *top)
{
	if (top && strcmp(top, "deny") == 0)
		return "never";
	if (top && strcmp(top, "force") == 0)
		return z->bytes == st->pmd_size ? "force" : "never";
	return resolve(&z->shmem_enabled, top);
}

static void read_sizes(const struct thp_root *root, struct thp_status *st)
{
	char path[512];
	struct dirent *de;
	DIR *d = thp_opendir(root, st->dir);
	const char *top_anon = thp_setting_word(thp_status_setting(st, "enabled"));
	const char *top_shmem = thp_setting_word(thp_status_setting(st, "shmem_enabled"));

	if (!d) {
		st->sizes_err = -errno;
		return;
	}
	while ((de = readdir(d)) && st->nsizes < THP_SIZES_MAX) {
		uint64_t kb = thp_parse_size_dir(de->d_name);
		struct thp_size *z = &st->sizes[st->nsizes];

		if (!kb || kb > UINT64_MAX / 1024)
			continue;
		memset(z, 0, sizeof(*z));
		z->bytes = kb * 1024;
		snprintf(path, sizeof(path), "%s/%s/enabled", st->dir, de->d_name);
		thp_setting_read(root, path, "enabled", &z->enabled);
		expect_kind(&z->enabled, THP_CHOICE);
		snprintf(path, sizeof(path), "%s/%s/shmem_enabled", st->dir, de->d_name);
		thp_setting_read(root, path, "shmem_enabled", &z->shmem_enabled);
		expect_kind(&z->shmem_enabled, THP_CHOICE);
		snprintf(path, sizeof(path), "%s/%s", st->dir, de->d_name);
		read_stats(root, path, z);
		st->nsizes++;
	}
	closedir(d);
	qsort(st->sizes, (size_t)st->nsizes, sizeof(st->sizes[0]), cmp_size);
	for (int i = 0; i < st->nsizes; i++) {
		struct thp_size *z = &st->sizes[i];
		z->anon_effective = resolve(&z->enabled, top_anon);
		z->shmem_effective = shmem_effective(st, z, top_shmem);
	}
}

/* Finds the THP directory: the upstream one, or RHEL 6's. */
static void find_dir(const struct thp_root *root, struct thp_status *st)
{
	static const char *dirs[] = { "sys/kernel/mm/transparent_hugepage",
				      "sys/kernel/mm/redhat_transparent_hugepage" };
	struct stat sb;

	for (size_t i = 0; i < 2; i++) {
		/* a directory this user may not search still exists: its files
		 * are then reported unreadable, not the feature as missing */
		int err = thp_stat(root, dirs[i], &sb, 0);
		if (err == 0 ? S_ISDIR(sb.st_mode) : err == -EACCES) {
			st->dir = dirs[i];
			st->redhat = i == 1;
			return;
		}
	}
}

void thp_policy_read(const struct thp_root *root, struct thp_status *st)
{
	char path[512];
	struct thp_setting pmd;

	find_dir(root, st);
	if (!st->dir)
		return;
	snprintf(path, sizeof(path), "%s/hpage_pmd_size", st->dir);
	thp_setting_read(root, path, "hpage_pmd_size", &pmd);
	if (pmd.kind == THP_INT)
		st->pmd_size = pmd.num;
	int n = read_settings_dir(root, st->dir, st->settings, THP_SETTINGS_MAX, "hpage_pmd_size",
			      false);
	st->nsettings = n < 0 ? 0 : n;
	snprintf(path, sizeof(path), "%s/khugepaged", st->dir);
	n = read_settings_dir(root, path, st->khugepaged, THP_SETTINGS_MAX, NULL, true);
	st->nkhugepaged = n < 0 ? 0 : n;
	st->khugepaged_err = n < 0 ? n : 0;
	read_sizes(root, st);
}

const struct thp_size *thp_status_pmd_size(const struct thp_status *st)
{
	for (int i = 0; i < st->nsizes; i++)
		if (st->sizes[i].bytes == st->pmd_size)
			return &st->sizes[i];
	return NULL;
}

const char *thp_status_pmd_policy(const struct thp_status *st)
{
	const struct thp_size *z = thp_status_pmd_size(st);

	if (z && z->enabled.kind != THP_MISSING)
		return z->anon_effective;
	return thp_setting_word(thp_status_setting(st, "enabled"));
}
