/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - tmpfiles.d, systemd unit and command-line forms of settings */
#include "persist.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hugetlb.h"
#include "parse.h"
#include "state.h"
#include "tuned.h"

const char thp_bootloader_help[] =
	"Add these to the kernel command line, then reboot:\n"
	"  GRUB: append them to GRUB_CMDLINE_LINUX in /etc/default/grub (inside the\n"
	"        quotes), then run update-grub (Debian, Ubuntu) or\n"
	"        grub2-mkconfig -o /boot/grub2/grub.cfg (RHEL, Fedora)\n"
	"  or:   grubby --update-kernel=ALL --args='OPTIONS'\n";

/* Finishes the open_memstream string *S; NULL when writing failed. */
static char *close_stream(FILE *f, char **s)
{
	bool err = ferror(f);

	if (fclose(f) != 0 || err) {
		free(*s);
		return NULL;
	}
	return *s;
}

/* Copies the next whitespace-separated field of [*P, END) into BUF; false at the end. */
static bool next_field(const char **p, const char *end, char *buf, size_t cap)
{
	const char *s = *p;
	size_t len = 0;

	while (s < end && isspace((unsigned char)*s))
		s++;
	while (s + len < end && !isspace((unsigned char)s[len]))
		len++;
	*p = s + len;
	if (len == 0)
		return false;
	snprintf(buf, cap, "%.*s", (int)len, s);
	return true;
}

/* Sets KEY to [V, V+LEN) in L, from LINE; an empty or too long value is left out. */
static int put_kv(struct thp_kvlist *l, const char *key, const char *v, size_t len, int line)
{
	char value[THP_VALUE_MAX];

	if (!len || len >= sizeof(value))
		return 0;
	snprintf(value, sizeof(value), "%.*s", (int)len, v);
	thp_kv_set(l, key, value, line);
	return 0;
}

/* Runs FN on every line of BUF with L; returns the number of keys L gained. */
static int parse_lines(const char *buf, int (*fn)(const char *, size_t, int, void *), struct thp_kvlist *l)
{
	int before = l->n;

	thp_each_line(buf, fn, l);
	return l->n - before;
}

int thp_boot_path_key(const char *path, char *key, size_t cap)
{
	return thp_key_from_path(path, key, cap) == 0 ? 0 : thp_pool_key_from_path(path, key, cap);
}

static int tmpfiles_line(const char *s, size_t len, int line, void *ctx)
{
	struct thp_kvlist *l = ctx;
	const char *end = s + len, *p = s, *arg;
	char type[16], path[512], key[THP_KEY_MAX], skip[64];
	size_t alen;

	if (!next_field(&p, end, type, sizeof(type)) || type[0] != 'w' ||
	    strspn(type + 1, "+-!=~^") != strlen(type + 1))
		return 0;
	if (!next_field(&p, end, path, sizeof(path)) || thp_boot_path_key(path, key, sizeof(key)) != 0)
		return 0;
	for (int i = 0; i < 4; i++) /* mode, user, group, age */
		if (!next_field(&p, end, skip, sizeof(skip)))
			return 0;
	arg = p;
	alen = (size_t)(end - p);
	thp_trim(&arg, &alen);
	return thp_kv_get(l, key) ? 0 : put_kv(l, key, arg, alen, line);
}

int thp_tmpfiles_parse(const char *buf, struct thp_kvlist *l)
{
	return parse_lines(buf, tmpfiles_line, l);
}

/* Absolute sysfs path of KEY; false when it names no single sysfs file (a
 * /proc/sys key goes to a sysctl.d file instead). */
static bool abs_path(const char *key, char *buf, size_t cap)
{
	struct thp_key k;

	if (thp_key_parse(key, &k) != 0 || (k.d->place == THP_PLACE_SIZE && !k.size) ||
	    k.d->place == THP_PLACE_VM)
		return false;
	buf[0] = '/';
	thp_key_path(&k, buf + 1, cap - 1);
	return true;
}

/* Writes HEAD, LINE for every entry of L, then TAIL into a malloc'd string;
 * NULL when writing failed. */
static char *format_kvs(const struct thp_kvlist *l, const char *head,
			void (*line)(FILE *f, const struct thp_kv *kv), const char *tail)
{
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	fputs(head, f);
	for (int i = 0; i < l->n; i++)
		line(f, &l->v[i]);
	fputs(tail, f);
	return close_stream(f, &s);
}

