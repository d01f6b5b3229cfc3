/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tlbcount.c - dTLB misses of a process's threads with perf_event_open */
#include "tlbcount.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

#define PMU_DIR "sys/bus/event_source/devices/cpu"

/* Parses an unsigned number (decimal, or hexadecimal after 0x) of [S, S+LEN). */
static int term_value(const char *s, size_t len, uint64_t *v)
{
	char buf[24];
	char *end;

	if (len == 0 || len >= sizeof(buf) || strspn(s, "0123456789abcdefxABCDEFX") < len)
		return -EINVAL;
	memcpy(buf, s, len);
	buf[len] = '\0';
	if (len > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
		errno = 0;
		*v = strtoull(buf + 2, &end, 16);
		return errno || *end || !buf[2] || strchr(buf + 2, 'x') || strchr(buf + 2, 'X') ? -EINVAL : 0;
	}
	return thp_parse_u64(buf, v) ? -EINVAL : 0;
}

int thp_pmu_format_apply(const char *fmt, uint64_t value, uint64_t *config)
{
	const char *p;
	uint64_t bits = 0;
	int used = 0;

	if (strncmp(fmt, "config:", 7) != 0)
		return -EINVAL;
	p = fmt + 7;
	for (;;) {
		char *end;
		unsigned long lo, hi;

		if (*p < '0' || *p > '9')
			return -EINVAL;
		lo = hi = strtoul(p, &end, 10);
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return -EINVAL;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi > 63)
			return -EINVAL;
		for (unsigned long b = lo; b <= hi; b++, used++)
			if (value >> used & 1)
				bits |= 1ull << b;
		p = end;
		if (*p == ',')
			p++;
		else if (*p == '\0' || *p == '\n')
			break;
		else
			return -EINVAL;
	}
	if (used < 64 && value >> used)
		return -ERANGE;
	*config |= bits;
	return 0;
}

int thp_pmu_event_parse(const char *spec, thp_pmu_format_fn format, void *ctx, uint64_t *config)
{
	size_t n = strcspn(spec, "\n");

	*config = 0;
	if (n == 0 || spec[n + (spec[n] == '\n')] != '\0')
		return -EINVAL;
	for (const char *p = spec; p < spec + n;) {
		size_t len = strcspn(p, ",\n"), klen = strcspn(p, "=,\n");
		char term[32], fmt[64];
		uint64_t v = 1;
		int err;

		if (klen == 0 || klen >= sizeof(term))
			return -EINVAL;
		memcpy(term, p, klen);
		term[klen] = '\0';
		if (klen < len && (err = term_value(p + klen + 1, len - klen - 1, &v)))
			return err;
		if (format(term, fmt, sizeof(fmt), ctx))
			return -EINVAL;
		if ((err = thp_pmu_format_apply(fmt, v, config)))
			return err;
		p += len + (p[len] == ',');
		if (p[-1] == ',' && p >= spec + n)
			return -EINVAL; /* a trailing comma */
	}
	return 0;
}

/* The format of TERM from the PMU's sysfs directory (CTX: the root). */
static int sysfs_format(const char *term, char *buf, size_t cap, void *ctx)
{
	char rel[128];
	ssize_t n;

	if (strchr(term, '/') || term[0] == '.')
		return -EINVAL;
	snprintf(rel, sizeof(rel), PMU_DIR "/format/%s", term);
	n = thp_read_buf(ctx, rel, buf, cap);
	return n < 0 ? (int)n : 0;
}

int thp_pmu_walk_event(const struct thp_root *root, char *name, size_t cap, uint64_t *config)
{
	DIR *d = thp_opendir(root, PMU_DIR "/events");
	struct dirent *de;
	int err = -ENOENT;

	if (!d)
		return -ENOENT;
	while (err && (de = readdir(d))) {
		char rel[512], spec[256];
		if (!strstr(de->d_name, "walk_active") && !strstr(de->d_name, "walk_duration"))
			continue;
		snprintf(rel, sizeof(rel), PMU_DIR "/events/%s", de->d_name);
		if (thp_read_buf(root, rel, spec, sizeof(spec)) <= 0 ||
		    thp_pmu_event_parse(spec, sysfs_format, (void *)root, config))
			continue;
		snprintf(name, cap, "%s", de->d_name);
		err = 0;
	}
	closedir(d);
	return err;
}

