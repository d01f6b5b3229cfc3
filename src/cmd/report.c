/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report.c - `thp report FILE...`: many hosts in one table, from their status
 * and doctor JSON, capture directories or capture archives */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/doctor.h"
#include "../core/fleet.h"
#include "../core/unpack.h"
#include "../render/doctor.h"
#include "../render/render.h"
#include "../render/status.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

static const struct thp_opt opts[] = {
	THP_OPT('g', "group-by", "policy", "one line per policy the hosts share, the most common\n"
					   "first, with the settings in which the others differ"),
	THP_OPT('b', "bytes", NULL, "sizes in bytes"),
	THP_OPT_JSON("one JSON document"),
	THP_OPT_HELP,
	THP_OPT_END,
};

/* A document or file that was skipped, and why. */
struct skipped {
	char *source, *reason;
};

struct report {
	struct thp_fleet fleet;
	struct skipped *skipped;
	int nskipped, cap;
	bool json, bytes;
};

/* Names a skipped document or file: on stderr, and in the JSON document. */
static void skip(void *ctx, const char *source, const char *why)
{
	struct report *rp = ctx;
	struct skipped *s = rp->skipped;

	thp_err("%s: %s; skipped", source, why);
	if (rp->nskipped == rp->cap) {
		s = reallocarray(rp->skipped, rp->cap ? 2 * (size_t)rp->cap : 8, sizeof(*s));
		if (!s)
			return;
		rp->skipped = s;
		rp->cap = rp->cap ? 2 * rp->cap : 8;
	}
	s[rp->nskipped].source = strdup(source);
	s[rp->nskipped].reason = strdup(why);
	rp->nskipped++;
}

/* Takes the 'thp status --json' document of ST read below ROOT, made for SHOWN. */
static int take_status(struct report *rp, const struct thp_root *root, const struct thp_status *st,
		       const char *shown)
{
	struct thp_status_extra *x = thp_status_extra_read(root, st);
	char *text = NULL;
	int n = -ENOMEM;

	if (x && out_doc_mem(THP_STATUS_SCHEMA) == 0) {
		thp_status_print(root, st, x);
		text = out_doc_mem_end();
	}
	if (text)
		n = thp_fleet_parse(&rp->fleet, text, strlen(text), shown, skip, rp);
	free(text);
	free(x);
	return n;
}

/* Takes the 'thp doctor --json' document of D read below ROOT, made for SHOWN. */
static int take_doctor(struct report *rp, const struct thp_root *root, const struct thp_diagnosis *d,
		       const char *shown)
{
	char *text = NULL;
	int n = -ENOMEM;

	if (out_doc_mem(THP_DOCTOR_SCHEMA) == 0) {
		thp_doctor_print(root, d, THP_SEV_CRIT, thp_doctor_exit(d->r, THP_SEV_CRIT));
		text = out_doc_mem_end();
	}
	if (text)
		n = thp_fleet_parse(&rp->fleet, text, strlen(text), shown, skip, rp);
	free(text);
	return n;
}

/* Reads the capture at DIR (shown as SHOWN) as 'thp status' and 'thp doctor'
 * would. Returns 0 or -ENOMEM. */
static int read_capture(struct report *rp, const char *dir, const char *shown)
{
	struct thp_diagnosis d;
	struct thp_root root;
	int err = thp_root_open(&root, dir);

	if (err) {
		skip(rp, shown, strerror(-err));
		return 0;
	}
	snprintf(root.path, sizeof(root.path), "%s", shown);
	err = thp_diagnose(&root, 0, NULL, NULL, &d);
	if (!err)
		err = take_status(rp, &root, d.st, shown);
	if (err >= 0)
		err = take_doctor(rp, &root, &d, shown);
	thp_diagnosis_free(&d);
	thp_root_close(&root);
	return err < 0 ? err : 0;
}

static bool is_archive(const char *p)
{
	static const char *const ext[] = { ".tar.gz", ".tgz", ".tar.xz", ".tar.zst", ".tar" };
	size_t n = strlen(p);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (n > strlen(ext[i]) && strcmp(p + n - strlen(ext[i]), ext[i]) == 0)
			return true;
	return false;
}

/* Unpacks archive PATH into a private directory and reads the capture in it.
 * The directory goes however thp ends (thp_unpack_kept). */