static void tmpfiles_put(FILE *f, const struct thp_kv *kv)
{
	char path[256];

	if (abs_path(kv->key, path, sizeof(path)))
		fprintf(f, "w %s - - - - %s\n", path, kv->value);
}

char *thp_tmpfiles_format(const struct thp_kvlist *l)
{
	return format_kvs(l, "# Transparent Huge Pages settings, written by 'thp persist'.\n"
			     "# systemd-tmpfiles applies them at boot in this order (per-size after\n"
			     "# top-level); 'thp persist --check' compares them with the running kernel.\n",
			  tmpfiles_put, "");
}

/* Copies sysctl key [K, K+LEN) into PATH below proc/sys: "vm.x" and "vm/x"
 * both name proc/sys/vm/x (dots are separators unless a slash comes first). */
static bool sysctl_path(const char *k, size_t len, char *path, size_t cap)
{
	const char *slash = memchr(k, '/', len), *dot = memchr(k, '.', len);
	bool slashes = slash && (!dot || slash < dot);
	int n = snprintf(path, cap, "proc/sys/%.*s", (int)len, k);

	if (n < 0 || (size_t)n >= cap)
		return false;
	for (char *c = path + 9; *c && !slashes; c++)
		if (*c == '.')
			*c = '/';
	return true;
}

static int sysctl_line(const char *s, size_t len, int line, void *ctx)
{
	struct thp_kvlist *l = ctx;
	const char *k, *v;
	char path[256], key[THP_KEY_MAX];
	size_t klen, vlen;

	if (!thp_split_kv(s, len, &k, &klen, &v, &vlen))
		return 0;
	if (klen && *k == '-') { /* an assignment whose failure systemd-sysctl ignores */
		k++;
		klen--;
	}
	if (!klen || *k == '#' || *k == ';' || !sysctl_path(k, klen, path, sizeof(path)) ||
	    thp_boot_path_key(path, key, sizeof(key)) != 0)
		return 0;
	return put_kv(l, key, v, vlen, line);
}

int thp_sysctl_parse(const char *buf, struct thp_kvlist *l)
{
	return parse_lines(buf, sysctl_line, l);
}

static void sysctl_put(FILE *f, const struct thp_kv *kv)
{
	struct thp_key k;

	if (thp_key_parse(kv->key, &k) == 0 && k.d->place == THP_PLACE_VM)
		fprintf(f, "%s = %s\n", kv->key, kv->value);
}

char *thp_sysctl_format(const struct thp_kvlist *l)
{
	return format_kvs(l, "# Compaction and watermark settings, written by 'thp persist'.\n"
			     "# systemd-sysctl applies them at boot; 'thp persist --check' compares them\n"
			     "# with the running kernel.\n",
			  sysctl_put, "");
}

/* One "echo VALUE > PATH" of a unit or script, on line LINE, that writes the
 * setting or pool KEY. */
struct unit_echo {
	int line;
	char key[THP_KEY_MAX], value[THP_VALUE_MAX], path[512];
};

/* Calls FN with each echo of BUF that writes a setting or a pool, in order,
 * and ARG; returns how many there are. */
static int unit_echoes(const char *buf, void (*fn)(const struct unit_echo *e, void *arg), void *arg)
{
	int found = 0;

	for (const char *p = strstr(buf, "echo "); p; p = strstr(p + 1, "echo ")) {
		const char *v = p + 5, *q;
		struct unit_echo e = { .line = 1 };
		size_t vlen, plen;

		if (p > buf && !isspace((unsigned char)p[-1]) && p[-1] != '\'' && p[-1] != '"' &&
		    p[-1] != ';')
			continue;
		while (*v == ' ')
			v++;
		vlen = strcspn(v, " \t\n>'\";");
		q = v + vlen;
		while (*q == ' ')
			q++;
		if (*q != '>' || !vlen || vlen >= sizeof(e.value))
			continue;
		while (*q == '>' || *q == ' ')
			q++;
		plen = strcspn(q, " \t\n'\";\\");
		if (plen >= sizeof(e.path))
			continue;
		snprintf(e.path, sizeof(e.path), "%.*s", (int)plen, q);
		if (thp_boot_path_key(e.path, e.key, sizeof(e.key)) != 0)
			continue;
		snprintf(e.value, sizeof(e.value), "%.*s", (int)vlen, v);
		for (const char *c = buf; c < p; c++)
			e.line += *c == '\n';
		fn(&e, arg);
		found++;
	}
	return found;
}

