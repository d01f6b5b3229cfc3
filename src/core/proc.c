/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.c - the process model: files of /proc/PID and the THP-disable ancestor walk */
#include "proc.h"
#include "status.h"

#include <ctype.h>
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "parse.h"

/* The smaps name of each figure of struct thp_rollup. */
static const char *const rollup_names[THP_RF_N] = {
	[THP_RF_RSS] = "Rss",
	[THP_RF_ANON] = "Anonymous",
	[THP_RF_ANON_HUGE] = "AnonHugePages",
	[THP_RF_SHMEM_PMD] = "ShmemPmdMapped",
	[THP_RF_FILE_PMD] = "FilePmdMapped",
	[THP_RF_PRIVATE_HUGETLB] = "Private_Hugetlb",
	[THP_RF_SHARED_HUGETLB] = "Shared_Hugetlb",
	[THP_RF_PRIVATE_DIRTY] = "Private_Dirty",
	[THP_RF_SHARED_DIRTY] = "Shared_Dirty",
};

const char *thp_rollup_name(enum thp_rollup_field f)
{
	return f < THP_RF_N ? rollup_names[f] : NULL;
}

unsigned thp_rollup_source(enum thp_rollup_field f)
{
	switch (f) {
	case THP_RF_RSS:
	case THP_RF_ANON: return THP_RS_WALK | THP_RS_STATUS; /* the process's: VmRSS, RssAnon */
	case THP_RF_ANON_HUGE:
	case THP_RF_SHMEM_PMD:
	case THP_RF_FILE_PMD: return THP_RS_WALK;
	/* status has their sum, HugetlbPages: see thp_rollup_hugetlb() */
	case THP_RF_PRIVATE_HUGETLB:
	case THP_RF_SHARED_HUGETLB:
	case THP_RF_PRIVATE_DIRTY:
	case THP_RF_SHARED_DIRTY:
	case THP_RF_N: break;
	}
	return 0;
}

uint64_t *thp_rollup_at(struct thp_rollup *r, enum thp_rollup_field f)
{
	return &((uint64_t *)r)[f];
}

struct rollup_ctx {
	struct thp_rollup *r;
	int seen;
};

static int rollup_field(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct rollup_ctx *c = ctx;

	c->seen++;
	for (int f = 0; f < THP_RF_N; f++)
		if (rollup_names[f][0] == key[0] && strncmp(rollup_names[f], key, klen) == 0 && !rollup_names[f][klen]) {
			*thp_rollup_at(c->r, f) = val;
			break;
		}
	return 0;
}

int thp_rollup_parse(const char *buf, struct thp_rollup *r)
{
	struct rollup_ctx c = { r, 0 };

	memset(r, 0, sizeof(*r));
	thp_parse_meminfo(buf, rollup_field, &c);
	return c.seen ? 0 : -ENODATA;
}

int thp_rollup_read(const struct thp_root *root, pid_t pid, struct thp_rollup *r)
{
	char path[64], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "proc/%d/smaps_rollup", (int)pid);
	n = thp_read_one(root, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return thp_rollup_parse(buf, r);
}

void thp_rollup_add(struct thp_rollup *a, const struct thp_rollup *b)
{
	for (int f = 0; f < THP_RF_N; f++)
		*thp_rollup_at(a, f) += *thp_rollup_at((struct thp_rollup *)b, f);
	a->unknown |= b->unknown;
}

int thp_proc_each(const struct thp_root *root, int (*fn)(pid_t pid, void *ctx), void *ctx)
{
	struct dirent *de;
	DIR *d = thp_opendir(root, "proc");
	int err = 0;

	if (!d)
		return -errno;
	for (;;) {
		char *end;
		long pid;

		errno = 0; /* readdir's end and its error differ by errno alone */
		de = readdir(d);
		if (!de) {
			err = -errno;
			break;
		}
		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (fn((pid_t)pid, ctx))
			break;
	}
	closedir(d);
	return err;
}