static int read_archive(struct report *rp, const char *path)
{
	char cap[4200], why[256];
	struct thp_rootarg a;
	int err = thp_unpack_kept(&a, path, why, sizeof(why));

	if (err) { /* its directory is gone */
		skip(rp, path, why);
		return 0;
	}
	if (thp_unpack_capture_in(a.dir, cap, sizeof(cap)))
		err = read_capture(rp, cap, path);
	else
		skip(rp, path, "not a capture (no proc or sys directory in it)");
	thp_dir_release(&a);
	return err;
}

/* Reads one FILE argument. Returns 0 or -ENOMEM; what cannot be read is skipped. */
static int read_input(struct report *rp, const char *path)
{
	struct stat sb;
	size_t len;
	char *buf;
	int err;

	if (stat(path, &sb) < 0) {
		skip(rp, path, strerror(errno));
		return 0;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (thp_capture_dir(path))
			return read_capture(rp, path, path);
		skip(rp, path, "a directory that is not a capture (no proc or sys directory in it)");
		return 0;
	}
	if (is_archive(path))
		return read_archive(rp, path);
	err = thp_read_user(path, &buf, &len);
	if (err) {
		skip(rp, path, err == -EFBIG ? "larger than thp reads (16 MiB)" :
			       err == -THP_ENOTREG ? "not a regular file" : strerror(-err));
		return 0;
	}
	err = thp_fleet_parse(&rp->fleet, buf, len, path, skip, rp);
	free(buf);
	return err < 0 ? err : 0;
}

/* Text of an unknown (-1) or known number for a column. */
static const char *num(char *buf, size_t cap, int64_t v, bool size, bool bytes)
{
	if (v < 0)
		return "-";
	return size ? out_size(buf, cap, (uint64_t)v, bytes) : out_count(buf, cap, (uint64_t)v);
}

static const char *setting(const struct thp_fleet_host *h, const char *key)
{
	const char *v = thp_fleet_setting(h, key);
	return v ? v : "-";
}

/* The MTHP column of H: its sizes, "none", or "-" when unknown. */
static const char *sizes(const struct thp_fleet_host *h)
{
	return !h->policy || h->policy->nsizes < 0 ? "-" : h->policy->nsizes ? h->policy->sizes : "none";
}

enum { C_HOST, C_KERNEL, C_ENABLED, C_DEFRAG, C_SHMEM, C_MTHP, C_ANONHUGE, C_STALLS, C_FALLBACK, C_CRIT,
       C_WARN, C_INFO, C_N };

/* Column C of host ROW as text (the number columns are the words of num()). */
static void get_host(const struct out_col *c, const void *row, void *ctx, struct out_val *v)
{
	const struct thp_fleet_host *h = row;
	const struct report *rp = ctx;

	switch (c->arg) {
	case C_HOST: v->s = h->name; return;
	case C_KERNEL: v->s = h->kernel[0] ? h->kernel : "-"; return;
	case C_ENABLED: v->s = setting(h, "enabled"); return;
	case C_DEFRAG: v->s = setting(h, "defrag"); return;
	case C_SHMEM: v->s = setting(h, "shmem_enabled"); return;
	case C_MTHP: v->s = sizes(h); return;
	case C_ANONHUGE: v->text = num(v->buf, v->cap, h->anon_huge, true, rp->bytes); return;
	case C_STALLS: v->text = num(v->buf, v->cap, h->stalls, false, false); return;
	case C_FALLBACK:
		if (h->fallback >= 0)
			snprintf(v->buf, v->cap, "%.1f%%", h->fallback * 100);
		v->text = h->fallback >= 0 ? v->buf : "-";
		return;
	default: v->text = num(v->buf, v->cap, h->findings[C_INFO - c->arg], false, false); return;
	}
}

/* On a narrow terminal: the host, its policy, whether it gets huge pages and
 * its findings stay; the kernel and the other settings go. */