static void unit_set(const struct unit_echo *e, void *arg)
{
	thp_kv_set(arg, e->key, e->value, e->line);
}

int thp_unit_parse(const char *buf, struct thp_kvlist *l)
{
	return unit_echoes(buf, unit_set, l);
}

/* A unit's record being written (thp_unit_record). */
struct unit_record {
	FILE *f;
	int found; /* echoes so far */
	int echoes; /* on the line being written */
};

static void record_echo(const struct unit_echo *e, void *arg)
{
	struct unit_record *r = arg;

	fprintf(r->f, "%secho %s > %s", r->echoes++ ? "; " : "ExecStart=/bin/sh -c '", e->value, e->path);
}

/* True when [S, S+LEN) is a section header: "[Service]". */
static bool section_header(const char *s, size_t len)
{
	static const char name[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-";

	thp_trim(&s, &len);
	return len > 2 && s[0] == '[' && s[len - 1] == ']' && strspn(s + 1, name) == len - 2;
}

/* Writes the record of line [S, S+LEN) of a unit. */
static int record_line(const char *s, size_t len, int line, void *arg)
{
	struct unit_record *r = arg;
	char *text = strndup(s, len);

	(void)line;
	if (!text)
		return -ENOMEM;
	r->echoes = 0;
	r->found += unit_echoes(text, record_echo, r);
	if (r->echoes)
		fputc('\'', r->f);
	else if (section_header(s, len))
		fputs(text, r->f);
	else if (text[0] == '#' && strstr(text, THP_PERSIST_MARK))
		fputs("# " THP_PERSIST_MARK "'", r->f);
	fputc('\n', r->f);
	free(text);
	return 0;
}

char *thp_unit_record(const char *buf, int *found)
{
	struct unit_record r = { .found = 0 };
	char *s = NULL, *out;
	size_t n;
	int err;

	r.f = open_memstream(&s, &n);
	if (!r.f)
		return NULL;
	err = thp_each_line(buf, record_line, &r);
	out = close_stream(r.f, &s);
	if (err) {
		free(out);
		return NULL;
	}
	*found = r.found;
	return out;
}

static void unit_put(FILE *f, const struct thp_kv *kv)
{
	char path[256];

	if (abs_path(kv->key, path, sizeof(path)))
		fprintf(f, "ExecStart=/bin/sh -c 'echo %s > %s'\n", kv->value, path);
}

char *thp_unit_format(const struct thp_kvlist *l)
{
	return format_kvs(l, "# Transparent Huge Pages settings, written by 'thp persist --systemd'.\n"
			     "# 'thp persist --check' compares them with the running kernel.\n"
			     "[Unit]\n"
			     "Description=Transparent Huge Pages settings (thp persist)\n"
			     "DefaultDependencies=no\n"
			     "After=sysinit.target local-fs.target\n"
			     "Before=basic.target\n"
			     "\n"
			     "[Service]\n"
			     "Type=oneshot\n"
			     "RemainAfterExit=yes\n",
			  unit_put, "\n[Install]\nWantedBy=basic.target\n");
}

/* Appends " hugepagesz=SIZE hugepages=..." for the pools of V of the size of
 * V[I] from I on: the host's count, or the nodes' "0:2,1:2" (Linux 5.16+). */
static void cmdline_pools(FILE *f, const struct thp_pool *v, int n, int i, bool *done)
{
	char sz[24];
	bool first = true;

	fprintf(f, " hugepagesz=%s hugepages=", thp_size_name(v[i].size, sz, sizeof(sz)));
	for (int j = i; j < n; j++) {
		if (v[j].size != v[i].size || done[j] || (v[j].node < 0) != (v[i].node < 0))
			continue;
		if (v[j].node >= 0)
			fprintf(f, "%s%d:", first ? "" : ",", v[j].node);
		fprintf(f, "%llu", (unsigned long long)v[j].pages);
		first = false;
		done[j] = true;
		if (v[j].node < 0)
			break;
	}
}

/* Writes the line that sets pool P at boot in a file of kind B. */
static void pool_line(FILE *f, const struct thp_pool *p, enum thp_pool_boot b)
{
	char path[256];

	if (b == THP_POOL_SYSCTL) {
		fprintf(f, "%s = %llu\n", THP_POOL_DEFAULT_KEY, (unsigned long long)p->pages);
		return;
	}
	thp_hugetlb_path(path, sizeof(path), p->size, p->node);
	fprintf(f, "w /%s - - - - %llu\n", path, (unsigned long long)p->pages);
}

char *thp_pools_format(const struct thp_pool *v, int n, uint64_t default_size, enum thp_pool_boot b)
{
	static const char *const head[] = {
		[THP_POOL_SYSCTL] = "# Static huge page pool of the default page size, " THP_POOLS_MARK ".\n"
				    "# systemd-sysctl applies it at boot; 'thp persist --check' compares it\n"
				    "# with the running kernel.\n",
		[THP_POOL_TMPFILES] = "# Static huge page pools, " THP_POOLS_MARK ".\n"
				      "# systemd-tmpfiles applies them at boot (the host's pools before the\n"
				      "# nodes'); 'thp persist --check' compares them with the running kernel.\n",
		[THP_POOL_CMDLINE] = "",
	};
	bool *done = calloc((size_t)n + 1, sizeof(*done));
	char *s = NULL;
	size_t len;
	FILE *f = done ? open_memstream(&s, &len) : NULL;

	if (!f) {
		free(done);
		return NULL;
	}
	fputs(head[b], f);
	for (int host = 1; host >= 0; host--) /* the host's pools first */
		for (int i = 0; i < n; i++) {
			if ((v[i].node < 0) != host || done[i] || thp_pool_boot(&v[i], default_size) != b)
				continue;
			if (b == THP_POOL_CMDLINE)
				cmdline_pools(f, v, n, i, done);
			else
				pool_line(f, &v[i], b);
		}
	free(done);
	s = close_stream(f, &s);
	if (s && b == THP_POOL_CMDLINE && s[0] == ' ')
		memmove(s, s + 1, strlen(s));
	return s;
}

/* True when ENTRY is a per-size key of setting D; its size goes to *SIZE. */
static bool size_key(const struct thp_kv *entry, const struct thp_setting_desc *d, uint64_t *size)
{
	struct thp_key k;

	if (thp_key_parse(entry->key, &k) || k.d != d || !k.size)
		return false;
	*size = k.size;
	return true;
}

/* Appends " OPT=SIZES:VALUE" for the per-size keys of FILE in L, one option
 * per value in order of first appearance (the kernel adds repeated options up).
 * Separate options rather than one joined with ';', which GRUB would take
 * for the end of the command line. */
static void per_size_groups(FILE *f, const struct thp_kvlist *l, const struct thp_setting_desc *d)
{
	bool done[THP_KV_MAX] = { false };
	uint64_t size;

	for (int i = 0; i < l->n; i++) {
		bool first = true;

		if (done[i] || !size_key(&l->v[i], d, &size))
			continue;
		fprintf(f, " %s=", d->boot);
		for (int j = i; j < l->n; j++) {
			char sz[24];

			if (!size_key(&l->v[j], d, &size) || strcmp(l->v[j].value, l->v[i].value) != 0)
				continue;
			fprintf(f, "%s%s", first ? "" : ",", thp_size_name(size, sz, sizeof(sz)));
			first = false;
			done[j] = true;
		}
		fprintf(f, ":%s", l->v[i].value);
	}
}

char *thp_cmdline_format(const struct thp_kvlist *l, struct thp_kvlist *rest)
{
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);
	char *out;

	if (!f)
		return NULL;
	memset(rest, 0, sizeof(*rest));
	for (int b = 0; b < thp_nsetting_descs; b++) {
		const struct thp_setting_desc *d = &thp_setting_descs[b];
		const struct thp_kv *kv = thp_kv_get(l, d->file);

		if (d->boot && d->place == THP_PLACE_SIZE)
			per_size_groups(f, l, d);
		else if (d->boot && d->place == THP_PLACE_TOP && kv)
			fprintf(f, " %s=%s", d->boot, kv->value);
	}
	for (int i = 0; i < l->n; i++) {
		struct thp_key k;
		if (thp_key_parse(l->v[i].key, &k) != 0 || !k.d->boot)
			thp_kv_set(rest, l->v[i].key, l->v[i].value, 0);
	}
	out = close_stream(f, &s);
	if (out && out[0] == ' ')
		memmove(out, out + 1, strlen(out));
	return out;
}

