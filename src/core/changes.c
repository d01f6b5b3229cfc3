/* SPDX-License-Identifier: GPL-2.0-or-later */
/* changes.c - the settings of a host that thp writes: read, and check values */
#include "changes.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arg.h"
#include "pools.h"

void thp_setting_value(const struct thp_setting *s, char *buf, size_t cap)
{
	const char *w = thp_setting_word(s);

	if (w)
		snprintf(buf, cap, "%s", w);
	else if (s->kind == THP_INT)
		snprintf(buf, cap, "%llu", (unsigned long long)s->num);
	else
		buf[0] = '\0';
}

/* Puts the setting of key K into OUT: as ST read it (Z: its page size's
 * entry), or read from PATH below ROOT when ST has none: a place ST did not
 * read (khugepaged and vm after thp_status_read_policy()), or a file its
 * listing lacked. */
static void setting_of(const struct thp_root *root, const struct thp_status *st, const struct thp_size *z,
		       const struct thp_key *k, const char *path, struct thp_setting *out)
{
	const char *f = k->d->file;
	const struct thp_setting *s = NULL;

	if (k->d->place == THP_PLACE_TOP)
		s = thp_setting_find(st->settings, st->nsettings, f);
	else if (k->d->place == THP_PLACE_KHUGEPAGED)
		s = thp_setting_find(st->khugepaged, st->nkhugepaged, f);
	else if (k->d->place == THP_PLACE_VM)
		s = thp_setting_find(st->vm, st->nvm, f);
	else if (z && strcmp(f, "enabled") == 0)
		s = &z->enabled;
	else if (z && strcmp(f, "shmem_enabled") == 0)
		s = &z->shmem_enabled;
	if (s) {
		*out = *s;
		return;
	}
	thp_setting_read(root, path, f, out);
	thp_setting_expect(k->d, out);
}

/* Adds every setting thp writes at place P (Z: of that page size) to CS in
 * table order, skipping files the kernel lacks. */
static void add_place(const struct thp_root *root, const struct thp_status *st, struct thp_changes *cs,
		      enum thp_place p, const struct thp_size *z)
{
	for (int i = 0; i < thp_nsetting_descs && cs->n < THP_KV_MAX; i++) {
		struct thp_key k = { &thp_setting_descs[i], z ? z->bytes : 0 };
		struct thp_change *c = &cs->v[cs->n];

		if (k.d->place != p || !(k.d->flags & THP_SET))
			continue;
		memset(c, 0, sizeof(*c));
		c->k = k;
		thp_key_format(&k, c->key, sizeof(c->key));
		thp_key_path(&k, c->path, sizeof(c->path));
		setting_of(root, st, z, &k, c->path, &c->cur);
		if (c->cur.kind == THP_MISSING)
			continue;
		thp_setting_value(&c->cur, c->old, sizeof(c->old));
		cs->n++;
	}
}

int thp_changes_of(const struct thp_root *root, const struct thp_status *st, struct thp_changes *cs)
{
	memset(cs, 0, sizeof(*cs));
	if (!st->dir || st->redhat)
		return st->redhat ? -EOPNOTSUPP : -ENOENT;
	if (thp_status_ptes_per_pmd(st))
		cs->ptes_max = thp_status_ptes_per_pmd(st) - 1;
	for (int p = 0; p < THP_PLACE_COUNT; p++) {
		if (p != THP_PLACE_SIZE)
			add_place(root, st, cs, (enum thp_place)p, NULL);
		for (int i = 0; p == THP_PLACE_SIZE && i < st->nsizes; i++)
			add_place(root, st, cs, THP_PLACE_SIZE, &st->sizes[i]);
	}
	return 0;
}