static const struct out_col host_cols[] = {
	[C_HOST] = { "HOST", OUT_TEXT, OUT_WRAP | OUT_KEEP, "host name (else the capture or file it came from)",
		       get_host, C_HOST },
	[C_KERNEL] = { "KERNEL", OUT_TEXT, 0, "kernel release", get_host, C_KERNEL },
	[C_ENABLED] = { "ENABLED", OUT_TEXT, OUT_KEEP, "THP for anonymous memory (enabled)", get_host, C_ENABLED },
	[C_DEFRAG] = { "DEFRAG", OUT_TEXT, 0, "what a THP fault does when no huge block is free (defrag)",
		       get_host, C_DEFRAG },
	[C_SHMEM] = { "SHMEM", OUT_TEXT, 0, "THP for tmpfs and shared memory (shmem_enabled)", get_host, C_SHMEM },
	[C_MTHP] = { "MTHP", OUT_TEXT, 0, "page sizes whose anonymous THP is on after inherit", get_host, C_MTHP },
	[C_ANONHUGE] = { "ANONHUGE", OUT_SIZE, OUT_KEEP, "PMD-mapped anonymous THP now (AnonHugePages)",
		       get_host, C_ANONHUGE },
	[C_STALLS] = { "STALLS", OUT_GROUPED, 0, "direct compaction stalls since boot (compact_stall)",
		       get_host, C_STALLS },
	[C_FALLBACK] = { "FALLBACK", OUT_PCT, OUT_KEEP, "share of THP faults that fell back to small pages since boot",
		       get_host, C_FALLBACK },
	[C_CRIT] = { "CRIT", OUT_COUNT, OUT_KEEP, "critical 'thp doctor' findings (- without its document)",
		       get_host, C_CRIT },
	[C_WARN] = { "WARN", OUT_COUNT, OUT_KEEP, "'thp doctor' warnings (- without its document)", get_host, C_WARN },
	[C_INFO] = { "INFO", OUT_COUNT, OUT_KEEP, "'thp doctor' notes (- without its document)", get_host, C_INFO },
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp report [options] FILE...\n"
		 "\n"
		 "One line per host of a fleet, from what each FILE holds: 'thp status --json'\n"
		 "and 'thp doctor --json' documents (one or more per file, or a JSON array of\n"
		 "them), a capture directory, or a capture archive (.tar.gz, made by 'thp\n"
		 "capture'). A status and a doctor document of the same host (the same host\n"
		 "name, else the same root) make one line. A file that is not thp JSON, or is\n"
		 "malformed, is named on standard error and skipped.",
	.width = 25,
	.opts = opts,
	.cols = host_cols,
	.ncols = C_N,
	.in_order = true,
};

#define CHUNK_ROWS 256

/* One line per host, printed CHUNK_ROWS at a time (the widths of the first
 * chunk), so that memory does not grow with the hosts. */
static void print_hosts(const struct report *rp)
{
	struct out_fmt fmt = { .bytes = rp->bytes };
	struct out_table *t;
	int sel[C_N];

	for (int c = 0; c < C_N; c++)
		sel[c] = c;
	t = out_table_open(NULL, host_cols, sel, C_N, &fmt, (void *)rp);
	out_table_stream(t, CHUNK_ROWS, 0);
	for (int i = 0; i < rp->fleet.n; i++)
		out_table_add(t, &rp->fleet.v[i]);
	out_table_close(t, 0);
}

#define NAMES_SHOWN 5

/* The hosts of group G as "a, b, c", the first NAMES_SHOWN and how many more, into BUF. */
static const char *group_names(const struct report *rp, const int *group, int g, char *buf, size_t cap)
{
	size_t len = 0;
	int n = 0;

	buf[0] = '\0';
	for (int i = 0; i < rp->fleet.n && len < cap; i++)
		if (group[i] == g && n++ < NAMES_SHOWN)
			len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", rp->fleet.v[i].name);
	if (n > NAMES_SHOWN && len < cap)
		snprintf(buf + len, cap - len, " and %d more", n - NAMES_SHOWN);
	return buf;
}

/* The first host of group G. */
static const struct thp_fleet_host *group_first(const struct report *rp, const int *group, int g)
{
	for (int i = 0; i < rp->fleet.n; i++)
		if (group[i] == g)
			return &rp->fleet.v[i];
	return NULL;
}

static int group_size(const struct report *rp, const int *group, int g)
{
	int n = 0;

	for (int i = 0; i < rp->fleet.n; i++)
		n += group[i] == g;
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* Appends the per-size keys of KEYS[FROM..N) that name file FILE, as
 * "hugepages.{16K,2M}.FILE", to BUF at *LEN. */
static void append_sizes(const char *const *keys, int from, int n, const char *file, char *buf,
			 size_t cap, size_t *len)
{
	uint64_t sizes[THP_KV_MAX] = { 0 };
	char sz[24];
	int ns = 0;

	for (int i = from; i < n && ns < THP_KV_MAX; i++) {
		struct thp_key k;
		if (thp_key_parse(keys[i], &k) == 0 && k.d->place == THP_PLACE_SIZE && strcmp(k.d->file, file) == 0)
			sizes[ns++] = k.size;
	}
	qsort(sizes, (size_t)ns, sizeof(sizes[0]), cmp_u64);
	*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "%shugepages.%s", *len ? ", " : "",
				 ns > 1 ? "{" : "");
	for (int i = 0; i < ns; i++)
		*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "%s%s", i ? "," : "",
					 thp_size_name(sizes[i], sz, sizeof(sz)));
	*len += (size_t)snprintf(buf + *len, *len < cap ? cap - *len : 0, "%s.%s", ns > 1 ? "}" : "", file);
}

