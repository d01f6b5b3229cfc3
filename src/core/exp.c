/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exp.c - mechanics shared by the experiments (see exp.h) */
#include "exp.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "parse.h"
#include "proc.h"

int thp_region_map(struct thp_region *r, size_t len, bool aligned)
{
	size_t extra = aligned ? THP_PMD_BYTES : 0;
	char *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	r->addr = NULL;
	r->len = 0;
	if (p == MAP_FAILED)
		return -errno;
	if (aligned) {
		size_t head = (THP_PMD_BYTES - (uintptr_t)p % THP_PMD_BYTES) % THP_PMD_BYTES;
		if (head)
			munmap(p, head);
		if (extra - head)
			munmap(p + head + len, extra - head);
		p += head;
	}
	r->addr = p;
	r->len = len;
	return 0;
}

void thp_region_unmap(struct thp_region *r)
{
	if (r->addr)
		munmap(r->addr, r->len);
	r->addr = NULL;
	r->len = 0;
}

size_t thp_region_pmd_bytes(const struct thp_region *r)
{
	uintptr_t a = (uintptr_t)r->addr, end = a + r->len;
	uintptr_t first = (a + THP_PMD_BYTES - 1) & ~(uintptr_t)(THP_PMD_BYTES - 1);
	uintptr_t last = end & ~(uintptr_t)(THP_PMD_BYTES - 1);

	return last > first ? last - first : 0;
}

uint64_t thp_minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (uint64_t)ru.ru_minflt;
}

uint64_t thp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t thp_touch(const struct thp_region *r, size_t step, bool write)
{
	volatile char *p = r->addr;
	uint64_t before = thp_minflt();
	char sink = 0;

	for (size_t off = 0; off < r->len; off += step) {
		if (write)
			p[off] = 1;
		else
			sink = (char)(sink ^ p[off]);
	}
	(void)sink;
	return thp_minflt() - before;
}

struct vma_find {
	uint64_t addr;
	struct thp_vma *v;
};

static int vma_match(const struct thp_vma *v, void *ctx)
{
	struct vma_find *f = ctx;

	if (f->addr < v->start || f->addr >= v->end)
		return 0;
	*f->v = *v;
	return 1;
}

int thp_vma_find(const struct thp_root *root, pid_t pid, uint64_t addr, struct thp_vma *v)
{
	struct vma_find f = { addr, v };
	int rc;

	memset(v, 0, sizeof(*v));
	rc = thp_smaps_read(root, pid ? pid : getpid(), vma_match, &f);
	return rc == 1 ? 0 : rc < 0 ? rc : -ENOENT;
}

void thp_vmstat_snap(const struct thp_root *root, struct thp_vmstat *s)
{
	s->err = thp_vmstat_read(root, s->c, &s->n);
}

bool thp_vmstat_has(const struct thp_vmstat *s, const char *name)
{
	return thp_counter_get(s->c, s->n, name, NULL);
}

uint64_t thp_vmstat_delta(const struct thp_vmstat *before, const struct thp_vmstat *after,
			  const char *name)
{
	uint64_t a = 0, b = 0;

	if (!thp_counter_get(before->c, before->n, name, &b) ||
	    !thp_counter_get(after->c, after->n, name, &a) || a < b)
		return 0;
	return a - b;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

struct thp_stats thp_stats_of(const double *v, int n)
{
	struct thp_stats s = { 0, 0, 0 };
	double *c;

	if (n < 1 || !(c = malloc((size_t)n * sizeof(*c))))
		return s;
	memcpy(c, v, (size_t)n * sizeof(*c));
	qsort(c, (size_t)n, sizeof(*c), cmp_double);
	s.min = c[0];
	s.max = c[n - 1];
	s.median = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	free(c);
	return s;
}

bool thp_stats_overlap(const struct thp_stats *a, const struct thp_stats *b)
{
	return a->min <= b->max && b->min <= a->max;
}

int thp_pstat_parse(const char *buf, struct thp_pstat *s)
{
	const char *open = strchr(buf, '('), *close = strrchr(buf, ')');
	unsigned long long ut, st;
	int ppid;
	size_t n;

	if (!open || !close || close < open)
		return -EINVAL;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(s->comm))
		n = sizeof(s->comm) - 1;
	memcpy(s->comm, open + 1, n);
	s->comm[n] = '\0';
	/* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime */
	if (sscanf(close + 1, " %*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ppid,
		   &ut, &st) != 3)
		return -EINVAL;
	s->ppid = ppid;
	s->utime = ut;
	s->stime = st;
	return 0;
}

