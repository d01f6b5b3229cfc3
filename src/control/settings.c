/* SPDX-License-Identifier: GPL-2.0-or-later */
/* settings.c - the writable THP settings: read, check, write, read back, roll back */
#include "settings.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/arg.h"
#include "control.h"

/* The value of a setting as a string, "" when it is neither a choice nor a number. */
static void setting_value(const struct thp_setting *s, char *buf, size_t cap)
{
	const char *w = thp_setting_word(s);

	if (w)
		snprintf(buf, cap, "%s", w);
	else if (s->kind == THP_INT)
		snprintf(buf, cap, "%llu", (unsigned long long)s->num);
	else
		buf[0] = '\0';
}

/* Adds the knob of K with its value S, skipping files the kernel lacks. */
static void add(struct thp_knobs *ks, const struct thp_key *k, const struct thp_setting *s)
{
	struct thp_knob *kn;

	if (!s || s->kind == THP_MISSING || ks->n >= THP_KV_MAX)
		return;
	kn = &ks->k[ks->n++];
	memset(kn, 0, sizeof(*kn));
	kn->k = *k;
	kn->cur = *s;
	thp_key_format(k, kn->key, sizeof(kn->key));
	thp_key_path(k, kn->path, sizeof(kn->path));
	setting_value(s, kn->old, sizeof(kn->old));
}

int thp_knobs_read(const struct thp_root *root, struct thp_knobs *ks)
{
	static const char *const names[] = { "enabled", "defrag", "shmem_enabled", "use_zero_page",
					     "shrink_underused", "khugepaged.defrag",
					     "khugepaged.pages_to_scan",
					     "khugepaged.scan_sleep_millisecs",
					     "khugepaged.alloc_sleep_millisecs",
					     "khugepaged.max_ptes_none", "khugepaged.max_ptes_swap",
					     "khugepaged.max_ptes_shared" };
	struct thp_status *st = malloc(sizeof(*st));
	struct thp_key k;

	if (!st)
		return -ENOMEM;
	memset(ks, 0, sizeof(*ks));
	thp_status_read(root, st, false);
	if (!st->dir || st->redhat) {
		int err = st->redhat ? -EOPNOTSUPP : -ENOENT;
		free(st);
		return err;
	}
	if (thp_status_ptes_per_pmd(st))
		ks->ptes_max = thp_status_ptes_per_pmd(st) - 1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		thp_key_parse(names[i], &k);
		if (k.group == THP_KEY_TOP)
			add(ks, &k, thp_status_setting(st, k.file));
		else
			add(ks, &k, thp_setting_find(st->khugepaged, st->nkhugepaged, k.file));
	}
	for (int i = 0; i < st->nsizes; i++) {
		thp_key_parse("hugepages.all.enabled", &k);
		k.size = st->sizes[i].bytes;
		add(ks, &k, &st->sizes[i].enabled);
		thp_key_parse("hugepages.all.shmem_enabled", &k);
		k.size = st->sizes[i].bytes;
		add(ks, &k, &st->sizes[i].shmem_enabled);
	}
	free(st);
	return 0;
}

struct thp_knob *thp_knob_find(struct thp_knobs *ks, const char *key)
{
	for (int i = 0; i < ks->n; i++)
		if (strcmp(ks->k[i].key, key) == 0)
			return &ks->k[i];
	return NULL;
}

