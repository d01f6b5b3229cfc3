/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tracefs.c - thp's tracefs instance: private mount, events, per-CPU raw reading, cleanup */
#include "tracefs.h"

#include "../core/arg.h"
#include "../core/tevent.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#define TRACEFS_DIR "/sys/kernel/tracing"
#define INSTANCE_PREFIX "thp-trace-"

struct thp_tracefs {
	char *dir;        /* tracefs mount point */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct thp_tevents *tv;
	char missing[1024];
	int ncpus;
	struct tracefs_cpu **cpus; /* NULL for CPUs whose buffer could not be opened */
	struct pollfd *fds;        /* their trace_pipe_raw, to wait on */
	struct kbuffer *kbuf;
	void *page;
	int page_size;
	size_t buffer_kb;
};

/* The tracefs mount point from /proc/mounts (malloc'd), or NULL. */
static char *find_mount(void)
{
	char dev[256], dir[4096], type[64];
	char *found = NULL;
	FILE *f = fopen("/proc/mounts", "re");

	if (!f)
		return NULL;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (strcmp(type, "tracefs") == 0)
			found = strdup(dir);
	fclose(f);
	return found;
}

/* Mounts tracefs in a mount namespace of thp's own, so the host never sees the
 * mount and it goes away with thp, however thp ends. Call before any thread. */
static int mount_private(void)
{
	if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0)
		return -errno;
	return 0;
}

/* Removes instances of thp processes that no longer exist (killed by SIGKILL).
 * The names are matched here: libtracefs 1.6 leaks the regex it is given. */