struct cmdline_ctx {
	const uint64_t *sizes;
	int nsizes;
	struct thp_kvlist *l;
	int found;
};

/* Sets per-size setting D to VALUE for each size of C in [LO, HI]. */
static void set_sizes(struct cmdline_ctx *c, const struct thp_setting_desc *d, uint64_t lo,
		      uint64_t hi, const char *value)
{
	for (int i = 0; i < c->nsizes; i++) {
		struct thp_key k = { d, c->sizes[i] };
		char key[THP_KEY_MAX];

		if (k.size < lo || k.size > hi)
			continue;
		thp_key_format(&k, key, sizeof(key));
		thp_kv_set(c->l, key, value, 0);
	}
}

/* Parses "16K-64K,2M:always;1M:never" of a thp_anon=/thp_shmem= option. */
static void parse_per_size(struct cmdline_ctx *c, const struct thp_setting_desc *d, const char *val,
			   size_t vlen)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "%.*s", (int)vlen, val);
	for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(tok, ':'), *save2 = NULL;

		if (!colon || strlen(colon + 1) >= THP_VALUE_MAX)
			continue;
		*colon = '\0';
		for (char *r = strtok_r(tok, ",", &save2); r; r = strtok_r(NULL, ",", &save2)) {
			char *dash = strchr(r, '-');
			uint64_t lo, hi;

			if (thp_size_parse(r, dash ? (size_t)(dash - r) : strlen(r), &lo))
				continue;
			hi = lo;
			if (dash && thp_size_parse(dash + 1, strlen(dash + 1), &hi))
				continue;
			set_sizes(c, d, lo, hi, colon + 1);
		}
	}
}