/* KEYS (N of them) as short text: the per-size ones of a file folded into
 * one ("defrag, hugepages.{16K,2M}.enabled"). */
static const char *diff_text(const char *const *keys, int n, char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < n; i++) {
		struct thp_key k;
		bool seen = false;
		if (thp_key_parse(keys[i], &k) != 0 || k.d->place != THP_PLACE_SIZE) {
			len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", len ? ", " : "", keys[i]);
			continue;
		}
		for (int j = 0; j < i && !seen; j++) {
			struct thp_key o;
			seen = thp_key_parse(keys[j], &o) == 0 && o.d->place == THP_PLACE_SIZE && strcmp(o.d->file, k.d->file) == 0;
		}
		if (!seen)
			append_sizes(keys, i, n, k.d->file, buf, cap, &len);
	}
	return buf;
}

/* What group G's policy differs in from group 0's, into BUF. */
static const char *group_diff(const struct report *rp, const int *group, int g, char *buf, size_t cap)
{
	const struct thp_fleet_host *h = group_first(rp, group, g), *ref = group_first(rp, group, 0);
	const char *keys[THP_KV_MAX * 2];
	int n;

	if (!h->policy)
		return "unknown (no status document)";
	n = ref->policy ? thp_fleet_policy_diff(ref, h, keys, THP_KV_MAX * 2) : 0;
	return n ? diff_text(keys, n, buf, cap) : "-";
}

static void print_groups(const struct report *rp, const int *group, int ngroups)
{
	static const char *const head[] = { "GROUP", "HOSTS", "ENABLED", "DEFRAG", "SHMEM", "MTHP", "NAMES",
					    "DIFFERS FROM GROUP 1" };
	/* on a narrow terminal: the group, its hosts and how it differs stay
	 * (wrapped), the settings other than enabled go */
	static const unsigned flags[] = { OUT_KEEP, OUT_KEEP, OUT_KEEP, 0, 0, 0, OUT_WRAP | OUT_KEEP,
					  OUT_WRAP | OUT_KEEP };
	struct out_table *t = out_table_new(8, head, false);
	char no[16], count[16], diff[1024], names[4096];
	int drift = 0;

	for (int c = 0; c < 8; c++)
		out_table_col(t, c, flags[c]);
	out_table_right(t, 0);
	out_table_right(t, 1);
	for (int g = 0; g < ngroups; g++) {
		const struct thp_fleet_host *h = group_first(rp, group, g);
		int n = group_size(rp, group, g);
		snprintf(no, sizeof(no), "%d", g + 1);
		snprintf(count, sizeof(count), "%d", n);
		drift += g ? n : 0;
		out_table_row(t, (const char *const[]){
			no, count, setting(h, "enabled"), setting(h, "defrag"), setting(h, "shmem_enabled"),
			sizes(h), group_names(rp, group, g, names, sizeof(names)),
			group_diff(rp, group, g, diff, sizeof(diff)) });
	}
	out_table_print(t, 0);
	printf("%d host%s in %d polic%s; %d differ%s from the most common one\n", rp->fleet.n,
	       rp->fleet.n == 1 ? "" : "s", ngroups, ngroups == 1 ? "y" : "ies", drift, drift == 1 ? "s" : "");
}

/* Member KEY of the JSON document: V, or null when V is unknown (-1). */
static void put_num(const char *key, int64_t v)
{
	out_put(OUT_JSON, key, NULL, v < 0 ? ov_null() : ov_count((uint64_t)v));
}

/* Member KEY: text S, or null when it is empty. */
static void put_text(const char *key, const char *s)
{
	out_put(OUT_JSON, key, NULL, ov_str(s[0] ? s : NULL));
}