bool thp_tlb_scale(uint64_t raw, uint64_t enabled, uint64_t running, uint64_t *out)
{
	if (running == 0)
		return false;
	if (running >= enabled) {
		*out = raw;
		return true;
	}
	*out = (uint64_t)((long double)raw * (long double)enabled / (long double)running);
	return true;
}

bool thp_tlb_misses_per(const struct thp_tlb_counts *c, uint64_t units, double *per)
{
	uint64_t misses;

	if (!c->has[THP_TLB_LOAD_MISSES] || !units)
		return false;
	misses = c->v[THP_TLB_LOAD_MISSES] + (c->has[THP_TLB_STORE_MISSES] ? c->v[THP_TLB_STORE_MISSES] : 0);
	*per = (double)misses / (double)units;
	return true;
}

bool thp_tlb_mpki(const struct thp_tlb_counts *c, double *mpki)
{
	if (!c->has[THP_TLB_INSTRUCTIONS] || !thp_tlb_misses_per(c, c->v[THP_TLB_INSTRUCTIONS], mpki))
		return false;
	*mpki *= 1000.0;
	return true;
}

bool thp_tlb_walk_pct(const struct thp_tlb_counts *c, double *pct)
{
	if (!c->has[THP_TLB_WALK_CYCLES] || !c->has[THP_TLB_CYCLES] || !c->v[THP_TLB_CYCLES])
		return false;
	*pct = 100.0 * (double)c->v[THP_TLB_WALK_CYCLES] / (double)c->v[THP_TLB_CYCLES];
	return true;
}

void thp_tlb_counts_add(struct thp_tlb_counts *a, const struct thp_tlb_counts *b, bool first)
{
	for (int i = 0; i < THP_TLB_NEV; i++) {
		a->has[i] = b->has[i] && (first || a->has[i]);
		a->v[i] = a->has[i] ? (first ? 0 : a->v[i]) + b->v[i] : 0;
	}
}