bool thp_proc_gone(int err)
{
	return err == -ENOENT || err == -ESRCH;
}

bool thp_proc_denied(int err)
{
	return err == -EACCES || err == -EPERM;
}

bool thp_denied_add(struct thp_denied *d, pid_t pid, int err)
{
	if (!thp_proc_denied(err))
		return false;
	if (d->n < THP_DENIED_NAMED) {
		d->pid[d->n] = pid;
		d->err[d->n] = err;
	}
	d->n++;
	return true;
}

static int status_int(const char *v, long *out)
{
	char *end;
	long x;

	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v)
		return -EINVAL;
	*out = x;
	return 0;
}

/* A "NUMBER kB" value V in bytes into *OUT (left alone on failure).
 * Returns 0 or -EINVAL. */
static int status_kb(const char *v, uint64_t *out)
{
	char num[24];
	size_t n = strspn(v, "0123456789");
	uint64_t kb;

	if (n == 0 || n >= sizeof(num) || strcmp(v + n, " kB") != 0)
		return -EINVAL;
	memcpy(num, v, n);
	num[n] = '\0';
	if (thp_parse_u64(num, &kb) || kb > UINT64_MAX / 1024)
		return -EINVAL;
	*out = kb * 1024;
	return 0;
}

/* The keys of /proc/PID/status that thp reads, in the order of
 * status_field()'s cases. */
static const struct {
	const char *key;
	size_t len;
} status_keys[] = {
#define K(s) { s, sizeof(s) - 1 }
	K("Name"),  K("Pid"),      K("PPid"),     K("Tgid"),    K("Uid"),     K("THP_enabled"),
	K("State"), K("Kthread"),  K("VmPTE"),    K("RssShmem"), K("VmRSS"),  K("RssAnon"),
	K("HugetlbPages"), K("Cpus_allowed_list"), K("Mems_allowed_list"),
#undef K
};

/* Stores value V of the key status_keys[K] in S; *PID_SEEN: a Pid was read. */
/* Copies string V into DST (CAP bytes), cut to fit. */
static void copy_cut(char *dst, size_t cap, const char *v)
{
	size_t n = strnlen(v, cap - 1);

	memcpy(dst, v, n);
	dst[n] = '\0';
}

static void status_field(struct thp_pstatus *s, size_t k, const char *v, bool *pid_seen)
{
	long x = 0;
	bool num = status_int(v, &x) == 0;

	switch (k) {
	case 0: copy_cut(s->name, sizeof(s->name), v); break;
	case 1:
		if (num) {
			s->pid = (pid_t)x;
			*pid_seen = true;
		}
		break;
	case 2: s->ppid = num ? (pid_t)x : s->ppid; break;
	case 3: s->tgid = num ? (pid_t)x : s->tgid; break;
	case 4: s->uid = num ? (uid_t)x : s->uid; break;
	case 5: s->thp_enabled = num ? x != 0 : s->thp_enabled; break;
	case 6: s->state = *v; break;
	case 7: s->kthread = num ? x != 0 : s->kthread; break;
	case 8: s->has_pte = status_kb(v, &s->pte) == 0; break;
	case 9: status_kb(v, &s->rss_shmem); break;
	case 10: status_kb(v, &s->rss); break;
	case 11: status_kb(v, &s->rss_anon); break;
	case 12: status_kb(v, &s->hugetlb); break;
	case 13: copy_cut(s->cpus_allowed, sizeof(s->cpus_allowed), v); break;
	default: copy_cut(s->mems_allowed, sizeof(s->mems_allowed), v); break;
	}
}