static void put_host(const struct thp_fleet_host *h, int group)
{
	static const char *const sev[] = { "info", "warn", "crit" };
	const struct thp_fleet_policy *p = h->policy;

	out_obj(NULL);
	out_put(OUT_JSON, "host", NULL, ov_str(h->name));
	put_text("status_source", h->source[0]);
	put_text("doctor_source", h->source[1]);
	put_text("kernel", h->kernel);
	out_obj("policy");
	for (int i = 0; p && i < p->n; i++)
		out_put(OUT_JSON, p->v[i].key, NULL, ov_str(p->v[i].value));
	out_end();
	if (p && p->nsizes >= 0)
		out_put(OUT_JSON, "mthp_sizes", NULL, ov_sizes(p->size_bytes, p->nsizes));
	else
		out_put(OUT_JSON, "mthp_sizes", NULL, ov_null());
	put_num("anon_huge", h->anon_huge);
	put_num("compact_stalls", h->stalls);
	out_put(OUT_JSON, "fault_fallback_ratio", NULL,
		h->fallback >= 0 ? ov_num(h->fallback, -1) : ov_null());
	if (h->findings[0] >= 0) {
		out_obj("findings");
		for (int s = 2; s >= 0; s--)
			out_put(OUT_JSON, sev[s], NULL, ov_int(h->findings[s]));
		out_end();
	} else {
		out_put(OUT_JSON, "findings", NULL, ov_null());
	}
	out_put(OUT_JSON, "group", NULL, ov_int(group + 1));
	out_end();
}

/* The document of --json, written host by host as it is made. */
static int print_json(struct report *rp, const int *group, int ngroups)
{
	const char *diff[THP_KV_MAX * 2];

	out_doc_begin(true, rp->bytes, "thp-report/1");
	out_arr("hosts");
	for (int i = 0; i < rp->fleet.n; i++)
		put_host(&rp->fleet.v[i], group[i]);
	out_end();
	out_arr("groups");
	for (int g = 0; g < ngroups; g++) {
		const struct thp_fleet_host *h = group_first(rp, group, g), *ref = group_first(rp, group, 0);
		int n = h->policy && ref->policy ? thp_fleet_policy_diff(ref, h, diff, THP_KV_MAX * 2) : 0;
		out_obj(NULL);
		out_put(OUT_JSON, "group", NULL, ov_int(g + 1));
		out_arr("hosts");
		for (int i = 0; i < rp->fleet.n; i++)
			if (group[i] == g)
				out_put(OUT_JSON, NULL, NULL, ov_str(rp->fleet.v[i].name));
		out_end();
		out_put(OUT_JSON, "policy_known", NULL, ov_bool(h->policy != NULL));
		out_arr("differs_from_group_1");
		for (int k = 0; k < n && k < THP_KV_MAX * 2; k++)
			out_put(OUT_JSON, NULL, NULL, ov_str(diff[k]));
		out_end();
		out_end();
	}
	out_end();
	out_arr("skipped");
	for (int i = 0; i < rp->nskipped; i++) {
		out_obj(NULL);
		out_put(OUT_JSON, "source", NULL, ov_str(rp->skipped[i].source));
		out_put(OUT_JSON, "reason", NULL, ov_str(rp->skipped[i].reason));
		out_end();
	}
	out_end();
	return out_doc_end() ? 1 : 0;
}

int cmd_report(struct thp_ctx *ctx, int argc, char **argv)
{
	struct report rp = { 0 };
	bool grouped = false;
	int c, rc = 1, ngroups, *group;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'g':
			if (strcmp(optarg, "policy") != 0) {
				thp_err("invalid --group-by '%s' (policy)", optarg);
				return thp_usage_error("report");
			}
			grouped = true;
			break;
		case 'b': rp.bytes = true; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	rp.json = ctx->json;
	if (optind >= argc) {
		thp_err("no FILE given");
		return thp_usage_error("report");
	}
	for (int i = optind; i < argc; i++)
		if (read_input(&rp, argv[i]) < 0) {
			thp_err("out of memory");
			goto out;
		}
	group = calloc((size_t)(rp.fleet.n ? rp.fleet.n : 1), sizeof(*group));
	ngroups = group ? thp_fleet_group(&rp.fleet, group) : -ENOMEM;
	if (ngroups < 0)
		thp_err("out of memory");
	else if (!rp.fleet.n)
		thp_err("no host could be read from the %d file%s given", argc - optind,
			argc - optind == 1 ? "" : "s");
	else if (rp.json)
		rc = print_json(&rp, group, ngroups);
	else {
		if (grouped)
			print_groups(&rp, group, ngroups);
		else
			print_hosts(&rp);
		rc = 0;
	}
	free(group);
out:
	for (int i = 0; i < rp.nskipped; i++) {
		free(rp.skipped[i].source);
		free(rp.skipped[i].reason);
	}
	free(rp.skipped);
	thp_fleet_free(&rp.fleet);
	return rc;
}