int thp_pstat_read(const struct thp_root *root, pid_t pid, struct thp_pstat *s)
{
	char path[64], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "proc/%d/stat", (int)pid);
	n = thp_read_buf(root, path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	return thp_pstat_parse(buf, s);
}

#define BUSY_MAX 4096

struct busy_snap {
	int n;
	pid_t pid[BUSY_MAX];
	uint64_t ticks[BUSY_MAX];
};

struct busy_walk {
	const struct thp_root *root;
	struct busy_snap *snap;
	const struct busy_snap *before; /* NULL on the first pass */
	struct thp_busy *b;
	double secs;
};

static int busy_proc(pid_t pid, void *ctx)
{
	struct busy_walk *w = ctx;
	struct thp_pstat ps;
	uint64_t t;

	if (pid == getpid() || w->snap->n >= BUSY_MAX || thp_pstat_read(w->root, pid, &ps))
		return 0;
	t = ps.utime + ps.stime;
	w->snap->pid[w->snap->n] = pid;
	w->snap->ticks[w->snap->n++] = t;
	if (!w->before)
		return 0;
	for (int i = 0; i < w->before->n; i++) {
		if (w->before->pid[i] != pid)
			continue;
		double cpu = (double)(t - w->before->ticks[i]) / (double)sysconf(_SC_CLK_TCK) / w->secs;
		if (cpu > w->b->top_cpu) {
			w->b->top_cpu = cpu;
			w->b->top_pid = pid;
			snprintf(w->b->top_comm, sizeof(w->b->top_comm), "%s", ps.comm);
		}
		break;
	}
	return 0;
}

int thp_busy_sample(const struct thp_root *root, int window_ms, struct thp_busy *b)
{
	struct busy_snap *s = calloc(2, sizeof(*s));
	struct busy_walk w = { root, s, NULL, b, window_ms / 1000.0 };
	struct timespec ts = { window_ms / 1000, (long)(window_ms % 1000) * 1000000L };
	char buf[128];
	int err;

	memset(b, 0, sizeof(*b));
	b->ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (!s)
		return -ENOMEM;
	if (thp_read_buf(root, "proc/loadavg", buf, sizeof(buf)) > 0)
		b->load1 = strtod(buf, NULL);
	err = thp_proc_each(root, busy_proc, &w);
	if (!err) {
		nanosleep(&ts, NULL);
		w.before = &s[0];
		w.snap = &s[1];
		err = thp_proc_each(root, busy_proc, &w);
	}
	free(s);
	return err;
}

bool thp_busy_noisy(const struct thp_busy *b)
{
	return (b->ncpu > 0 && b->load1 > b->ncpu) || b->top_cpu >= 0.5;
}

const char *thp_busy_text(const struct thp_busy *b, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "load %.1f on %d CPUs", b->load1, b->ncpu);

	if (n >= 0 && (size_t)n < cap && b->top_comm[0] && b->top_cpu > 0)
		snprintf(buf + n, cap - (size_t)n, "; '%s' (pid %d) uses %.0f%% of a CPU", b->top_comm,
			 (int)b->top_pid, b->top_cpu * 100);
	else if (n >= 0 && (size_t)n < cap)
		snprintf(buf + n, cap - (size_t)n, "; no single process stood out in the sample");
	return buf;
}

bool thp_in_vm(const struct thp_root *root)
{
	char *buf;
	bool vm = false;

	if (thp_read(root, "proc/cpuinfo", &buf, NULL))
		return false;
	for (char *p = strstr(buf, "flags"); p && !vm; p = strstr(p + 1, "\nflags")) {
		char *nl = strchr(p + 1, '\n');
		char *h = strstr(p, " hypervisor");
		vm = h && (!nl || h < nl);
	}
	free(buf);
	return vm;
}
