/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy.c - the THP sysfs tree: global settings, per-size (mTHP) policy, khugepaged */
#include "internal.h"
#include "settings.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Rank of a known file of place P in the settings table (its documented
 * order); one past the last for a file thp does not know. */
static int known_rank(const char *name, enum thp_place p)
{
	const struct thp_setting_desc *d = thp_setting_desc_find(p, name, strlen(name));
	return d ? (int)(d - thp_setting_descs) : thp_nsetting_descs;
}

const char *thp_status_setting_meaning(const struct thp_status *st, const char *name, bool khugepaged,
				       char *buf, size_t cap)
{
	const char *m = thp_setting_meaning(name, khugepaged);
	uint64_t ptes = thp_status_ptes_per_pmd(st);
	const char *any = m ? strstr(m, " (511: any)") : NULL;

	if (!any)
		return m;
	if (ptes)
		snprintf(buf, cap, "%.*s (%llu: any)", (int)(any - m), m, (unsigned long long)(ptes - 1));
	else /* the page size is not known */
		snprintf(buf, cap, "%.*s", (int)(any - m), m);
	return buf;
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

/* Orders settings as documented; ARG points to their place (qsort_r keeps
 * this reentrant for concurrent readers such as `thp serve`). */
static int cmp_setting(const void *a, const void *b, void *arg)
{
	enum thp_place p = *(const enum thp_place *)arg;
	const struct thp_setting *x = a, *y = b;
	int rx = known_rank(x->name, p), ry = known_rank(y->name, p);
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

/* Reads FILE of the per-size directory SIZEDIR into S, as the table describes it. */
static void read_size_file(const struct thp_root *root, const char *sizedir, const char *file,
			   struct thp_setting *s)
{
	char path[640];

	snprintf(path, sizeof(path), "%s/%s", sizedir, file);
	thp_setting_read(root, path, file, s);
	thp_setting_expect(thp_setting_desc_find(THP_PLACE_SIZE, file, strlen(file)), s);
}

/* The per-size directories found while listing the THP directory (NULL when
 * listing another): read into ST, with their stats when STATS. */
struct size_dirs {
	struct thp_status *st;
	bool stats;
};

/* Reads per-size directory NAME (of KB kB) of SD->st's directory into its
 * next size, while there is room. */
static void read_size(const struct thp_root *root, struct size_dirs *sd, const char *name, uint64_t kb)
{
	char path[512];
	struct thp_status *st = sd->st;
	struct thp_size *z = &st->sizes[st->nsizes];

	if (kb > UINT64_MAX / 1024 || st->nsizes == THP_SIZES_MAX)
		return;
	memset(z, 0, sizeof(*z));
	z->bytes = kb * 1024;
	snprintf(path, sizeof(path), "%s/%s", st->dir, name);
	read_size_file(root, path, "enabled", &z->enabled);
	read_size_file(root, path, "shmem_enabled", &z->shmem_enabled);
	if (sd->stats)
		read_stats(root, path, z);
	st->nsizes++;
}

/* Orders the sizes read and resolves their effective policies, once the
 * top-level settings are read. */
static void sizes_resolve(struct thp_status *st)
{
	const char *top_anon = thp_setting_word(thp_status_setting(st, "enabled"));
	const char *top_shmem = thp_setting_word(thp_status_setting(st, "shmem_enabled"));

	qsort(st->sizes, (size_t)st->nsizes, sizeof(st->sizes[0]), cmp_size);
	for (int i = 0; i < st->nsizes; i++) {
		struct thp_size *z = &st->sizes[i];
		z->anon_effective = resolve(&z->enabled, top_anon);
		z->shmem_effective = shmem_effective(st, z, top_shmem);
	}
}

/* Reads every regular file of directory DIR into V (at most MAX), skipping
 * SKIP, and with SD each per-size directory into SD->st. Returns the count,
 * or -errno when the directory cannot be listed. */
static int read_settings_dir(const struct thp_root *root, const char *dir, struct thp_setting *v,
			     int max, const char *skip, enum thp_place place, struct size_dirs *sd)
{
	char path[512];
	struct dirent *de;
	DIR *d = thp_opendir(root, dir);
	int n = 0;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		const struct thp_setting_desc *known =
			thp_setting_desc_find(place, de->d_name, strlen(de->d_name));
		bool is_known = known != NULL;
		uint64_t kb = sd ? thp_parse_size_dir(de->d_name) : 0;

		if (kb) {
			read_size(root, sd, de->d_name, kb);
			continue;
		}
		if (n == max || de->d_name[0] == '.' || (skip && strcmp(de->d_name, skip) == 0))
			continue;
		if (de->d_type == DT_DIR && !is_known)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		thp_setting_read(root, path, de->d_name, &v[n]);
		if (!is_known && v[n].kind == THP_ERROR && v[n].err == -EISDIR)
			continue;
		if (is_known)
			thp_setting_expect(known, &v[n]);
		n++;
	}
	closedir(d);
	qsort_r(v, (size_t)n, sizeof(*v), cmp_setting, &place);
	return n;
}

const char *thp_policy_dir(const struct thp_root *root, bool *redhat)
{
	static const char *dirs[] = { "sys/kernel/mm/transparent_hugepage",
				      "sys/kernel/mm/redhat_transparent_hugepage" };
	struct stat sb;

	for (size_t i = 0; i < 2; i++) {
		/* a directory this user may not search still exists: its files
		 * are then reported unreadable, not the feature as missing */
		int err = thp_stat(root, dirs[i], &sb, 0);
		if (err == 0 ? S_ISDIR(sb.st_mode) : err == -EACCES) {
			if (redhat)
				*redhat = i == 1;
			return dirs[i];
		}
	}
	return NULL;
}

void thp_policy_read(const struct thp_root *root, struct thp_status *st, bool all)
{
	char path[512];
	struct thp_setting pmd;

	st->dir = thp_policy_dir(root, &st->redhat);
	if (!st->dir)
		return;
	snprintf(path, sizeof(path), "%s/hpage_pmd_size", st->dir);
	thp_setting_read(root, path, "hpage_pmd_size", &pmd);
	if (pmd.kind == THP_INT)
		st->pmd_size = pmd.num;
	/* one listing: the settings and the per-size directories */
	struct size_dirs sd = { st, all };
	int n = read_settings_dir(root, st->dir, st->settings, THP_SETTINGS_MAX, "hpage_pmd_size",
			      THP_PLACE_TOP, &sd);
	st->nsettings = n < 0 ? 0 : n;
	st->sizes_err = n < 0 ? n : 0;
	sizes_resolve(st);
	if (!all)
		return;
	snprintf(path, sizeof(path), "%s/khugepaged", st->dir);
	n = read_settings_dir(root, path, st->khugepaged, THP_SETTINGS_MAX, NULL,
			      THP_PLACE_KHUGEPAGED, NULL);
	st->nkhugepaged = n < 0 ? 0 : n;
	st->khugepaged_err = n < 0 ? n : 0;
}

static bool named(const char *name, const char *const *names, int n)
{
	for (int i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

void thp_policy_refresh(const struct thp_root *root, struct thp_status *st, const char *const *stats,
			int nstats, const char *const *kh, int nkh)
{
	char path[640], name[THP_NAME_MAX], buf[64];

	if (!st->dir)
		return;
	for (int i = 0; i < st->nkhugepaged; i++) {
		if (!named(st->khugepaged[i].name, kh, nkh))
			continue;
		snprintf(name, sizeof(name), "%s", st->khugepaged[i].name);
		snprintf(path, sizeof(path), "%s/khugepaged/%s", st->dir, name);
		thp_setting_read(root, path, name, &st->khugepaged[i]);
	}
	for (int i = 0; i < st->nsizes; i++) {
		struct thp_size *z = &st->sizes[i];

		for (int j = 0; j < z->nstats; j++) {
			struct thp_counter *c = &z->stats[j];

			if (!named(c->name, stats, nstats))
				continue;
			snprintf(path, sizeof(path), "%s/hugepages-%llukB/stats/%s", st->dir,
				 (unsigned long long)(z->bytes / 1024), c->name);
			if (thp_read_buf(root, path, buf, sizeof(buf)) >= 0)
				thp_parse_u64(buf, &c->val);
		}
	}
}

void thp_status_read_size_stats(const struct thp_root *root, struct thp_status *st)
{
	char path[512];

	for (int i = 0; st->dir && i < st->nsizes; i++) {
		struct thp_size *z = &st->sizes[i];

		if (z->nstats || z->stats_err)
			continue;
		snprintf(path, sizeof(path), "%s/hugepages-%llukB", st->dir, (unsigned long long)(z->bytes >> 10));
		read_stats(root, path, z);
	}
}

uint64_t thp_status_mthp_held(const struct thp_status *st, const char *policy)
{
	uint64_t sum = 0, nr;

	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *z = &st->sizes[i];

		if (z->bytes != st->pmd_size && (!policy || (z->anon_effective && !strcmp(z->anon_effective, policy))) &&
		    thp_counter_get(z->stats, z->nstats, "nr_anon", &nr))
			sum += nr * z->bytes;
	}
	return sum;
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