int thp_pstatus_parse(const char *buf, struct thp_pstatus *s)
{
	bool pid_seen = false;

	memset(s, 0, sizeof(*s));
	s->uid = (uid_t)-1;
	s->thp_enabled = s->kthread = -1;
	for (const char *p = buf; *p;) {
		const char *nl = strchrnul(p, '\n'), *colon = memchr(p, ':', (size_t)(nl - p));
		size_t klen = colon ? (size_t)(colon - p) : 0;

		for (size_t k = 0; colon && k < sizeof(status_keys) / sizeof(status_keys[0]); k++) {
			const char *v = colon + 1;
			char val[256];
			size_t off, n;
			if (status_keys[k].len != klen || status_keys[k].key[0] != *p ||
			    memcmp(p, status_keys[k].key, klen) != 0)
				continue;
			while (v < nl && (*v == ' ' || *v == '\t'))
				v++;
			/* a line is read up to 255 bytes */
			off = (size_t)(v - p);
			n = off < sizeof(val) - 1 ? sizeof(val) - 1 - off : 0;
			n = (size_t)(nl - v) < n ? (size_t)(nl - v) : n;
			memcpy(val, v, n);
			val[n] = '\0';
			status_field(s, k, val, &pid_seen);
			break;
		}
		p = *nl ? nl + 1 : nl;
	}
	return pid_seen ? 0 : -ENODATA;
}

int thp_pstatus_read(const struct thp_root *root, pid_t pid, struct thp_pstatus *s)
{
	char path[64], buf[8192];
	ssize_t n;

	snprintf(path, sizeof(path), "proc/%d/status", (int)pid);
	n = thp_read_one(root, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ESRCH; /* the process exited between open and read */
	n = thp_pstatus_parse(buf, s);
	/* rare on a kernel with THP; asked for each process on one without */
	if (n == 0 && s->thp_enabled == 0 && !thp_policy_dir(root, NULL))
		s->thp_enabled = THP_ENABLED_NO_KERNEL;
	return (int)n;
}

bool thp_pstatus_kthread(const struct thp_pstatus *s)
{
	if (s->kthread >= 0)
		return s->kthread;
	return s->pid == 2 || s->ppid == 2;
}

void thp_origin_walk(const struct thp_root *root, const struct thp_pstatus *s, thp_origin_fn same,
		     void *ctx, struct thp_pstatus *origin)
{
	*origin = *s;
	/* the depth bound guards against a parent cycle in a recorded tree */
	for (int depth = 0; depth < 4096 && origin->ppid > 0 && origin->ppid != origin->pid; depth++) {
		struct thp_pstatus p;
		if (thp_pstatus_read(root, origin->ppid, &p) || !same(root, &p, ctx))
			break;
		*origin = p;
	}
}

static bool thp_off(const struct thp_root *root, const struct thp_pstatus *p, void *ctx)
{
	(void)root;
	(void)ctx;
	return p->thp_enabled == 0;
}

int thp_thp_origin(const struct thp_root *root, const struct thp_pstatus *s,
		   struct thp_pstatus *origin)
{
	if (s->thp_enabled != 0)
		return -EINVAL;
	thp_origin_walk(root, s, thp_off, NULL, origin);
	return 0;
}

/* Reads /proc/PID/NAME into BUF; returns its length or -errno. */
static ssize_t read_pid_file(const struct thp_root *root, pid_t pid, const char *name, char *buf,
			     size_t cap)
{
	char path[64];

	snprintf(path, sizeof(path), "proc/%d/%s", (int)pid, name);
	return thp_read_buf(root, path, buf, cap);
}

int thp_comm_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap)
{
	ssize_t n = read_pid_file(root, pid, "comm", buf, cap);

	if (n < 0)
		return (int)n;
	/* the kernel's newline ends the file; a name may hold one of its own */
	if (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return 0;
}

void thp_cmdline_text(const char *argv, size_t len, char *buf, size_t cap)
{
	size_t n = len < cap - 1 ? len : cap - 1;

	memmove(buf, argv, n);
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
}

int thp_cmdline_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap)
{
	ssize_t n = read_pid_file(root, pid, "cmdline", buf, cap);

	if (n < 0)
		return (int)n;
	thp_cmdline_text(buf, (size_t)n, buf, cap);
	return 0;
}

