/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tuned.c - tuned's active profile, loaded and merged as tuned does it */
#include "tuned.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "parse.h"
#include "persist.h"
#include "settings.h"

#define UNITS_MAX 32
#define RAW_MAX 256 /* an option's value as written */
#define VARS_MAX 32

/* A section of a profile other than [main] and [variables]: a plugin
 * instance, whose plugin is its type (by default its name), applied only on
 * hosts whose /proc/cpuinfo and uname its regular expressions match. */
struct unit {
	char name[64], type[64];
	char cpuinfo_re[RAW_MAX], uname_re[RAW_MAX]; /* "": any host */
	bool enabled, replace;
};

/* An option of a unit that may write a THP setting, a vm.* sysctl or a pool. */
struct opt {
	int unit;
	char name[128];
	char value[RAW_MAX];  /* as written: variables are expanded once all is merged */
	const char *unknown;  /* why the value cannot be known from the text alone; NULL: it can */
	int file, line;
};

/* The units of one profile file, or of the profiles merged so far. */
struct units {
	int nu, no;
	struct unit u[UNITS_MAX];
	struct opt o[THP_KV_MAX];
};

/* The [variables] of every profile read, a later one overriding. */
struct vars {
	int n;
	char name[VARS_MAX][64];
	char value[VARS_MAX][RAW_MAX];
};

/* Loading the active profiles. */
struct load {
	const struct thp_root *root;
	struct thp_tuned *t;
	struct units *merged;
	struct vars *vars;
	int depth;
	bool failed; /* T->problem says why nothing is known */
	struct thp_tuned_dirs dirs;
};

/* What a unit's regular expressions are matched against. */
struct host {
	char *cpuinfo;      /* NULL: unreadable */
	char uname[1024];   /* "SYSNAME NODENAME RELEASE VERSION MACHINE", as tuned joins os.uname() */
	bool uname_whole;   /* every part of it could be read */
	int nsysfs;
	char sysfs[THP_KV_MAX][112]; /* THP files there: "/sys/kernel/mm/transparent_hugepage/enabled" */
};

enum section { S_NONE, S_MAIN, S_VARS, S_SKIP, S_UNIT };

/* Parsing one profile file. */
struct file_parse {
	struct units *f;
	struct vars *vars;
	int file;
	char dir[160];   /* the profile's directory ("/etc/tuned/p"); "": a variables file */
	enum section section;
	int unit;        /* S_UNIT: index into f->u */
	bool in_value;   /* the line before was an option: an indented line continues it */
	int opt;         /* that option, when kept; -1: none */
	char include[512];
	int include_line;
	int bad;         /* the first line tuned cannot parse; 0: none */
	const char *why;
	int longline;    /* the first line left out as too long; 0: none */
};

/* Where tuned looks profiles up when tuned-main.conf sets no profile_dirs,
 * the first one winning: the layouts of tuned 2.24 and of earlier ones. */
static const char *const default_dirs[] = { "etc/tuned/profiles", "etc/tuned", "usr/lib/tuned/profiles",
					    "usr/lib/tuned" };

static __attribute__((format(printf, 2, 3))) void fail(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ld->t->problem, sizeof(ld->t->problem), fmt, ap);
	va_end(ap);
	ld->failed = true;
}

/* Keeps the first thing left out, unless tuned's whole profile is not known. */
static __attribute__((format(printf, 2, 3))) void note(struct load *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->t->problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(ld->t->problem, sizeof(ld->t->problem), fmt, ap);
	va_end(ap);
}

static bool word_eq(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && memcmp(s, w, n) == 0;
}

static bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* Joins A, B and C ("" or NULL: none) into the path below the root that
 * tuned opens, normalized as Python's os.path.normpath reads an absolute
 * one: empty and "." components dropped, ".." taking the one before it off
 * and none above the root; so no path leaves the root but by a link, which
 * thp_root_openat() does not follow out of a recorded tree. False when the
 * path is CAP bytes or longer. */
static bool norm_path(char *out, size_t cap, const char *a, const char *b, const char *c)
{
	const char *parts[] = { a, b, c };
	size_t n = 0;

	for (size_t i = 0; i < 3; i++)
		for (const char *p = parts[i] ? parts[i] : ""; *p;) {
			size_t len = strcspn(p, "/");

			if (word_eq(p, len, "..")) {
				while (n && out[n - 1] != '/')
					n--;
				n -= n > 0;
			} else if (len && !word_eq(p, len, ".")) {
				if (n + (n > 0) + len >= cap)
					return false;
				if (n)
					out[n++] = '/';
				memcpy(out + n, p, len);
				n += len;
			}
			p += len + (p[len] == '/');
		}
	out[n] = '\0';
	return true;
}