static int cmdline_param(const char *key, size_t klen, const char *val, size_t vlen, void *ctx)
{
	struct cmdline_ctx *c = ctx;

	for (int b = 0; b < thp_nsetting_descs && val; b++) {
		const struct thp_setting_desc *d = &thp_setting_descs[b];
		char value[THP_VALUE_MAX];

		if (!d->boot || strlen(d->boot) != klen || strncmp(key, d->boot, klen) != 0)
			continue;
		c->found++;
		if (d->place == THP_PLACE_SIZE) {
			parse_per_size(c, d, val, vlen);
		} else if (vlen < sizeof(value)) {
			snprintf(value, sizeof(value), "%.*s", (int)vlen, val);
			thp_kv_set(c->l, d->file, value, 0);
		}
	}
	return 0;
}

int thp_cmdline_parse(const char *cmdline, const uint64_t *sizes, int nsizes, struct thp_kvlist *l)
{
	struct cmdline_ctx c = { sizes, nsizes, l, 0 };

	thp_parse_cmdline(cmdline, cmdline_param, &c);
	return c.found;
}

/* Adds SOURCE (below the root) to P's sources; returns its index, or -1 when full. */
static int add_source(struct thp_persisted *p, const char *source)
{
	if (p->nsources >= THP_SOURCES_MAX)
		return -1;
	snprintf(p->sources[p->nsources], sizeof(p->sources[0]), "/%s", thp_rel(source));
	return p->nsources++;
}

/* KEY as P keeps it: vm.nr_hugepages is the pool of the default size. */
static void canon_key(const struct thp_persisted *p, const char *key, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s", key);
	if (p->pool_default && strcmp(key, THP_POOL_DEFAULT_KEY) == 0)
		thp_pool_key(p->pool_default, -1, buf, cap);
}

/* Sets KEY to VALUE from LINE of source SRC in P, over an earlier value. */
static void persisted_set(struct thp_persisted *p, const char *key, const char *value, int line, int src)
{
	if (thp_kv_set(&p->values, key, value, line) == 0)
		p->source_of[thp_kv_get(&p->values, key) - p->values.v] = src;
}

/* Merges entries FROM..L->n of L, read from source SRC, into P; they override
 * earlier values. */