bool thp_sh_quote_append(char *buf, size_t cap, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-";
	size_t at = strlen(buf), need = at > 0;
	bool plain = *s && strspn(s, safe) == strlen(s);

	for (const char *p = s; *p; p++)
		need += *p == '\'' && !plain ? 4 : 1;
	need += plain ? 0 : 2;
	if (at + need >= cap)
		return false;
	if (at)
		buf[at++] = ' ';
	if (!plain)
		buf[at++] = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'' && !plain) {
			memcpy(buf + at, "'\\''", 4); /* close, an escaped quote, reopen */
			at += 4;
		} else {
			buf[at++] = *p;
		}
	}
	if (!plain)
		buf[at++] = '\'';
	buf[at] = '\0';
	return true;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

enum thp_relaunch thp_relaunch_build(const char *argv, size_t len, const char *exe, const char *comm,
				     char *buf, size_t cap)
{
	const char *arg0 = argv, *end = argv + len;
	char first[4096];
	size_t prog;
	int nargs = 0;

	while (len && argv[len - 1] == '\0')
		end = argv + --len;
	for (const char *p = argv; p < end; p += strlen(p) + 1)
		nargs++;
	buf[0] = '\0';
	if (!nargs) {
		thp_sh_quote_append(buf, cap, exe ? exe : comm);
		return THP_RELAUNCH_UNKNOWN;
	}
	if (nargs == 1 && strchr(arg0, ' ') && !(exe && !strcmp(arg0, exe))) {
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(arg0, " "), arg0);
		thp_sh_quote_append(buf, cap, exe ? exe : first);
		return THP_RELAUNCH_TITLE;
	}
	if (!thp_sh_quote_append(buf, cap, exe && !strcmp(base_name(exe), base_name(arg0)) ? exe : arg0))
		return THP_RELAUNCH_LONG;
	prog = strlen(buf);
	for (const char *p = arg0 + strlen(arg0) + 1; p < end; p += strlen(p) + 1) {
		if (!thp_sh_quote_append(buf, cap, p)) {
			buf[prog] = '\0'; /* the program alone */
			return THP_RELAUNCH_LONG;
		}
	}
	return exe ? THP_RELAUNCH_ARGV : THP_RELAUNCH_RECORDED;
}

enum thp_relaunch thp_relaunch_read(const struct thp_root *root, pid_t pid, const char *argv, size_t len,
				    const char *comm, char *buf, size_t cap)
{
	char rel[64], exe[4096];
	ssize_t n = -1;

	snprintf(rel, sizeof(rel), "proc/%d/exe", (int)pid);
	if (root->live)
		n = thp_readlink(root, rel, exe, sizeof(exe));
	if (n > 0 && (size_t)n > 10 && !strcmp(exe + n - 10, " (deleted)"))
		n = -1;
	return thp_relaunch_build(argv, len, n > 0 ? exe : NULL, comm, buf, cap);
}

int thp_cgroup_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap)
{
	ssize_t n = read_pid_file(root, pid, "cgroup", buf, cap);
	return n < 0 ? (int)n : 0;
}

/* Splits cgroup line "ID:CONTROLLERS:PATH" (without newline). Returns false
 * when it has not that shape. */
static bool cgroup_line(const char *line, size_t len, const char **ctl, size_t *ctl_len,
			const char **path, size_t *path_len)
{
	const char *end = line + len, *c1 = memchr(line, ':', len), *c2;

	if (!c1)
		return false;
	c2 = memchr(c1 + 1, ':', (size_t)(end - c1 - 1));
	if (!c2)
		return false;
	*ctl = c1 + 1;
	*ctl_len = (size_t)(c2 - c1 - 1);
	*path = c2 + 1;
	*path_len = (size_t)(end - c2 - 1);
	return true;
}

/* True when comma-separated list L (length N) holds WORD. */
static bool list_has(const char *l, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (const char *p = l, *e = l + n; p < e;) {
		const char *comma = memchr(p, ',', (size_t)(e - p));
		size_t len = comma ? (size_t)(comma - p) : (size_t)(e - p);
		if (len == w && strncmp(p, word, w) == 0)
			return true;
		p += len + 1;
	}
	return false;
}