/* perf_event_attr type and config of each counter but the walk one. */
static const struct {
	uint32_t type;
	uint64_t config;
} events[THP_TLB_NEV] = {
	[THP_TLB_INSTRUCTIONS] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	[THP_TLB_CYCLES] = { PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	[THP_TLB_LOAD_MISSES] = { PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB |
			(PERF_COUNT_HW_CACHE_OP_READ << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	[THP_TLB_STORE_MISSES] = { PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_DTLB |
			(PERF_COUNT_HW_CACHE_OP_WRITE << 8) | (PERF_COUNT_HW_CACHE_RESULT_MISS << 16) },
	[THP_TLB_WALK_CYCLES] = { PERF_TYPE_RAW, 0 },
};

/* Opens one user-space counter on thread TID, disabled (with INHERIT: of TID's
 * children too, enabled at its execve). Returns the fd or -errno. */
static int open_counter(pid_t tid, uint32_t type, uint64_t config, bool inherit)
{
	struct perf_event_attr pe;
	long fd;

	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = type;
	pe.config = config;
	pe.disabled = 1;
	pe.exclude_kernel = 1;
	pe.exclude_hv = 1;
	pe.inherit = inherit;
	pe.enable_on_exec = inherit;
	pe.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = syscall(SYS_perf_event_open, &pe, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

void thp_tlb_walk_find(const struct thp_root *root, struct thp_tlb_walk *w)
{
	memset(w, 0, sizeof(*w));
	w->has = thp_pmu_walk_event(root, w->name, sizeof(w->name), &w->config) == 0;
	if (!w->has)
		w->name[0] = '\0';
}

const char *thp_tlb_unavailable(int err)
{
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV)
		return "this machine exposes no hardware TLB counters";
	if (err == -EACCES || err == -EPERM)
		return "kernel.perf_event_paranoid forbids counting; run as root or lower it";
	return "the TLB counters could not be opened";
}

int thp_tlb_open(pid_t tid, const struct thp_tlb_walk *w, bool inherit, struct thp_tlb_thread *t)
{
	t->tid = tid;
	for (int i = 0; i < THP_TLB_NEV; i++)
		t->fd[i] = -1;
	for (int i = 0; i < THP_TLB_NEV; i++) {
		if (i == THP_TLB_WALK_CYCLES && !w->has)
			continue;
		t->fd[i] = open_counter(tid, events[i].type,
					i == THP_TLB_WALK_CYCLES ? w->config : events[i].config, inherit);
		if (t->fd[i] < 0 && (i == THP_TLB_INSTRUCTIONS || i == THP_TLB_LOAD_MISSES)) {
			int err = t->fd[i];
			thp_tlb_close(t);
			return err;
		}
	}
	return 0;
}

void thp_tlb_enable(const struct thp_tlb_thread *t)
{
	for (int i = 0; i < THP_TLB_NEV; i++)
		if (t->fd[i] >= 0)
			ioctl(t->fd[i], PERF_EVENT_IOC_ENABLE, 0);
}

int thp_tlb_read(const struct thp_tlb_thread *t, struct thp_tlb_counts *c)
{
	memset(c, 0, sizeof(*c));
	for (int i = 0; i < THP_TLB_NEV; i++) {
		uint64_t v[3]; /* value, time enabled, time running */
		if (t->fd[i] < 0)
			continue;
		if (read(t->fd[i], v, sizeof(v)) != (ssize_t)sizeof(v))
			return -EIO;
		c->has[i] = thp_tlb_scale(v[0], v[1], v[2], &c->v[i]);
	}
	return 0;
}

void thp_tlb_close(struct thp_tlb_thread *t)
{
	for (int i = 0; i < THP_TLB_NEV; i++) {
		if (t->fd[i] >= 0)
			close(t->fd[i]);
		t->fd[i] = -1;
	}
}

/* Opens counters on every thread of PID into S (*N of them). Returns 0, or
 * the error of the first thread when none could be opened. */
static int open_threads(const struct thp_root *root, pid_t pid, const struct thp_tlb_walk *w,
			struct thp_tlb_sample *s, int *n)
{
	char rel[64];
	struct dirent *de;
	DIR *d;
	int first = -ESRCH;

	snprintf(rel, sizeof(rel), "proc/%d/task", (int)pid);
	if (!(d = thp_opendir(root, rel)))
		return -errno;
	*n = 0;
	while ((de = readdir(d)) && *n < THP_TLB_THREADS_MAX) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);
		int err;

		if (*end || tid <= 0)
			continue;
		err = thp_tlb_open((pid_t)tid, w, false, &s[*n].t);
		if (err) {
			if (first == -ESRCH)
				first = err;
			continue; /* a thread that exited, or no counter: see FIRST */
		}
		if (thp_comm_read(root, (pid_t)tid, s[*n].comm, sizeof(s[*n].comm)))
			snprintf(s[*n].comm, sizeof(s[*n].comm), "?");
		(*n)++;
	}
	closedir(d);
	return *n ? 0 : first;
}

/* Counts for SECS seconds and sums the threads into SUM. */
static void count(struct thp_tlb_sample *s, int n, double secs, struct thp_tlb_counts *sum)
{
	struct timespec ts = { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) };
	bool first = true;

	for (int i = 0; i < n; i++)
		thp_tlb_enable(&s[i].t);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	memset(sum, 0, sizeof(*sum));
	for (int i = 0; i < n; i++) {
		s[i].ok = thp_tlb_read(&s[i].t, &s[i].c) == 0;
		if (s[i].ok) {
			thp_tlb_counts_add(sum, &s[i].c, first);
			first = false;
		}
		thp_tlb_close(&s[i].t);
	}
}

int thp_tlb_count_proc(const struct thp_root *root, pid_t pid, double secs, struct thp_tlb_proc *p)
{
	int err;

	memset(p, 0, sizeof(*p));
	if (!(p->s = calloc(THP_TLB_THREADS_MAX, sizeof(*p->s))))
		return -ENOMEM;
	thp_tlb_walk_find(root, &p->walk);
	err = open_threads(root, pid, &p->walk, p->s, &p->n);
	if (err) {
		thp_tlb_proc_free(p);
		return err;
	}
	count(p->s, p->n, secs, &p->sum);
	return 0;
}

void thp_tlb_proc_free(struct thp_tlb_proc *p)
{
	free(p->s);
	p->s = NULL;
}