static void merge(struct thp_persisted *p, const struct thp_kvlist *l, int from, int src)
{
	for (int i = from; i < l->n && src >= 0; i++) {
		char key[THP_KEY_MAX];

		canon_key(p, l->v[i].key, key, sizeof(key));
		persisted_set(p, key, l->v[i].value, l->v[i].line, src);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds the names in DIR ending in SUFFIX to NAMES (malloc'd, no duplicates, at
 * most MAX); returns the new count. */
static int list_names(const struct thp_root *root, const char *dir, const char *suffix,
		      char **names, int n, int max)
{
	DIR *d = thp_opendir(root, dir);
	struct dirent *de;
	size_t sl = strlen(suffix);

	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		size_t len = strlen(de->d_name);
		bool dup = false;

		if (de->d_name[0] == '.' || len <= sl || strcmp(de->d_name + len - sl, suffix) != 0)
			continue;
		for (int i = 0; i < n && !dup; i++)
			dup = strcmp(names[i], de->d_name) == 0;
		if (!dup && (names[n] = strdup(de->d_name)))
			n++;
	}
	closedir(d);
	return n;
}

/* Parses the file PATH with FN into L; false when it cannot be read. */
static bool parse_file(const struct thp_root *root, const char *path,
		       int (*fn)(const char *, struct thp_kvlist *), struct thp_kvlist *l)
{
	char *buf;
	size_t len;

	if (thp_read(root, path, &buf, &len) != 0)
		return false;
	fn(buf, l);
	free(buf);
	return true;
}

/* True when PATH (with lstat SB) is a link to /dev/null: a masked file, not
 * read (in a recorded tree that link points outside it). */
static bool masked(const struct thp_root *root, const char *path, const struct stat *sb)
{
	char target[16];

	return S_ISLNK(sb->st_mode) && thp_readlink(root, path, target, sizeof(target)) > 0 &&
	       strcmp(target, "/dev/null") == 0;
}

/* Drop-in files of one kind: a file hides same-named ones in later
 * directories (a link to /dev/null masks them). */
struct dropins {
	const char *const *dirs; /* four, in order of precedence */
	int (*parse)(const char *buf, struct thp_kvlist *l);
	bool later_wins; /* sysctl.d: the last assignment wins; tmpfiles.d: the first line */
};

static const char *const tmpfiles_dirs[] = { "etc/tmpfiles.d", "run/tmpfiles.d",
					     "usr/local/lib/tmpfiles.d", "usr/lib/tmpfiles.d" };
static const char *const sysctl_dirs[] = { "etc/sysctl.d", "run/sysctl.d", "usr/local/lib/sysctl.d",
					   "usr/lib/sysctl.d" };
static const struct dropins tmpfiles = { tmpfiles_dirs, thp_tmpfiles_parse, false };
static const struct dropins sysctls = { sysctl_dirs, thp_sysctl_parse, true };

/* Reads the drop-ins of kind K in name order into P. */
static void read_dropins(const struct thp_root *root, const struct dropins *k, struct thp_persisted *p,
			 struct thp_kvlist *l)
{
	char *names[256], path[512];
	int n = 0;

	memset(l, 0, sizeof(*l));
	for (size_t d = 0; d < 4; d++)
		n = list_names(root, k->dirs[d], ".conf", names, n, 256);
	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		for (size_t d = 0; d < 4; d++) {
			struct stat sb;
			int from;

			snprintf(path, sizeof(path), "%s/%s", k->dirs[d], names[i]);
			if (thp_stat(root, path, &sb, AT_SYMLINK_NOFOLLOW) != 0)
				continue;
			if (k->later_wins)
				memset(l, 0, sizeof(*l));
			from = l->n;
			if (!masked(root, path, &sb) && parse_file(root, path, k->parse, l) && l->n > from)
				merge(p, l, from, add_source(p, path));
			break;
		}
		free(names[i]);
	}
}

/* True when unit NAME is enabled: linked from some *.wants directory of DIR. */
static bool unit_enabled(const struct thp_root *root, const char *dir, const char *name)
{
	char *wants[64], path[512];
	struct stat sb;
	bool on = false;
	int n = list_names(root, dir, ".wants", wants, 0, 64);

	for (int i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s/%s", dir, wants[i], name);
		on = on || thp_stat(root, path, &sb, AT_SYMLINK_NOFOLLOW) == 0;
		free(wants[i]);
	}
	return on;
}

static void read_units(const struct thp_root *root, struct thp_persisted *p, struct thp_kvlist *l)
{
	static const char dir[] = "etc/systemd/system";
	char *names[256], path[512];
	int n = list_names(root, dir, ".service", names, 0, 256);

	qsort(names, (size_t)n, sizeof(names[0]), cmp_str);
	for (int i = 0; i < n; i++) {
		memset(l, 0, sizeof(*l));
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		bool sets = parse_file(root, path, thp_unit_parse, l) && l->n;

		if (sets && unit_enabled(root, dir, names[i]))
			merge(p, l, 0, add_source(p, path));
		else if (sets && p->nidle < (int)(sizeof(p->idle) / sizeof(p->idle[0])))
			snprintf(p->idle[p->nidle++], sizeof(p->idle[0]), "/%s", path);
		free(names[i]);
	}
}

/* True when the value of source SRC of P is applied again after tuned's
 * sysctl values: a sysctl.d file in /etc or /run. */