void thp_cgroup_path(const char *buf, char *path, size_t cap)
{
	char v2[4096] = "", mem[4096] = "";

	for (const char *p = buf; *p;) {
		const char *nl = strchr(p, '\n'), *ctl, *cp;
		size_t len = nl ? (size_t)(nl - p) : strlen(p), cl, pl;

		if (cgroup_line(p, len, &ctl, &cl, &cp, &pl)) {
			if (cl == 0 && strncmp(p, "0:", 2) == 0)
				snprintf(v2, sizeof(v2), "%.*s", (int)pl, cp);
			else if (list_has(ctl, cl, "memory"))
				snprintf(mem, sizeof(mem), "%.*s", (int)pl, cp);
		}
		p += len + (nl ? 1 : 0);
	}
	snprintf(path, cap, "%s", (v2[0] && strcmp(v2, "/") != 0) || !mem[0] ? v2 : mem);
}

bool thp_cgroup_in(const char *buf, const char *path)
{
	size_t want = strlen(path);

	while (want > 1 && path[want - 1] == '/')
		want--;
	for (const char *p = buf; *p;) {
		const char *nl = strchr(p, '\n'), *ctl, *cp;
		size_t len = nl ? (size_t)(nl - p) : strlen(p), cl, pl;

		if (cgroup_line(p, len, &ctl, &cl, &cp, &pl) && pl >= want &&
		    strncmp(cp, path, want) == 0 &&
		    (pl == want || cp[want] == '/' || (want == 1 && path[0] == '/')))
			return true;
		p += len + (nl ? 1 : 0);
	}
	return false;
}

bool thp_vma_flag(const struct thp_vma *v, const char *flag)
{
	for (const char *p = v->vmflags; *p;) {
		while (*p == ' ')
			p++;
		size_t n = strcspn(p, " ");
		if (n == strlen(flag) && strncmp(p, flag, n) == 0)
			return true;
		p += n;
	}
	return false;
}

struct smaps_state {
	struct thp_vma v;
	bool open;
	thp_vma_fn fn;
	void *ctx;
};

static int vma_field(const char *key, size_t klen, uint64_t val, void *ctx)
{
	struct thp_vma *v = ctx;
	struct rollup_ctx c = { &v->m, 0 };

	if (klen == 11 && strncmp(key, "THPeligible", 11) == 0)
		v->eligible = val != 0;
	else if (klen == 14 && strncmp(key, "KernelPageSize", 14) == 0)
		v->page_size = val;
	else
		rollup_field(key, klen, val, &c);
	return 0;
}

/* Parses a VMA header "START-END PERMS OFFSET DEV INODE [NAME]" into V.
 * Returns false when LINE is not a header. */
static bool vma_header(const char *line, struct thp_vma *v)
{
	unsigned long long start, end, off, inode;
	unsigned major, minor;
	char perms[8];
	int n = 0;

	if (!isxdigit((unsigned char)line[0]) ||
	    sscanf(line, "%llx-%llx %7s %llx %x:%x %llu%n", &start, &end, perms, &off, &major, &minor,
		   &inode, &n) != 7)
		return false;
	memset(v, 0, sizeof(*v));
	v->start = start;
	v->end = end;
	v->offset = off;
	v->inode = inode;
	v->dev_major = major;
	v->dev_minor = minor;
	v->eligible = -1;
	snprintf(v->perms, sizeof(v->perms), "%s", perms);
	line += n;
	while (*line == ' ' || *line == '\t')
		line++;
	snprintf(v->name, sizeof(v->name), "%s", line);
	return true;
}