int thp_knob_check(const struct thp_knobs *ks, const struct thp_knob *kn, const char *value,
		   bool strict, char *out, char *why, size_t cap)
{
	uint64_t v, lo = 0, hi = UINT32_MAX;

	if (kn->cur.kind == THP_ERROR) {
		snprintf(why, cap, "cannot read '%s': %s", kn->key,
			 kn->cur.err == -EINVAL ? "malformed value" : strerror(-kn->cur.err));
		return -EINVAL;
	}
	if (kn->k.type == THP_VAL_CHOICE) {
		const struct thp_choice *c = &kn->cur.choice;
		size_t len = 0;

		if (kn->cur.kind == THP_CHOICE && thp_choice_find(c, value) >= 0) {
			snprintf(out, THP_VALUE_MAX, "%s", value);
			return 0;
		}
		len = (size_t)snprintf(why, cap, "'%s' accepts", kn->key);
		for (int i = 0; i < c->n && len < cap; i++)
			len += (size_t)snprintf(why + len, cap - len, "%s %s", i ? "," : "",
						c->words[i]);
		if (kn->cur.kind != THP_CHOICE)
			snprintf(why, cap, "'%s' does not hold a choice list here", kn->key);
		return -EINVAL;
	}
	if (kn->k.type == THP_VAL_BOOL)
		hi = 1;
	else if (kn->k.type == THP_VAL_POSITIVE)
		lo = 1;
	else if (kn->k.type == THP_VAL_PTES && ks->ptes_max)
		hi = ks->ptes_max;
	if (strict ? thp_arg_u64(value, lo, hi, &v) != 0
		   : thp_parse_u64(value, &v) != 0 || v < lo || v > hi) {
		snprintf(why, cap, "'%s' accepts a decimal integer from %llu to %llu", kn->key,
			 (unsigned long long)lo, (unsigned long long)hi);
		return -EINVAL;
	}
	snprintf(out, THP_VALUE_MAX, "%llu", (unsigned long long)v);
	return 0;
}

/* Why KS has no knob for the parsed key K (written CANON): a size whose
 * directory lacks that file (8K has no 'enabled': order-1 folios serve shmem
 * and files only), a size the kernel does not offer, or no per-size control. */
static void missing_why(const struct thp_knobs *ks, const struct thp_key *k, const char *canon, char *why,
			size_t cap)
{
	bool sized = false, this_size = false;

	for (int i = 0; i < ks->n; i++) {
		sized |= ks->k[i].k.group == THP_KEY_SIZE;
		this_size |= ks->k[i].k.group == THP_KEY_SIZE && ks->k[i].k.size == k->size;
	}
	if (this_size && strcmp(k->file, "enabled") == 0)
		snprintf(why, cap, "'%s': this size has no anonymous control (the kernel gives folios "
			 "of this size to shmem and files only)", canon);
	else if (k->group != THP_KEY_SIZE || this_size)
		snprintf(why, cap, "this kernel has no '%s'", canon);
	else if (sized)
		snprintf(why, cap, "this kernel has no '%s' (no hugepages-%llukB directory; 'thp status' lists the sizes)",
			 canon, (unsigned long long)(k->size >> 10));
	else
		snprintf(why, cap, "this kernel has no '%s' (per-size THP needs Linux 6.8+, per-size shmem 6.11+)",
			 canon);
}

int thp_knobs_want(struct thp_knobs *ks, const char *key, const char *value, char *why,
		   size_t cap)
{
	struct thp_key k;
	char canon[THP_KEY_MAX];
	int err = thp_key_parse(key, &k), matched = 0;

	if (err == -EINVAL) {
		snprintf(why, cap, "'%s': a size is written like 64K, 2M or all", key);
		return -EINVAL;
	}
	if (err) {
		snprintf(why, cap, "'%s' is not a writable THP setting (see 'thp set --help')", key);
		return -ENOENT;
	}
	thp_key_format(&k, canon, sizeof(canon));
	for (int i = 0; i < ks->n; i++) {
		struct thp_knob *kn = &ks->k[i];
		bool all = k.group == THP_KEY_SIZE && !k.size;

		if (all ? kn->k.group != THP_KEY_SIZE || strcmp(kn->k.file, k.file) != 0
			: strcmp(kn->key, canon) != 0)
			continue;
		if (kn->want[0] && (all || !kn->want_all)) {
			if (all && !kn->want_all)
				snprintf(why, cap, "'%s' is given twice ('%s' covers it too)", kn->key, key);
			else
				snprintf(why, cap, "'%s' is given twice", kn->want_all ? key : kn->key);
			return -EEXIST;
		}
		err = thp_knob_check(ks, kn, value, true, kn->want, why, cap);
		if (err)
			return err;
		kn->want_all = all;
		matched++;
	}
	if (matched)
		return 0;
	missing_why(ks, &k, canon, why, cap);
	return -ENOENT;
}

void thp_knobs_snapshot(const struct thp_knobs *ks, struct thp_kvlist *l)
{
	memset(l, 0, sizeof(*l));
	for (int i = 0; i < ks->n; i++)
		if (ks->k[i].old[0])
			thp_kv_set(l, ks->k[i].key, ks->k[i].old, 0);
}