static bool reapplied(const struct thp_persisted *p, int src)
{
	return strncmp(p->sources[src], "/etc/sysctl.d/", 14) == 0 || strncmp(p->sources[src], "/run/sysctl.d/", 14) == 0;
}

/* Adds tuned's value V, from source SRC, to P's second writers when it
 * overwrites another persisted value E (NULL: none) or cannot be known. */
static void add_writer(struct thp_persisted *p, const struct thp_tuned_value *v, const char *key, int src,
		       const struct thp_kv *e)
{
	struct thp_second_writer *w = &p->writers[p->nwriters];

	if (p->nwriters == THP_WRITERS_MAX || (!v->unknown && (!e || strcmp(e->value, v->value) == 0)))
		return;
	p->nwriters++;
	memset(w, 0, sizeof(*w));
	snprintf(w->key, sizeof(w->key), "%s", key);
	snprintf(w->value, sizeof(w->value), "%s", v->value);
	snprintf(w->option, sizeof(w->option), "%s", v->option);
	w->unknown = v->unknown;
	w->source = src;
	w->line = v->line;
	w->over_source = e ? p->source_of[e - p->values.v] : -1;
	w->over_line = e ? e->line : 0;
	if (e)
		snprintf(w->over, sizeof(w->over), "%s", e->value);
}

/* Adds what tuned's active profile writes to P, when tuned.service is enabled. */
static void read_tuned(const struct thp_root *root, struct thp_persisted *p)
{
	struct thp_tuned *t = malloc(sizeof(*t));
	int src[THP_TUNED_FILES_MAX];

	p->tuned_from = p->nsources;
	if (!t)
		return;
	thp_tuned_read(root, t);
	snprintf(p->tuned_note, sizeof(p->tuned_note), "%s", t->problem);
	if (t->profiles[0] && !unit_enabled(root, "etc/systemd/system", "tuned.service")) {
		snprintf(p->tuned_note, sizeof(p->tuned_note),
			 "tuned.service is not enabled: boot applies no tuned profile ('%s' is active)", t->profiles);
		t->n = 0;
	} else {
		snprintf(p->tuned, sizeof(p->tuned), "%s", t->profiles);
	}
	for (int i = 0; i < THP_TUNED_FILES_MAX; i++)
		src[i] = -2; /* added when a value of it is */
	for (int i = 0; i < t->n; i++) {
		const struct thp_tuned_value *v = &t->v[i];
		const struct thp_kv *e;
		char key[THP_KEY_MAX];

		canon_key(p, v->key, key, sizeof(key));
		e = thp_kv_get(&p->values, key);
		if (v->sysctl && t->reapply_sysctl && e && reapplied(p, p->source_of[e - p->values.v]))
			continue;
		if (src[v->file] == -2)
			src[v->file] = add_source(p, t->files[v->file]);
		if (src[v->file] < 0)
			continue;
		add_writer(p, v, key, src[v->file], e);
		if (!v->unknown)
			persisted_set(p, key, v->value, v->line, src[v->file]);
	}
	free(t);
}

void thp_persisted_read(const struct thp_root *root, const uint64_t *sizes, int nsizes,
			uint64_t pool_default, struct thp_persisted *p)
{
	struct thp_kvlist *l = calloc(1, sizeof(*l));
	char buf[8192];

	memset(p, 0, sizeof(*p));
	p->pool_default = pool_default;
	if (!l)
		return;
	if (thp_read_buf(root, "proc/cmdline", buf, sizeof(buf)) >= 0 &&
	    thp_cmdline_parse(buf, sizes, nsizes, l) + thp_pools_cmdline_parse(buf, pool_default, l) > 0)
		merge(p, l, 0, add_source(p, "proc/cmdline"));
	read_dropins(root, &sysctls, p, l);
	read_dropins(root, &tmpfiles, p, l);
	read_units(root, p, l);
	read_tuned(root, p);
	free(l);
}

bool thp_persisted_by_tuned(const struct thp_persisted *p, int src)
{
	return p->tuned[0] && src >= p->tuned_from;
}