/* Feeds one NUL-terminated line (without newline) to the smaps parser. */
static int smaps_line(struct smaps_state *s, const char *line)
{
	struct thp_vma next;
	int rc = 0;

	if (vma_header(line, &next)) {
		if (s->open)
			rc = s->fn(&s->v, s->ctx);
		s->v = next;
		s->open = true;
		return rc;
	}
	if (!s->open)
		return 0;
	if (strncmp(line, "VmFlags:", 8) == 0) {
		line += 8;
		while (*line == ' ' || *line == '\t')
			line++;
		snprintf(s->v.vmflags, sizeof(s->v.vmflags), "%s", line);
		size_t n = strlen(s->v.vmflags);
		while (n && s->v.vmflags[n - 1] == ' ')
			s->v.vmflags[--n] = '\0';
		return 0;
	}
	return thp_parse_meminfo(line, vma_field, &s->v);
}

static int smaps_finish(struct smaps_state *s, int rc)
{
	if (!rc && s->open)
		rc = s->fn(&s->v, s->ctx);
	return rc;
}

/* Splits BUF[0..LEN) into lines, feeds the complete ones and returns the number
 * of bytes consumed; with FINAL the last partial line is fed too. */
static size_t smaps_feed(struct smaps_state *s, char *buf, size_t len, bool final, int *rc)
{
	size_t used = 0;

	while (!*rc && used < len) {
		char *nl = memchr(buf + used, '\n', len - used);
		if (!nl && !final)
			break;
		size_t n = nl ? (size_t)(nl - (buf + used)) : len - used;
		buf[used + n] = '\0';
		*rc = smaps_line(s, buf + used);
		used += n + (nl ? 1 : 0);
	}
	return used;
}

int thp_smaps_parse(const char *buf, thp_vma_fn fn, void *ctx)
{
	struct smaps_state s = { .fn = fn, .ctx = ctx };
	size_t len = strlen(buf);
	char *copy = malloc(len + 1);
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len + 1);
	smaps_feed(&s, copy, len, true, &rc);
	free(copy);
	return smaps_finish(&s, rc);
}

#define SMAPS_CHUNK (64u << 10)