int thp_knobs_want_list(struct thp_knobs *ks, const struct thp_kvlist *l, int *bad, char *why,
			size_t cap)
{
	for (int i = 0; i < l->n; i++) {
		int err = thp_knobs_want(ks, l->v[i].key, l->v[i].value, why, cap);
		if (err) {
			*bad = i;
			return err;
		}
	}
	return 0;
}

static bool changes(const struct thp_knob *kn)
{
	return kn->want[0] && strcmp(kn->want, kn->old) != 0;
}

int thp_knobs_changes(const struct thp_knobs *ks)
{
	int n = 0;

	for (int i = 0; i < ks->n; i++)
		n += changes(&ks->k[i]);
	return n;
}

/* Writes VALUE to a knob and reads it back; a read-back that differs goes to
 * GOT ("" when it agrees or the write failed). On the live kernel the file gets
 * the bare value; a fake root gets what the kernel would then show (a line, or
 * the choice list with VALUE bracketed), so that later reads see the same. */
static int write_knob(const struct thp_root *root, const struct thp_knob *kn, const char *value,
		      char got[THP_VALUE_MAX])
{
	char wire[THP_CHOICES_MAX * (THP_WORD_MAX + 3)];
	struct thp_setting s;
	int err;

	snprintf(wire, sizeof(wire), root->live ? "%s" : "%s\n", value);
	if (!root->live && kn->cur.kind == THP_CHOICE) {
		size_t len = 0;
		for (int i = 0; i < kn->cur.choice.n; i++) {
			const char *w = kn->cur.choice.words[i];
			bool sel = strcmp(w, value) == 0;
			len += (size_t)snprintf(wire + len, sizeof(wire) - len, "%s%s%s%s",
						i ? " " : "", sel ? "[" : "", w, sel ? "]" : "");
		}
		snprintf(wire + len, sizeof(wire) - len, "\n");
	}
	err = thp_write_file(root, kn->path, wire);
	if (err)
		return err;
	thp_setting_read(root, kn->path, kn->k.file, &s);
	setting_value(&s, got, THP_VALUE_MAX);
	if (strcmp(got, value) == 0) {
		got[0] = '\0';
		return 0;
	}
	if (!got[0])
		snprintf(got, THP_VALUE_MAX, "?");
	return s.kind == THP_ERROR ? s.err : -EIO;
}

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
	caught = sig;
}

/* Puts back the old value of every knob written so far, last first; also the
 * failed one when its write took effect as something else. */
static void roll_back(const struct thp_root *root, struct thp_knobs *ks, int upto)
{
	for (int i = upto; i >= 0; i--) {
		struct thp_knob *kn = &ks->k[i];
		char got[THP_VALUE_MAX];

		if (kn->result != THP_KNOB_WRITTEN && !(kn->result == THP_KNOB_FAILED && kn->got[0]))
			continue;
		kn->undo_err = write_knob(root, kn, kn->old, got);
		if (kn->undo_err)
			kn->result = THP_KNOB_STUCK;
		else if (kn->result == THP_KNOB_WRITTEN)
			kn->result = THP_KNOB_ROLLED_BACK;
	}
}

int thp_knobs_apply(const struct thp_root *root, struct thp_knobs *ks, int *signo)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_signal }, old[3];
	int err = 0, last = -1;

	*signo = 0;
	if (root->live && geteuid() != 0)
		return -EPERM;
	caught = 0;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]); /* no SA_RESTART: a blocked write returns EINTR */
	for (int i = 0; i < ks->n && !err; i++) {
		struct thp_knob *kn = &ks->k[i];

		if (!changes(kn))
			continue;
		if (caught) {
			err = -EINTR;
			break;
		}
		last = i;
		err = write_knob(root, kn, kn->want, kn->got);
		kn->result = err ? THP_KNOB_FAILED : THP_KNOB_WRITTEN;
		kn->err = err;
	}
	if (!err && caught)
		err = -EINTR;
	if (err)
		roll_back(root, ks, last);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	*signo = caught;
	return caught ? -EINTR : err;
}