int thp_changes_read(const struct thp_root *root, struct thp_changes *cs)
{
	struct thp_status *st = malloc(sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	thp_status_read_policy(root, st); /* the settings and sizes; khugepaged and vm are read after */
	err = thp_changes_of(root, st, cs);
	free(st);
	return err;
}

void thp_changes_read_why(const struct thp_root *root, int err, char *why, size_t cap)
{
	if (err == -ENOENT && root->live)
		snprintf(why, cap, "this kernel has no /" THP_SYSFS_DIR " (built without THP)");
	else if (err == -ENOENT)
		snprintf(why, cap, "'%s' has no " THP_SYSFS_DIR, root->path);
	else if (err == -EOPNOTSUPP)
		snprintf(why, cap, "RHEL 6's redhat_transparent_hugepage is not supported: it predates these settings");
	else
		snprintf(why, cap, "cannot read THP settings below '%s': %s", root->path, strerror(-err));
}

struct thp_change *thp_change_find(const struct thp_changes *cs, const char *key)
{
	for (int i = 0; i < cs->n; i++)
		if (strcmp(cs->v[i].key, key) == 0)
			return (struct thp_change *)&cs->v[i];
	return NULL;
}

/* Checks VALUE against the choice list the file of C shows. */
static int check_choice(const struct thp_change *c, const char *value, char *out, char *why,
			size_t cap)
{
	const struct thp_choice *ch = &c->cur.choice;
	size_t len = 0;

	if (c->cur.kind == THP_CHOICE && thp_choice_find(ch, value) >= 0) {
		snprintf(out, THP_VALUE_MAX, "%s", value);
		return 0;
	}
	len = (size_t)snprintf(why, cap, "'%s' accepts", c->key);
	for (int i = 0; i < ch->n && len < cap; i++)
		len += (size_t)snprintf(why + len, cap - len, "%s %s", i ? "," : "", ch->words[i]);
	if (c->cur.kind != THP_CHOICE)
		snprintf(why, cap, "'%s' does not hold a choice list here", c->key);
	return -EINVAL;
}

int thp_change_check(const struct thp_changes *cs, const struct thp_change *c, const char *value,
		     bool strict, char *out, char *why, size_t cap)
{
	const struct thp_setting_desc *d = c->k.d;
	uint64_t v, hi = d->hi;

	if (c->cur.kind == THP_ERROR) {
		snprintf(why, cap, "cannot read '%s': %s", c->key,
			 thp_read_strerror(c->cur.err));
		return -EINVAL;
	}
	if (d->shows == THP_CHOICE)
		return check_choice(c, value, out, why, cap);
	if ((d->flags & THP_PTES) && cs->ptes_max)
		hi = cs->ptes_max;
	if (strict ? thp_arg_u64(value, d->lo, hi, &v) != 0
		   : thp_parse_u64(value, &v) != 0 || v < d->lo || v > hi) {
		snprintf(why, cap, "'%s' accepts a decimal integer from %llu to %llu", c->key,
			 (unsigned long long)d->lo, (unsigned long long)hi);
		return -EINVAL;
	}
	snprintf(out, THP_VALUE_MAX, "%llu", (unsigned long long)v);
	return 0;
}

/* Why CS lacks the setting of K, whose key is CANON: a size whose directory
 * lacks that file (8K has no 'enabled': order-1 folios serve shmem and files
 * only), a size the kernel does not offer, or no per-size control at all. */
static void absent(const struct thp_changes *cs, const struct thp_key *k, const char *canon, char *why,
		   size_t cap)
{
	const struct thp_setting_desc *anon = thp_setting_desc_find(THP_PLACE_SIZE, "enabled", 7);
	const struct thp_setting_desc *shm = thp_setting_desc_find(THP_PLACE_SIZE, "shmem_enabled", 13);
	bool size = k->d->place == THP_PLACE_SIZE, sized = false, this_size = false;

	for (int i = 0; i < cs->n; i++) {
		bool sz = cs->v[i].k.d->place == THP_PLACE_SIZE;
		sized |= sz;
		this_size |= sz && cs->v[i].k.size == k->size;
	}
	if (size && this_size && k->d == anon)
		snprintf(why, cap, "'%s': this size has no anonymous control (the kernel gives folios "
			 "of this size to shmem and files only)", canon);
	else if (size && !this_size && sized)
		snprintf(why, cap, "this kernel has no '%s' (no hugepages-%llukB directory; 'thp status' lists the sizes)",
			 canon, (unsigned long long)(k->size >> 10));
	else if (size && !sized)
		snprintf(why, cap, "this kernel has no '%s' (per-size THP needs Linux %s+, per-size shmem %s+)",
			 canon, anon->since, shm->since);
	else if (!size && k->d->since)
		snprintf(why, cap, "this kernel has no '%s' (it came with Linux %s)", canon, k->d->since);
	else
		snprintf(why, cap, "this kernel has no '%s'", canon);
}

int thp_changes_want(struct thp_changes *cs, const char *key, const char *value, char *why,
		     size_t cap)
{
	struct thp_key k;
	char canon[THP_KEY_MAX];
	int err = thp_key_parse(key, &k), matched = 0;

	if (err == -EINVAL) {
		snprintf(why, cap, "'%s': a size is written like 64K, 2M or all", key);
		return -EINVAL;
	}
	if (err && thp_is_pool_key(key)) {
		snprintf(why, cap, "'%s' sizes a static huge page pool: 'thp hugetlb set SIZE=PAGES' "
			 "resizes it, 'thp hugetlb persist SIZE=PAGES' keeps it at boot", key);
		return -ENOENT;
	}
	if (err) {
		snprintf(why, cap, "'%s' is not a writable THP setting (see 'thp set --list-keys')", key);
		return -ENOENT;
	}
	thp_key_format(&k, canon, sizeof(canon));
	for (int i = 0; i < cs->n; i++) {
		struct thp_change *c = &cs->v[i];
		bool all = k.d->place == THP_PLACE_SIZE && !k.size;

		if (all ? c->k.d != k.d : strcmp(c->key, canon) != 0)
			continue;
		if (c->want[0] && (all || !c->want_all)) {
			if (all && !c->want_all)
				snprintf(why, cap, "'%s' is given twice ('%s' covers it too)", c->key, key);
			else
				snprintf(why, cap, "'%s' is given twice", c->want_all ? key : c->key);
			return -EEXIST;
		}
		err = thp_change_check(cs, c, value, true, c->want, why, cap);
		if (err)
			return err;
		c->want_all = all;
		matched++;
	}
	if (matched)
		return 0;
	absent(cs, &k, canon, why, cap);
	return -ENOENT;
}

void thp_changes_snapshot(const struct thp_changes *cs, struct thp_kvlist *l)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < cs->n; i++)
		if (cs->v[i].old[0])
			thp_kv_set(l, cs->v[i].key, cs->v[i].old, 0);
}

int thp_changes_want_list(struct thp_changes *cs, const struct thp_kvlist *l, int *bad, char *why,
			  size_t cap)
{
	for (int i = 0; i < l->n; i++) {
		int err = thp_changes_want(cs, l->v[i].key, l->v[i].value, why, cap);
		if (err) {
			*bad = i;
			return err;
		}
	}
	return 0;
}

bool thp_change_pending(const struct thp_change *c)
{
	return c->want[0] && strcmp(c->want, c->old) != 0;
}

int thp_changes_count(const struct thp_changes *cs)
{
	int n = 0;

	for (int i = 0; i < cs->n; i++)
		n += thp_change_pending(&cs->v[i]);
	return n;
}

int thp_changes_sizes(const struct thp_changes *cs, uint64_t *sizes, int max)
{
	int n = 0;

	for (int i = 0; i < cs->n; i++) {
		uint64_t s = cs->v[i].k.size;
		if (cs->v[i].k.d->place == THP_PLACE_SIZE && n < max && (n == 0 || sizes[n - 1] != s))
			sizes[n++] = s;
	}
	return n;
}