int thp_smaps_read(const struct thp_root *root, pid_t pid, thp_vma_fn fn, void *ctx)
{
	struct smaps_state s = { .fn = fn, .ctx = ctx };
	char path[64], *buf;
	size_t len = 0;
	int fd, rc = 0;

	snprintf(path, sizeof(path), "proc/%d/smaps", (int)pid);
	fd = thp_open(root, path);
	if (fd < 0)
		return fd;
	buf = malloc(SMAPS_CHUNK + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (!rc) {
		ssize_t n = read(fd, buf + len, SMAPS_CHUNK - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = -errno;
			break;
		}
		len += (size_t)n;
		size_t used = smaps_feed(&s, buf, len, n == 0, &rc);
		if (!used && len == SMAPS_CHUNK) /* a line longer than the buffer is fed cut */
			used = smaps_feed(&s, buf, len, true, &rc);
		memmove(buf, buf + used, len - used);
		len -= used;
		if (n == 0)
			break;
	}
	free(buf);
	close(fd);
	return smaps_finish(&s, rc);
}

/* PROCMAP_QUERY (Linux 6.11) as the kernel's uapi defines it, for systems
 * whose headers predate it. */
struct thp_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define THP_PROCMAP_QUERY _IOWR('f', 17, struct thp_procmap_query)
enum {
	PMQ_READ = 0x01, PMQ_WRITE = 0x02, PMQ_EXEC = 0x04, PMQ_SHARED = 0x08,
	PMQ_COVERING_OR_NEXT = 0x10,
};

/* Fills V from the answer Q of PROCMAP_QUERY, whose name is NAME. */
static void query_vma(const struct thp_procmap_query *q, const char *name, uint64_t page_size,
		      struct thp_vma *v)
{
	memset(v, 0, sizeof(*v));
	v->start = q->vma_start;
	v->end = q->vma_end;
	v->offset = q->vma_offset;
	v->inode = q->inode;
	v->dev_major = q->dev_major;
	v->dev_minor = q->dev_minor;
	v->page_size = q->vma_page_size;
	v->eligible = -1;
	snprintf(v->perms, sizeof(v->perms), "%c%c%c%c", q->vma_flags & PMQ_READ ? 'r' : '-',
		 q->vma_flags & PMQ_WRITE ? 'w' : '-', q->vma_flags & PMQ_EXEC ? 'x' : '-',
		 q->vma_flags & PMQ_SHARED ? 's' : 'p');
	snprintf(v->name, sizeof(v->name), "%s", q->vma_name_size ? name : "");
	if (q->vma_page_size && q->vma_page_size != page_size)
		snprintf(v->vmflags, sizeof(v->vmflags), "ht");
}

int thp_maps_query(const struct thp_root *root, pid_t pid, uint64_t page_size, thp_vma_fn fn, void *ctx)
{
	char path[64], name[4096];
	struct thp_vma v;
	uint64_t addr = 0;
	int fd, rc = 0, n = 0;

	snprintf(path, sizeof(path), "proc/%d/maps", (int)pid);
	fd = thp_open(root, path);
	if (fd < 0)
		return fd;
	while (!rc) {
		struct thp_procmap_query q = {
			.size = sizeof(q), .query_flags = PMQ_COVERING_OR_NEXT, .query_addr = addr,
			.vma_name_size = sizeof(name), .vma_name_addr = (uintptr_t)name,
		};
		if (ioctl(fd, THP_PROCMAP_QUERY, &q) < 0) {
			if (errno == EINTR)
				continue;
			rc = errno == ENOENT ? 0 : -errno; /* ENOENT: no VMA at or after ADDR */
			break;
		}
		query_vma(&q, name, page_size, &v);
		addr = q.vma_end;
		n++;
		rc = fn(&v, ctx);
	}
	close(fd);
	return !rc && !n ? -ESRCH : rc;
}

int thp_environ_find(const char *buf, size_t len, const char *name, char *out, size_t cap)
{
	size_t nl = strlen(name);

	for (size_t i = 0; i < len;) {
		const char *s = buf + i;
		size_t n = strnlen(s, len - i);
		if (n > nl && s[nl] == '=' && strncmp(s, name, nl) == 0) {
			snprintf(out, cap, "%.*s", (int)(n - nl - 1), s + nl + 1);
			return 0;
		}
		i += n + 1;
	}
	return -ENOENT;
}

const char *const thp_environ_names[] = { "MALLOC_CONF", "_RJEM_MALLOC_CONF", NULL };

static bool environ_wanted(const char *name, size_t n)
{
	for (int i = 0; thp_environ_names[i]; i++)
		if (strlen(thp_environ_names[i]) == n && strncmp(name, thp_environ_names[i], n) == 0)
			return true;
	return false;
}

/* Keeps the "NAME=value" strings of BUF (LEN bytes) whose NAME is wanted,
 * moving them to its front. Returns the new length. */
static size_t environ_filter(char *buf, size_t len)
{
	size_t out = 0;

	for (size_t i = 0; i < len;) {
		char *s = buf + i;
		size_t n = strnlen(s, len - i);
		const char *eq = memchr(s, '=', n);
		if (eq && environ_wanted(s, (size_t)(eq - s))) {
			memmove(buf + out, s, n);
			out += n;
			buf[out++] = '\0';
		}
		i += n + 1;
	}
	return out;
}

int thp_environ_load(const struct thp_root *root, pid_t pid, char **buf, size_t *len)
{
	char path[64];
	int err;

	snprintf(path, sizeof(path), "proc/%d/%s", (int)pid, root->live ? "environ" : THP_ENVIRON_FILE);
	err = thp_read(root, path, buf, len);
	if (!err) {
		*len = environ_filter(*buf, *len);
		(*buf)[*len] = '\0';
	}
	return err;
}

int thp_environ_read(const struct thp_root *root, pid_t pid, const char *name, char *out,
		     size_t cap)
{
	char *buf;
	size_t len;
	int err;

	if (!environ_wanted(name, strlen(name)))
		return -EINVAL;
	err = thp_environ_load(root, pid, &buf, &len);
	if (err)
		return err;
	err = thp_environ_find(buf, len, name, out, cap);
	free(buf);
	return err;
}