static void remove_stale(void)
{
	char **names = tracefs_instances(NULL);

	for (int i = 0; names && names[i]; i++) {
		uint64_t pid;
		struct tracefs_instance *old;

		if (strncmp(names[i], INSTANCE_PREFIX, strlen(INSTANCE_PREFIX)) != 0 ||
		    thp_arg_u64(names[i] + strlen(INSTANCE_PREFIX), 1, INT_MAX, &pid) ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		old = tracefs_instance_alloc(NULL, names[i]);
		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	tracefs_list_free(names);
}

/* Parses the ring buffer page header and the formats of the traced events
 * (only those: parsing every event of a system costs a tenth of a second). */
static int load_formats(struct thp_tracefs *tf)
{
	char path[256], *buf;
	int size;

	tf->tep = tep_alloc();
	if (!tf->tep)
		return -ENOMEM;
	tep_set_long_size(tf->tep, sizeof(long));
	tep_set_page_size(tf->tep, getpagesize());
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf)
		return errno ? -errno : -ENOENT;
	size = tep_parse_header_page(tf->tep, buf, (unsigned long)size, sizeof(long));
	free(buf);
	if (size)
		return -EINVAL;
	for (int i = 0; i < THP_EV_NTYPES; i++) {
		const struct thp_tevent_spec *sp = &thp_tevent_specs[i];

		snprintf(path, sizeof(path), "events/%s/%s/format", sp->sys, sp->name);
		buf = tracefs_instance_file_read(NULL, path, &size);
		if (!buf)
			continue; /* the kernel lacks the event */
		tep_parse_event(tf->tep, buf, (size_t)size, sp->sys);
		free(buf);
	}
	tf->tv = thp_tevents_new(tf->tep);
	return tf->tv ? 0 : -ENOMEM;
}

/* Enables the traced events the kernel has, and lists those it lacks; the
 * TLB flush event only with TLB (it fires at every context switch). */
static int enable_events(struct thp_tracefs *tf, bool tlb)
{
	size_t len = 0;

	for (int i = 0; i < THP_EV_NTYPES; i++) {
		const struct thp_tevent_spec *sp = &thp_tevent_specs[i];
		int n;

		if (i == THP_EV_TLB_FLUSH && !tlb)
			continue;
		if (!thp_tevents_has(tf->tv, i))
			n = snprintf(tf->missing + len, sizeof(tf->missing) - len, "%s%s:%s",
				     len ? " " : "", sp->sys, sp->name);
		else if (tracefs_event_enable(tf->inst, sp->sys, sp->name) < 0)
			return errno ? -errno : -EIO;
		else
			continue;
		len += n > 0 && (size_t)n < sizeof(tf->missing) - len ? (size_t)n : 0;
	}
	return 0;
}

static int open_cpus(struct thp_tracefs *tf)
{
	int opened = 0;

	tf->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (tf->ncpus < 1)
		tf->ncpus = 1;
	tf->cpus = calloc((size_t)tf->ncpus, sizeof(struct tracefs_cpu *));
	tf->fds = calloc((size_t)tf->ncpus, sizeof(struct pollfd));
	if (!tf->cpus || !tf->fds)
		return -ENOMEM;
	tf->page_size = getpagesize();
	for (int c = 0; c < tf->ncpus; c++) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/trace_pipe_raw", c);
		fd = tracefs_instance_file_open(tf->inst, path, O_RDONLY | O_NONBLOCK);
		tf->fds[c] = (struct pollfd){ .fd = -1 };
		if (fd < 0)
			continue;
		tf->cpus[c] = tracefs_cpu_alloc_fd(fd, tf->page_size, true);
		if (!tf->cpus[c]) {
			close(fd);
			continue;
		}
		tf->fds[c] = (struct pollfd){ .fd = fd, .events = POLLIN };
		opened++;
	}
	if (!opened)
		return errno ? -errno : -ENOENT;
	tf->page = malloc((size_t)tf->page_size);
	tf->kbuf = kbuffer_alloc(tep_get_header_page_size(tf->tep) == 4 ? KBUFFER_LSIZE_4
									  : KBUFFER_LSIZE_8,
				 tep_is_bigendian() ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	return tf->page && tf->kbuf ? 0 : -ENOMEM;
}

int thp_tracefs_open(struct thp_tracefs **out, size_t buffer_kb, bool tlb, const char **what)
{
	struct thp_tracefs *tf = calloc(1, sizeof(*tf));
	char name[64], kb[32];
	int rc;

	*out = NULL;
	if (!tf)
		return -ENOMEM;
	*what = "mount tracefs on '" TRACEFS_DIR "'";
	tf->dir = find_mount();
	if (!tf->dir) {
		if ((rc = mount_private()))
			goto fail;
		tf->dir = strdup(TRACEFS_DIR);
	}
	if (!tf->dir || tracefs_set_tracing_dir(tf->dir) < 0) {
		rc = -ENOMEM;
		goto fail;
	}
	remove_stale();
	*what = "read the formats of the trace events";
	if ((rc = load_formats(tf)))
		goto fail;
	*what = "create a tracefs instance";
	snprintf(name, sizeof(name), INSTANCE_PREFIX "%d", (int)getpid());
	tf->inst = tracefs_instance_create(name);
	if (!tf->inst) {
		rc = errno ? -errno : -EIO;
		goto fail;
	}
	*what = "set the trace clock to 'mono' (Linux 4.1+)";
	if (tracefs_instance_file_write(tf->inst, "trace_clock", "mono") < 0) {
		rc = errno ? -errno : -EINVAL;
		goto fail;
	}
	*what = "set the trace buffer size";
	tf->buffer_kb = buffer_kb;
	snprintf(kb, sizeof(kb), "%zu", buffer_kb);
	if (tracefs_instance_file_write(tf->inst, "buffer_size_kb", kb) < 0 ||
	    tracefs_instance_file_write(tf->inst, "tracing_on", "0") < 0) {
		rc = errno ? -errno : -EIO;
		goto fail;
	}
	/* readers waiting in thp_tracefs_wait() wake when a buffer is this full */
	tracefs_instance_file_write(tf->inst, "buffer_percent", "25");
	*what = "enable trace events";
	if ((rc = enable_events(tf, tlb)))
		goto fail;
	*what = "open the per-CPU trace buffers";
	if ((rc = open_cpus(tf)))
		goto fail;
	*out = tf;
	return 0;
fail:
	thp_tracefs_close(tf);
	return rc;
}

const char *thp_tracefs_missing(const struct thp_tracefs *tf)
{
	return tf->missing;
}

bool thp_tracefs_has(const struct thp_tracefs *tf, enum thp_ev_type type)
{
	return thp_tevents_has(tf->tv, type);
}

bool thp_tracefs_useless(const struct thp_tracefs *tf)
{
	for (int i = 0; i < THP_EV_NTYPES; i++)
		if (thp_tevents_has(tf->tv, i) && i != THP_EV_COLLAPSE && i != THP_EV_SCAN_PMD &&
		    i != THP_EV_TLB_FLUSH)
			return false;
	return true;
}

int thp_tracefs_wait(struct thp_tracefs *tf, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	int n = ppoll(tf->fds, (nfds_t)tf->ncpus, &ts, NULL);

	return n < 0 ? -errno : n;
}

int thp_tracefs_start(struct thp_tracefs *tf)
{
	return tracefs_trace_on(tf->inst) < 0 ? (errno ? -errno : -EIO) : 0;
}

long thp_tracefs_read(struct thp_tracefs *tf, int (*fn)(struct thp_ev *ev, void *arg), void *arg)
{
	long n = 0;

	/* at most one buffer's worth per CPU, so a flood cannot keep this loop going */
	size_t max_pages = tf->buffer_kb * 1024 / (size_t)tf->page_size + 1;

	for (int c = 0; c < tf->ncpus; c++) {
		size_t pages = 0;
		int got = 0;

		if (!tf->cpus[c])
			continue;
		while (pages++ < max_pages && (got = tracefs_cpu_read(tf->cpus[c], tf->page, true)) > 0) {
			unsigned long long ts;
			void *data;

			if (kbuffer_load_subbuffer(tf->kbuf, tf->page) < 0)
				break;
			for (data = kbuffer_read_event(tf->kbuf, &ts); data;
			     data = kbuffer_next_event(tf->kbuf, &ts)) {
				struct thp_ev ev;
				int rc;

				if (!thp_tevents_decode(tf->tv, data, kbuffer_event_size(tf->kbuf), c, ts, &ev))
					continue;
				if ((rc = fn(&ev, arg)))
					return rc;
				n++;
			}
		}
		if (got < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
	}
	return n;
}

int thp_tracefs_comm(int tid, char *comm, size_t cap)
{
	char *buf = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL), *line, *save = NULL;
	int rc = -ENOENT;

	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && rc; line = strtok_r(NULL, "\n", &save)) {
		char *name;

		if (strtol(line, &name, 10) != tid || *name != ' ')
			continue;
		snprintf(comm, cap, "%s", name + 1);
		rc = 0;
	}
	free(buf);
	return rc;
}