/* A name tuned accepts for a profile: letters, digits, '_', '.', '-'. */
static bool safe_name(const char *s, size_t n)
{
	if (!n || n > 100 || word_eq(s, n, ".") || word_eq(s, n, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-", s[i]) || !s[i])
			return false;
	return true;
}

/* Options whose name may write a THP setting, a vm.* sysctl or a pool. */
static bool of_interest(const char *name)
{
	return starts(name, "transparent_hugepage") || starts(name, "vm.") || starts(name, "vm/") ||
	       starts(name, "/sys/");
}

/* Copies [V, V+VN) into DST (RAW_MAX bytes); a longer text becomes an
 * undefined variable, whose expansion fails: its value is not known. */
static void copy_raw(char *dst, const char *v, size_t vn)
{
	if (vn >= RAW_MAX)
		snprintf(dst, RAW_MAX, "${}");
	else
		snprintf(dst, RAW_MAX, "%.*s", (int)vn, v);
}

static int var_find(const struct vars *v, const char *name, size_t n)
{
	for (int i = 0; i < v->n; i++)
		if (word_eq(name, n, v->name[i]))
			return i;
	return -1;
}

/* Sets variable NAME to [V, V+VN). */
static void var_set(struct vars *v, const char *name, const char *val, size_t vn)
{
	int i = var_find(v, name, strlen(name));

	if (i < 0 && (v->n == VARS_MAX || strlen(name) >= sizeof(v->name[0])))
		return;
	if (i < 0)
		snprintf(v->name[i = v->n++], sizeof(v->name[0]), "%s", name);
	copy_raw(v->value[i], val, vn);
}

/* Expands the ${NAME} of IN with V into OUT (CAP bytes). Returns 0, or -1
 * when a variable is not defined, is a function (${f:...}), or the text
 * grows too long. */
static int expand(const char *in, const struct vars *v, char *out, size_t cap)
{
	size_t n = 0;

	for (const char *p = in; *p;) {
		const char *rep = p, *end;
		size_t rn = 1;
		int i;

		if (p[0] == '$' && p[1] == '{') {
			end = strchr(p + 2, '}');
			if (!end || (i = var_find(v, p + 2, (size_t)(end - p - 2))) < 0)
				return -1;
			rep = v->value[i];
			rn = strlen(rep);
			p = end;
		}
		p++;
		if (n + rn >= cap)
			return -1;
		memcpy(out + n, rep, rn);
		n += rn;
	}
	out[n] = '\0';
	return strstr(out, "${") ? -1 : 0;
}

static int find_unit(const struct units *s, const char *name)
{
	for (int i = 0; i < s->nu; i++)
		if (strcmp(s->u[i].name, name) == 0)
			return i;
	return -1;
}

/* Sets option O of unit U in S, in place when S has it already. Returns
 * its index, or -1 when S is full. */
static int opt_put(struct units *s, int u, const struct opt *o)
{
	int i = 0;

	while (i < s->no && (s->o[i].unit != u || strcmp(s->o[i].name, o->name) != 0))
		i++;
	if (i == THP_KV_MAX)
		return -1;
	s->no += i == s->no;
	s->o[i] = *o;
	s->o[i].unit = u;
	return i;
}

/* Enters section [NAME] of the file being parsed. */
static void section(struct file_parse *fp, const char *name, size_t n)
{
	struct units *f = fp->f;
	char buf[sizeof(f->u[0].name)];

	fp->section = word_eq(name, n, "main") ? S_MAIN : word_eq(name, n, "variables") ? S_VARS : S_UNIT;
	if (!fp->dir[0]) /* a variables file: every section's options are variables */
		fp->section = S_VARS;
	if (fp->section != S_UNIT)
		return;
	if (n >= sizeof(buf)) {
		fp->section = S_SKIP; /* no plugin of tuned's has such a name */
		return;
	}
	snprintf(buf, sizeof(buf), "%.*s", (int)n, name);
	fp->unit = find_unit(f, buf);
	if (fp->unit >= 0)
		return;
	if (f->nu == UNITS_MAX) {
		fp->section = S_SKIP;
		return;
	}
	fp->unit = f->nu++;
	snprintf(f->u[fp->unit].name, sizeof(f->u[0].name), "%s", buf);
	snprintf(f->u[fp->unit].type, sizeof(f->u[0].type), "%s", buf);
	f->u[fp->unit].cpuinfo_re[0] = f->u[fp->unit].uname_re[0] = '\0';
	f->u[fp->unit].enabled = true;
	f->u[fp->unit].replace = false;
}

/* Option NAME = [V, V+VN) at LINE of the section being parsed. */
static void option(struct file_parse *fp, const char *name, const char *v, size_t vn, int line)
{
	struct opt o = { .unit = fp->unit, .file = fp->file, .line = line };
	struct unit *u;

	if (fp->section == S_MAIN && strcmp(name, "include") == 0) {
		snprintf(fp->include, sizeof(fp->include), "%.*s", (int)vn, v);
		fp->include_line = line;
	}
	if (fp->section == S_VARS)
		var_set(fp->vars, name, v, vn);
	if (fp->section != S_UNIT)
		return;
	u = &fp->f->u[fp->unit];
	if (strcmp(name, "type") == 0 && vn < sizeof(u->type))
		snprintf(u->type, sizeof(u->type), "%.*s", (int)vn, v);
	else if (strcmp(name, "enabled") == 0)
		u->enabled = word_eq(v, vn, "true");
	else if (strcmp(name, "replace") == 0)
		u->replace = word_eq(v, vn, "true");
	else if (strcmp(name, "cpuinfo_regex") == 0 || strcmp(name, "uname_regex") == 0)
		copy_raw(name[0] == 'c' ? u->cpuinfo_re : u->uname_re, v, vn);
	if (!of_interest(name) || strlen(name) >= sizeof(o.name))
		return;
	snprintf(o.name, sizeof(o.name), "%s", name);
	copy_raw(o.value, v, vn);
	fp->opt = opt_put(fp->f, fp->unit, &o);
}

#define PROFILE_DIR "${i:PROFILE_DIR}"

/* Copies [V, V+VN) into OUT (RAW_MAX bytes) as copy_raw() does, with each
 * ${i:PROFILE_DIR} replaced by DIR, as tuned reads a profile file. */
static void profile_dir_expand(const char *v, size_t vn, const char *dir, char *out)
{
	size_t n = 0, tn = strlen(PROFILE_DIR);

	for (size_t i = 0; i < vn;) {
		bool at = vn - i >= tn && memcmp(v + i, PROFILE_DIR, tn) == 0;
		size_t len = at ? strlen(dir) : 1;

		if (n + len >= RAW_MAX) {
			copy_raw(out, v, RAW_MAX);
			return;
		}
		memcpy(out + n, at ? dir : v + i, len);
		n += len;
		i += at ? tn : 1;
	}
	out[n] = '\0';
}

/* Cuts a comment that a '#' after a blank starts, as tuned's parser does. */
static size_t cut_comment(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (s[i] == '#' && (s[i - 1] == ' ' || s[i - 1] == '\t'))
			return i;
	return n;
}

/* Stops at the first line tuned cannot parse (the whole profile fails). */
static int bad_line(struct file_parse *fp, int line, const char *why)
{
	fp->bad = line;
	fp->why = why;
	return 1;
}

/* One line of a profile file, parsed as tuned's INI parser does: sections,
 * name=value options, '#' and ';' comments, indented continuation lines. */
static int conf_line(const char *s, size_t len, int line, void *ctx)
{
	struct file_parse *fp = ctx;
	bool indented = len && (s[0] == ' ' || s[0] == '\t');
	const char *p = s, *close, *v;
	char name[256];
	size_t n = len, nn, vn;

	if (len > THP_TUNED_LINE_MAX) {
		fp->longline = fp->longline ? fp->longline : line;
		fp->in_value = false;
		return 0;
	}
	thp_trim(&p, &n);
	if (!n || *p == '#' || *p == ';')
		return 0;
	n = cut_comment(p, n);
	thp_trim(&p, &n);
	if (indented && fp->in_value) {
		if (fp->opt >= 0)
			fp->f->o[fp->opt].unknown = "spans several lines";
		return 0;
	}
	fp->in_value = false;
	close = *p == '[' ? memrchr(p, ']', n) : NULL;
	if (close && close > p + 1) {
		section(fp, p + 1, (size_t)(close - p - 1));
		return 0;
	}
	if (fp->section == S_NONE)
		return bad_line(fp, line, "comes before the first [section]");
	if (!thp_split_kv(p, n, &p, &nn, &v, &vn))
		return bad_line(fp, line, "is neither a [section] nor name=value");
	if (!nn)
		return bad_line(fp, line, "has no name before '='");
	fp->in_value = true;
	fp->opt = -1;
	if (nn < sizeof(name)) {
		char val[RAW_MAX];

		if (fp->dir[0] && memmem(v, vn, PROFILE_DIR, strlen(PROFILE_DIR))) {
			profile_dir_expand(v, vn, fp->dir, val);
			v = val;
			vn = strlen(val);
		}
		snprintf(name, sizeof(name), "%.*s", (int)nn, p);
		option(fp, name, v, vn, line);
	}
	return 0;
}

/* Merges the units of profile file F into the profiles merged before it:
 * a unit replaces the one of the same name when it says replace=true, else
 * updates its type, whether it is enabled and its options. */
static void merge_units(struct units *m, const struct units *f)
{
	for (int i = 0; i < f->nu; i++) {
		int a = find_unit(m, f->u[i].name);

		if (a >= 0 && f->u[i].replace) {
			int k = 0;
			for (int j = 0; j < m->no; j++)
				if (m->o[j].unit != a)
					m->o[k++] = m->o[j];
			m->no = k;
		}
		if (a < 0 && m->nu == UNITS_MAX)
			continue;
		if (a >= 0 && !f->u[i].replace) { /* a regular expression not given again stays */
			struct unit u = f->u[i];
			if (!u.cpuinfo_re[0])
				snprintf(u.cpuinfo_re, RAW_MAX, "%s", m->u[a].cpuinfo_re);
			if (!u.uname_re[0])
				snprintf(u.uname_re, RAW_MAX, "%s", m->u[a].uname_re);
			m->u[a] = u;
		} else {
			a = a < 0 ? m->nu++ : a;
			m->u[a] = f->u[i];
		}
		for (int k = 0; k < f->no; k++)
			if (f->o[k].unit == i)
				opt_put(m, a, &f->o[k]);
	}
}

static void load_profile(struct load *ld, const char *name, size_t n, const char *by);

/* Loads the profiles of include=LIST of file BY, each before the file itself. */
static void load_includes(struct load *ld, const char *list, const char *by, int line)
{
	if (strstr(list, "${")) {
		note(ld, "the include of %s (line %d) uses a variable: not followed", by, line);
		return;
	}
	if (ld->depth >= THP_TUNED_DEPTH_MAX) {
		fail(ld, "%s includes profiles nested deeper than %d: what tuned writes is not known here", by,
		     THP_TUNED_DEPTH_MAX);
		return;
	}
	ld->depth++;
	for (const char *p = list; !ld->failed;) {
		size_t len = strcspn(p, ",;");
		const char *s = p;
		size_t sn = len;

		thp_trim(&s, &sn);
		for (const char *slash; (slash = memchr(s, '/', sn));) { /* tuned takes the last component */
			sn -= (size_t)(slash + 1 - s);
			s = slash + 1;
		}
		load_profile(ld, s, sn, by);
		if (!p[len])
			break;
		p += len + 1;
	}
	ld->depth--;
}

/* Reads the file of profile NAME that tuned would read: the first of the
 * profile directories not read already. Returns its buffer (index in
 * *FILE), or NULL after fail(). */
static char *read_profile(struct load *ld, const char *name, size_t n, const char *by, int *file)
{
	struct thp_tuned *t = ld->t;
	char path[sizeof(t->files[0]) - 1], nm[128], *buf = NULL;
	bool again = false;
	int err = -ENOENT;

	snprintf(nm, sizeof(nm), "%.*s", (int)n, name);
	for (int d = 0; d < ld->dirs.n && safe_name(name, n); d++) {
		bool read = false;

		if (!norm_path(path, sizeof(path), ld->dirs.d[d], nm, "tuned.conf"))
			continue;
		for (int i = 0; i < t->nfiles && !read; i++)
			read = strcmp(t->files[i] + 1, path) == 0;
		again = again || read;
		if (read || (err = thp_read(ld->root, path, &buf, NULL)) == -ENOENT || err == -ENOTDIR ||
		    err == -EISDIR)
			continue;
		break;
	}
	if (err == -ENOENT || err == -ENOTDIR || err == -EISDIR) {
		fail(ld, "profile '%s'%s%s cannot be loaded: %s%s; tuned applies none of its profiles", nm,
		     by ? " included by " : "", by ? by : "",
		     again ? "it is included again (an include cycle)" : "no such profile in ",
		     again ? "" : ld->dirs.configured ? "the profile_dirs of /etc/tuned/tuned-main.conf"
						  : "/etc/tuned or /usr/lib/tuned");
		return NULL;
	}
	if (err) {
		fail(ld, "cannot read /%s: %s; what tuned writes is not known here", path, thp_read_strerror(err));
		return NULL;
	}
	if (t->nfiles == THP_TUNED_FILES_MAX) {
		fail(ld, "the profiles include more than %d files: what tuned writes is not known here",
		     THP_TUNED_FILES_MAX);
		free(buf);
		return NULL;
	}
	*file = t->nfiles;
	snprintf(t->files[t->nfiles++], sizeof(t->files[0]), "/%s", path);
	return buf;
}

/* Loads profile NAME (included by file BY, NULL: active): its includes,
 * then its own units over them. */
static void load_profile(struct load *ld, const char *name, size_t n, const char *by)
{
	struct file_parse *fp = calloc(1, sizeof(*fp));
	struct units *f = calloc(1, sizeof(*f));
	struct vars *fv = calloc(1, sizeof(*fv));
	char *buf = NULL;
	int file = 0;

	if (!fp || !f || !fv)
		fail(ld, "out of memory");
	else
		buf = read_profile(ld, name, n, by, &file);
	if (buf) {
		const char *path = ld->t->files[file];

		fp->f = f;
		fp->vars = fv;
		fp->file = file;
		snprintf(fp->dir, sizeof(fp->dir), "%.*s", (int)(strrchr(path, '/') - path), path);
		fp->opt = -1;
		thp_each_line(buf, conf_line, fp);
		if (fp->bad)
			fail(ld, "%s cannot be loaded: line %d %s; tuned applies none of its profiles", path, fp->bad,
			     fp->why);
		else if (fp->longline)
			note(ld, "line %d of %s is longer than %d bytes: left out", fp->longline, path,
			     THP_TUNED_LINE_MAX);
		if (!ld->failed && fp->include_line)
			load_includes(ld, fp->include, path, fp->include_line);
		if (!ld->failed)
			merge_units(ld->merged, f);
		for (int i = 0; !ld->failed && i < fv->n; i++) /* over those of its includes */
			var_set(ld->vars, fv->name[i], fv->value[i], strlen(fv->value[i]));
	}
	free(buf);
	free(fp);
	free(f);
	free(fv);
}

/* Adds the variables of file PATH (as written: relative to /, tuned's
 * directory) to V, as tuned reads an include= of [variables]: name=value
 * lines, in any section; a file it cannot parse gives none. */
static void read_var_file(struct load *ld, const char *path, struct vars *v)
{
	struct file_parse *fp = calloc(1, sizeof(*fp));
	struct vars *fv = calloc(1, sizeof(*fv));
	char rel[sizeof(ld->t->files[0])], *buf = NULL;
	int err = !norm_path(rel, sizeof(rel), path, NULL, NULL) ? -ENAMETOOLONG : 0;

	if (!err)
		err = thp_read(ld->root, rel, &buf, NULL);
	if (!fp || !fv) {
		fail(ld, "out of memory");
	} else if (err) {
		note(ld, "cannot read /%.*s, the variables file of [variables] include=: %s; a value using its "
			 "variables is not known here", err == -ENAMETOOLONG ? 0 : (int)strlen(rel), rel,
		     thp_read_strerror(err));
	} else {
		fp->vars = fv;
		fp->section = S_VARS;
		fp->opt = -1;
		thp_each_line(buf, conf_line, fp);
		if (fp->bad)
			note(ld, "/%s ([variables] include=) cannot be parsed: line %d %s; tuned reads none of its variables",
			     rel, fp->bad, fp->why);
		for (int i = 0; !fp->bad && i < fv->n; i++)
			var_set(v, fv->name[i], fv->value[i], strlen(fv->value[i]));
	}
	free(buf);
	free(fp);
	free(fv);
}

/* Replaces LD's variables with those tuned expands with: the merged
 * [variables] in order, an include=FILE there adding FILE's where it
 * stands (a later variable overriding an earlier one). */
static void vars_include(struct load *ld)
{
	struct vars *v = calloc(1, sizeof(*v));

	if (!v) {
		fail(ld, "out of memory");
		return;
	}
	for (int i = 0; i < ld->vars->n; i++) {
		if (strcmp(ld->vars->name[i], "include") == 0)
			read_var_file(ld, ld->vars->value[i], v);
		else
			var_set(v, ld->vars->name[i], ld->vars->value[i], strlen(ld->vars->value[i]));
	}
	*ld->vars = *v;
	free(v);
}

/* The setting option NAME of a unit of plugin TYPE writes, into KEY;
 * false when none. A [sysfs] name with a glob is matched by option_keys(). */
static bool option_key(const char *type, const char *name, char *key, size_t cap)
{
	char path[192];

	if (strcmp(type, "vm") == 0) {
		const char *k = strcmp(name, "transparent_hugepages") == 0 || strcmp(name, "transparent_hugepage") == 0
					? "enabled"
				: strcmp(name, "transparent_hugepage.defrag") == 0 ? "defrag"
										    : NULL;
		return k && snprintf(key, cap, "%s", k) > 0;
	}
	if (strcmp(type, "sysctl") == 0) {
		/* tuned's sysctl names: a '.' separates, a '/' stands for a '.' */
		int n = snprintf(path, sizeof(path), "proc/sys/%s", name);
		for (char *c = path + 9; n > 0 && *c; c++)
			if (*c == '.' || *c == '/')
				*c = *c == '.' ? '/' : '.';
		return n > 0 && (size_t)n < sizeof(path) && thp_boot_path_key(path, key, cap) == 0;
	}
	return strcmp(type, "sysfs") == 0 && thp_boot_path_key(name, key, cap) == 0;
}

/* The settings option NAME of a unit of plugin TYPE writes on host H, into
 * KEYS (at most THP_KV_MAX); returns how many. A [sysfs] name with a glob
 * writes each THP file of H it matches, as Python's glob matches a path:
 * '*' and '?' within one component, a leading '.' only by a '.'. */
static int option_keys(const struct host *h, const char *type, const char *name, char (*keys)[THP_KEY_MAX])
{
	int n = 0;

	if (strcmp(type, "sysfs") != 0 || !strpbrk(name, "*?["))
		return option_key(type, name, keys[0], THP_KEY_MAX) ? 1 : 0;
	for (int i = 0; i < h->nsysfs; i++)
		if (fnmatch(name, h->sysfs[i], FNM_PATHNAME | FNM_PERIOD) == 0 &&
		    thp_key_from_path(h->sysfs[i], keys[n], THP_KEY_MAX) == 0)
			n++;
	return n;
}

enum match { M_NO, M_YES, M_UNKNOWN };

/* Whether regular expression RE (variables of V expanded; "": any host)
 * matches TEXT (NULL: unreadable) as Python's re.search does with
 * re.MULTILINE; WHOLE: TEXT is all tuned would match, so no match is a no. */
static enum match matches(const char *re, const char *text, bool whole, const struct vars *v)
{
	char buf[RAW_MAX];
	regex_t rx;
	int rc;

	if (!re[0])
		return M_YES;
	if (!text || expand(re, v, buf, sizeof(buf)) != 0 || regcomp(&rx, buf, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) != 0)
		return M_UNKNOWN;
	rc = regexec(&rx, text, 0, NULL, 0);
	regfree(&rx);
	return rc == 0 ? M_YES : whole ? M_NO : M_UNKNOWN;
}

/* Sets key K to what option O of unit U writes (unknown for UNKNOWN),
 * replacing an earlier value. */
static void value_put(struct thp_tuned *t, const char *k, const struct unit *u, const struct opt *o,
		      const char *value, const char *unknown)
{
	int i = 0;

	while (i < t->n && strcmp(t->v[i].key, k) != 0)
		i++;
	if (i == THP_KV_MAX)
		return;
	t->n += i == t->n;
	memset(&t->v[i], 0, sizeof(t->v[i]));
	snprintf(t->v[i].key, sizeof(t->v[i].key), "%s", k);
	if (!unknown)
		snprintf(t->v[i].value, sizeof(t->v[i].value), "%s", value);
	snprintf(t->v[i].option, sizeof(t->v[i].option), "[%s] %s", u->name, o->name);
	t->v[i].unknown = unknown;
	t->v[i].sysctl = strcmp(u->type, "sysctl") == 0;
	t->v[i].file = o->file;
	t->v[i].line = o->line;
}

/* The value option O writes into BUF; returns why it cannot be known, or NULL. */
static const char *opt_value(const struct opt *o, const struct vars *v, char *buf, size_t cap)
{
	size_t n;

	if (o->unknown)
		return o->unknown;
	if (expand(o->value, v, buf, cap) != 0)
		return "uses a variable";
	n = strlen(buf);
	if (n > 1 && (buf[0] == '<' || buf[0] == '>'))
		return "is written only when above or below the running value";
	return n < THP_VALUE_MAX ? NULL : "is longer than any value of the setting";
}

/* The values that the enabled vm, sysctl and sysfs units of M write on host
 * H. tuned's vm plugin leaves transparent_hugepages alone when the kernel
 * command line CMDLINE sets transparent_hugepage=, and takes only always,
 * madvise and never. */
static void resolve(struct thp_tuned *t, const struct units *m, const struct vars *v, const struct host *h,
		    const char *cmdline)
{
	const char *thp_opt = strstr(cmdline, "transparent_hugepage=");
	bool cmdline_thp = thp_opt && thp_opt > cmdline;

	for (int i = 0; i < m->nu; i++) {
		const struct unit *u = &m->u[i];
		enum match c = matches(u->cpuinfo_re, h->cpuinfo, h->cpuinfo != NULL, v),
			   un = matches(u->uname_re, h->uname, h->uname_whole, v);

		for (int k = 0; u->enabled && c != M_NO && un != M_NO && k < m->no; k++) {
			const struct opt *o = &m->o[k];
			char keys[THP_KV_MAX][THP_KEY_MAX], value[RAW_MAX];
			const char *unknown = opt_value(o, v, value, sizeof(value));
			int nk = o->unit == i ? option_keys(h, u->type, o->name, keys) : 0;

			if (c == M_UNKNOWN || un == M_UNKNOWN)
				unknown = "is written only on hosts its cpuinfo_regex and uname_regex match";
			if (nk && strcmp(u->type, "vm") == 0 && strcmp(keys[0], "enabled") == 0 &&
			    (cmdline_thp || (!unknown && strcmp(value, "always") != 0 && strcmp(value, "madvise") != 0 &&
					     strcmp(value, "never") != 0)))
				continue;
			for (int j = 0; j < nk; j++)
				value_put(t, keys[j], u, o, value, unknown);
		}
	}
}

/* Adds FILE of directory DIR below ROOT to H's THP files when it is there
 * and is a setting 'thp set' writes. */
static void sysfs_add(const struct thp_root *root, struct host *h, const char *dir, const char *file)
{
	char path[sizeof(h->sysfs[0])], key[THP_KEY_MAX];
	struct stat sb;

	if (h->nsysfs < THP_KV_MAX && (size_t)snprintf(path, sizeof(path), "/%s/%s", dir, file) < sizeof(path) &&
	    thp_key_from_path(path, key, sizeof(key)) == 0 && thp_stat(root, path + 1, &sb, 0) == 0)
		snprintf(h->sysfs[h->nsysfs++], sizeof(h->sysfs[0]), "%s", path);
}

/* Reads into H the THP files below ROOT that a [sysfs] glob may name: the
 * settings of the THP directory, of khugepaged/ and of each hugepages-SIZE/. */
static void sysfs_read(const struct thp_root *root, struct host *h)
{
	DIR *d = thp_opendir(root, THP_SYSFS_DIR);
	struct dirent *de;
	char dir[96];

	for (int p = THP_PLACE_TOP; p <= THP_PLACE_KHUGEPAGED; p++) {
		thp_place_dir((enum thp_place)p, 0, dir, sizeof(dir));
		for (int i = 0; i < thp_nsetting_descs; i++)
			if (thp_setting_descs[i].place == (enum thp_place)p)
				sysfs_add(root, h, dir, thp_setting_descs[i].file);
	}
	while (d && (de = readdir(d))) {
		if (strncmp(de->d_name, "hugepages-", 10) != 0)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", THP_SYSFS_DIR, de->d_name);
		for (int i = 0; i < thp_nsetting_descs; i++)
			if (thp_setting_descs[i].place == THP_PLACE_SIZE)
				sysfs_add(root, h, dir, thp_setting_descs[i].file);
	}
	if (d)
		closedir(d);
}

/* Reads what units' regular expressions and [sysfs] globs are matched
 * against below ROOT. */
static void host_read(const struct thp_root *root, struct host *h)
{
	static const char *const parts[] = { "ostype", "hostname", "osrelease", "version", "arch" };
	size_t len = 0;

	if (thp_read(root, "proc/cpuinfo", &h->cpuinfo, NULL) != 0)
		h->cpuinfo = NULL;
	h->uname_whole = true;
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		char rel[64], buf[256];
		ssize_t n;

		snprintf(rel, sizeof(rel), "proc/sys/kernel/%s", parts[i]);
		n = thp_read_buf(root, rel, buf, sizeof(buf));
		h->uname_whole = h->uname_whole && n > 0;
		n = n < 0 ? 0 : n;
		while (n && buf[n - 1] == '\n')
			n--;
		thp_put(h->uname, sizeof(h->uname), &len, "%s%.*s", i ? " " : "", (int)n, buf);
	}
	sysfs_read(root, h);
}

/* What thp reads of tuned-main.conf. */
struct main_conf {
	bool reapply;
	bool dirs_set;
	char dirs[1024]; /* profile_dirs, as written */
};

/* Whether [V, V+VN) is a boolean of configobj's (0/false/no/off or
 * 1/true/yes/on, any case): sets *B to it. */
static void conf_bool(const char *v, size_t vn, bool *b)
{
	static const char *const no[] = { "0", "false", "no", "off" }, *const yes[] = { "1", "true", "yes", "on" };

	for (size_t i = 0; i < 4; i++) {
		if (strlen(no[i]) == vn && strncasecmp(v, no[i], vn) == 0)
			*b = false;
		if (strlen(yes[i]) == vn && strncasecmp(v, yes[i], vn) == 0)
			*b = true;
	}
}

/* reapply_sysctl = BOOL (a '#' starts a comment, as configobj reads it)
 * and profile_dirs = LIST of tuned-main.conf. */
static int main_conf_line(const char *s, size_t len, int line, void *ctx)
{
	struct main_conf *mc = ctx;
	const char *k, *v, *hash;
	size_t kn, vn;

	(void)line;
	if (!thp_split_kv(s, len, &k, &kn, &v, &vn))
		return 0;
	if (word_eq(k, kn, "profile_dirs")) {
		mc->dirs_set = true;
		snprintf(mc->dirs, sizeof(mc->dirs), "%.*s", (int)vn, v);
	}
	if ((hash = memchr(v, '#', vn))) {
		vn = (size_t)(hash - v);
		thp_trim(&v, &vn);
	}
	if (word_eq(k, kn, "reapply_sysctl"))
		conf_bool(v, vn, &mc->reapply);
	return 0;
}

/* Sets D to the directories of LIST (comma-separated, a later one winning),
 * the first one winning. */
static void dirs_from_list(struct thp_tuned_dirs *d, const char *list)
{
	char in_order[THP_TUNED_DIRS_MAX][THP_TUNED_DIR_MAX];
	int n = 0;

	for (const char *p = list;;) {
		size_t len = strcspn(p, ","), sn = len;
		const char *s = p;
		char raw[THP_TUNED_DIR_MAX];

		thp_trim(&s, &sn);
		if (sn >= sizeof(raw) || n == THP_TUNED_DIRS_MAX) {
			d->cut = true;
		} else {
			snprintf(raw, sizeof(raw), "%.*s", (int)sn, s);
			norm_path(in_order[n++], sizeof(in_order[0]), raw, NULL, NULL); /* never longer */
		}
		if (!p[len])
			break;
		p += len + 1;
	}
	d->configured = true;
	for (d->n = 0; d->n < n; d->n++)
		snprintf(d->d[d->n], sizeof(d->d[0]), "%s", in_order[n - 1 - d->n]);
}

/* Reads tuned-main.conf below ROOT: *REAPPLY (true when not said) and D. */
static void main_conf_read(const struct thp_root *root, bool *reapply, struct thp_tuned_dirs *d)
{
	struct main_conf *mc = calloc(1, sizeof(*mc));
	char *conf = NULL;

	memset(d, 0, sizeof(*d));
	*reapply = true;
	if (mc && thp_read(root, "etc/tuned/tuned-main.conf", &conf, NULL) == 0) {
		mc->reapply = true;
		thp_each_line(conf, main_conf_line, mc);
		*reapply = mc->reapply;
	}
	if (mc && mc->dirs_set) {
		dirs_from_list(d, mc->dirs);
	} else {
		for (d->n = 0; d->n < (int)(sizeof(default_dirs) / sizeof(default_dirs[0])); d->n++)
			snprintf(d->d[d->n], sizeof(d->d[0]), "%s", default_dirs[d->n]);
	}
	free(conf);
	free(mc);
}

void thp_tuned_dirs_read(const struct thp_root *root, struct thp_tuned_dirs *d)
{
	bool reapply;

	main_conf_read(root, &reapply, d);
}

/* Appends the profile names of file REL (blank-separated) to T->profiles;
 * tuned skips names it does not accept. Returns 0 or -errno. */
static int read_names(const struct thp_root *root, const char *rel, struct thp_tuned *t)
{
	char *buf = NULL;
	int err = thp_read(root, rel, &buf, NULL);

	for (const char *p = buf; !err && *p;) {
		size_t n;

		p += strspn(p, " \t\r\n\f\v");
		n = strcspn(p, " \t\r\n\f\v");
		if (n && safe_name(p, n)) {
			size_t have = strlen(t->profiles);
			if (have + n + 2 > sizeof(t->profiles))
				err = -E2BIG;
			else
				snprintf(t->profiles + have, sizeof(t->profiles) - have, "%s%.*s", have ? " " : "", (int)n, p);
		}
		p += n;
	}
	free(buf);
	return err == -ENOENT ? 0 : err;
}

void thp_tuned_read(const struct thp_root *root, struct thp_tuned *t)
{
	struct load ld = { .root = root, .t = t, .merged = calloc(1, sizeof(struct units)), .vars = calloc(1, sizeof(struct vars)) };
	struct host h = { 0 };
	char cmdline[8192] = "";
	int err;

	memset(t, 0, sizeof(*t));
	t->reapply_sysctl = true;
	if ((err = read_names(root, "etc/tuned/active_profile", t)) != 0 ||
	    (err = read_names(root, "etc/tuned/post_loaded_profile", t)) != 0)
		fail(&ld, "cannot read tuned's active profile: %s", err == -E2BIG ? "names longer than thp reads" : thp_read_strerror(err));
	if ((!ld.merged || !ld.vars) && !ld.failed)
		fail(&ld, "out of memory");
	if (ld.failed || !t->profiles[0]) {
		t->profiles[0] = '\0';
		free(ld.merged);
		free(ld.vars);
		return;
	}
	main_conf_read(root, &t->reapply_sysctl, &ld.dirs);
	if (ld.dirs.cut)
		note(&ld, "profile_dirs of /etc/tuned/tuned-main.conf names more than %d directories or one longer than %d "
			  "bytes: left out", THP_TUNED_DIRS_MAX, THP_TUNED_DIR_MAX - 1);
	if (thp_read_buf(root, "proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		cmdline[0] = '\0';
	for (const char *p = t->profiles; !ld.failed && *p;) {
		size_t n = strcspn(p, " ");
		load_profile(&ld, p, n, NULL);
		p += n + (p[n] == ' ');
	}
	if (!ld.failed)
		vars_include(&ld);
	if (!ld.failed) {
		host_read(root, &h);
		resolve(t, ld.merged, ld.vars, &h, cmdline);
	}
	free(h.cpuinfo);
	free(ld.merged);
	free(ld.vars);
}