char *thp_boot_journal_format(const struct thp_boot_journal *j)
{
	char *s = NULL, command[sizeof(j->command)];
	size_t len;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	snprintf(command, sizeof(command), "%s", j->command);
	for (char *c = command; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?'; /* one line */
	fprintf(f, "thp-boot 1\nowner %d\ncommand %s\n"
		   "# the files before the change above; the next change of them puts them back\n",
		(int)j->owner, command);
	for (int i = 0; i < j->n; i++)
		if (j->v[i].text)
			fprintf(f, "file %s %zu\n%s\n", j->v[i].path, strlen(j->v[i].text), j->v[i].text);
		else
			fprintf(f, "absent %s\n", j->v[i].path);
	if (fflush(f) == 0)
		fprintf(f, "end %d %u\n", j->n, thp_cksum(s, len));
	return close_stream(f, &s);
}

/* Takes the path word of a "file"/"absent" line [S, E) into J's next file.
 * Returns the end of the path, or NULL. */
static const char *journal_path(struct thp_boot_journal *j, const char *s, const char *e)
{
	size_t n = strcspn(s, " \n");

	if (j->n >= THP_BOOT_FILES_MAX || !n || s + n > e || n >= sizeof(j->v[0].path) ||
	    memchr(s, '\0', n))
		return NULL;
	snprintf(j->v[j->n].path, sizeof(j->v[0].path), "%.*s", (int)n, s);
	j->v[j->n].text = NULL;
	return s + n;
}

/* One line of a boot journal at *P (line *LINE); moves *P past it and the
 * bytes of a file that follow, and *LINE past their lines. Returns 0, 1 at
 * the end line, or -1 (*LINE: the line at fault). */
static int journal_line(char *buf, char **p, struct thp_boot_journal *j, size_t *ends, int *line)
{
	char *s = *p, *e = strchr(s, '\n'), *q;
	unsigned long long len;
	unsigned long sum;
	int n, pid;

	if (!e)
		return -1;
	*p = e + 1;
	if (*line == 1)
		return strncmp(s, "thp-boot 1\n", 11) == 0 ? 0 : -1;
	if (s[0] == '#')
		return 0;
	if (sscanf(s, "owner %d\n", &pid) == 1 && pid > 0) {
		j->owner = pid;
		return 0;
	}
	if (strncmp(s, "command ", 8) == 0) {
		snprintf(j->command, sizeof(j->command), "%.*s", (int)(e - s - 8), s + 8);
		return 0;
	}
	if (strncmp(s, "absent ", 7) == 0) {
		if (journal_path(j, s + 7, e) != e)
			return -1;
		j->n++;
		return 0;
	}
	if (strncmp(s, "file ", 5) == 0) {
		q = (char *)journal_path(j, s + 5, e);
		if (!q || sscanf(q, " %llu\n", &len) != 1 || len >= strlen(*p) || (*p)[len] != '\n')
			return -1;
		j->v[j->n].text = *p;
		ends[j->n++] = (size_t)(*p - buf) + len;
		for (char *c = *p; c <= *p + len; c++)
			*line += *c == '\n';
		*p += len + 1;
		return 0;
	}
	if (sscanf(s, "end %d %lu\n", &n, &sum) == 2 && n == j->n &&
	    sum == (unsigned long)thp_cksum(buf, (size_t)(s - buf)))
		return 1;
	return -1;
}

int thp_boot_journal_parse(char *buf, struct thp_boot_journal *j, int *line)
{
	size_t ends[THP_BOOT_FILES_MAX] = { 0 };
	char *p = buf;
	int rc = 0;

	memset(j, 0, sizeof(*j));
	for (*line = 1; *p && rc == 0 && (rc = journal_line(buf, &p, j, ends, line)) == 0;)
		++*line;
	if (rc != 1) {
		*line = rc < 0 ? *line : 0;
		return -EINVAL;
	}
	*line = 0;
	for (int i = 0; i < j->n; i++)
		if (j->v[i].text)
			buf[ends[i]] = '\0';
	return 0;
}

void thp_boot_files_read(const struct thp_root *root, struct thp_boot_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		char rel[512];

		snprintf(rel, sizeof(rel), "%s/%s", f[i].dir, f[i].name);
		thp_root_shown(root, rel, f[i].shown, sizeof(f[i].shown));
		if (thp_read(root, rel, &f[i].cur, NULL))
			f[i].cur = NULL; /* absent or unreadable: nothing of thp's or anyone's to keep */
		f[i].done = THP_BOOT_KEPT;
	}
}

bool thp_boot_file_theirs(const struct thp_boot_file *f)
{
	return f->cur && !strstr(f->cur, f->mark);
}

void thp_boot_files_free(struct thp_boot_file *f, int n)
{
	for (int i = 0; i < n; i++) {
		free(f[i].text);
		free(f[i].cur);
		f[i].text = f[i].cur = NULL;
	}
}