uint64_t thp_tracefs_lost(struct thp_tracefs *tf)
{
	uint64_t lost = 0;

	for (int c = 0; c < tf->ncpus; c++) {
		char path[64], *s, *p;

		snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", c);
		s = tracefs_instance_file_read(tf->inst, path, NULL);
		if (!s)
			continue;
		if ((p = strstr(s, "overrun: ")))
			lost += strtoull(p + 9, NULL, 10);
		if ((p = strstr(s, "dropped_events: ")))
			lost += strtoull(p + 16, NULL, 10);
		free(s);
	}
	return lost;
}

void thp_tracefs_close(struct thp_tracefs *tf)
{
	if (!tf)
		return;
	if (tf->inst)
		tracefs_trace_off(tf->inst);
	for (int c = 0; tf->cpus && c < tf->ncpus; c++)
		if (tf->cpus[c]) {
			tracefs_cpu_free_fd(tf->cpus[c]);
			close(tf->fds[c].fd);
		}
	free(tf->cpus);
	free(tf->fds);
	if (tf->inst) {
		tracefs_instance_destroy(tf->inst);
		tracefs_instance_free(tf->inst);
	}
	thp_tevents_free(tf->tv);
	if (tf->tep)
		tep_free(tf->tep);
	if (tf->kbuf)
		kbuffer_free(tf->kbuf);
	free(tf->page);
	free(tf->dir);
	free(tf);
}
