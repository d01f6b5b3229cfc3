/* tracefs.c - thp's tracefs instance: mount, events, per-CPU raw reading, cleanup */
#include "tracefs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mount.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#define TRACEFS_DIR "/sys/kernel/tracing"
#define INSTANCE_PREFIX "thp-trace-"

/* The events read, with the fields each may carry (looked up by name). */
static const struct spec {
	enum thp_ev_type type;
	const char *sys, *name;
} specs[] = {
	{ THP_EV_COMPACT_TRY, "compaction", "mm_compaction_try_to_compact_pages" },
	{ THP_EV_COMPACT_BEGIN, "compaction", "mm_compaction_begin" },
	{ THP_EV_COMPACT_END, "compaction", "mm_compaction_end" },
	{ THP_EV_KCOMPACTD_WAKE, "compaction", "mm_compaction_kcompactd_wake" },
	{ THP_EV_KCOMPACTD_SLEEP, "compaction", "mm_compaction_kcompactd_sleep" },
	{ THP_EV_RECLAIM_BEGIN, "vmscan", "mm_vmscan_direct_reclaim_begin" },
	{ THP_EV_RECLAIM_END, "vmscan", "mm_vmscan_direct_reclaim_end" },
	{ THP_EV_COLLAPSE, "huge_memory", "mm_collapse_huge_page" },
	{ THP_EV_SCAN_PMD, "huge_memory", "mm_khugepaged_scan_pmd" },
};
#define NSPECS (sizeof(specs) / sizeof(specs[0]))

/* A value of the event's "status" field and its name from the print format. */
struct sym {
	long long value;
	char *str;
};

struct evinfo {
	struct tep_event *ev; /* NULL when the kernel lacks the event */
	struct tep_format_field *order, *sync, *status, *reclaimed;
	struct sym *syms;
	size_t nsyms;
};

struct thp_tracefs {
	char *dir;        /* tracefs mount point */
	bool mounted;     /* thp mounted it, and unmounts it */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct evinfo ev[NSPECS];
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

/* Removes instances of thp processes that no longer exist (killed by SIGKILL). */
static void remove_stale(void)
{
	char **names = tracefs_instances("^" INSTANCE_PREFIX "[0-9][0-9]*$");

	for (int i = 0; names && names[i]; i++) {
		long pid = strtol(names[i] + strlen(INSTANCE_PREFIX), NULL, 10);
		struct tracefs_instance *old;

		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		old = tracefs_instance_alloc(NULL, names[i]);
		if (old) {
			tracefs_instance_destroy(old);
			tracefs_instance_free(old);
		}
	}
	tracefs_list_free(names);
}

/* Collects the __print_symbolic() table that names FIELD's values. */
static int load_syms(struct evinfo *e, const char *field)
{
	for (struct tep_print_arg *a = e->ev->print_fmt.args; a; a = a->next) {
		struct tep_print_arg *f;

		if (a->type != TEP_PRINT_SYMBOL)
			continue;
		for (f = a->symbol.field; f && f->type == TEP_PRINT_TYPE; f = f->typecast.item)
			;
		if (!f || f->type != TEP_PRINT_FIELD || strcmp(f->field.name, field) != 0)
			continue;
		for (struct tep_print_flag_sym *s = a->symbol.symbols; s; s = s->next) {
			struct sym *n = realloc(e->syms, (e->nsyms + 1) * sizeof(*n));

			if (!n)
				return -ENOMEM;
			e->syms = n;
			n[e->nsyms].value = strtoll(s->value, NULL, 0);
			if (!(n[e->nsyms].str = strdup(s->str)))
				return -ENOMEM;
			e->nsyms++;
		}
	}
	return 0;
}

/* The name of status VALUE; values the format does not name become "status=N". */
static const char *sym_name(struct evinfo *e, long long value)
{
	char buf[32];
	struct sym *n;

	for (size_t i = 0; i < e->nsyms; i++)
		if (e->syms[i].value == value)
			return e->syms[i].str;
	snprintf(buf, sizeof(buf), "status=%lld", value);
	n = realloc(e->syms, (e->nsyms + 1) * sizeof(*n));
	if (!n)
		return NULL;
	e->syms = n;
	n[e->nsyms].value = value;
	n[e->nsyms].str = strdup(buf);
	return n[e->nsyms++].str;
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
	for (size_t i = 0; i < NSPECS; i++) {
		snprintf(path, sizeof(path), "events/%s/%s/format", specs[i].sys, specs[i].name);
		buf = tracefs_instance_file_read(NULL, path, &size);
		if (!buf)
			continue; /* the kernel lacks the event */
		if (tep_parse_event(tf->tep, buf, (size_t)size, specs[i].sys) == 0)
			tf->ev[i].ev = tep_find_event_by_name(tf->tep, specs[i].sys, specs[i].name);
		free(buf);
	}
	return 0;
}

static int enable_events(struct thp_tracefs *tf)
{
	size_t len = 0;

	for (size_t i = 0; i < NSPECS; i++) {
		struct evinfo *e = &tf->ev[i];

		if (e->ev && tracefs_event_enable(tf->inst, specs[i].sys, specs[i].name) < 0)
			e->ev = NULL;
		if (!e->ev) {
			int n = snprintf(tf->missing + len, sizeof(tf->missing) - len, "%s%s:%s",
					 len ? " " : "", specs[i].sys, specs[i].name);
			len += n > 0 && (size_t)n < sizeof(tf->missing) - len ? (size_t)n : 0;
			continue;
		}
		e->order = tep_find_field(e->ev, "order");
		e->sync = tep_find_field(e->ev, "sync");
		e->status = tep_find_field(e->ev, "status");
		e->reclaimed = tep_find_field(e->ev, "nr_reclaimed");
		if (e->status && load_syms(e, "status"))
			return -ENOMEM;
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

int thp_tracefs_open(struct thp_tracefs **out, size_t buffer_kb, const char **what)
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
		if (mount("nodev", TRACEFS_DIR, "tracefs", 0, NULL) < 0) {
			rc = -errno;
			goto fail;
		}
		tf->mounted = true;
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
	if ((rc = enable_events(tf)))
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

bool thp_tracefs_useless(const struct thp_tracefs *tf)
{
	for (size_t i = 0; i < NSPECS; i++)
		if (tf->ev[i].ev && specs[i].type != THP_EV_COLLAPSE && specs[i].type != THP_EV_SCAN_PMD)
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

static long long field_val(struct tep_format_field *f, void *data, long long dflt)
{
	unsigned long long v;

	if (!f || tep_read_number_field(f, data, &v) < 0)
		return dflt;
	/* signed fields narrower than 64 bits come back zero-extended */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size == 4)
		return (int32_t)v;
	return (long long)v;
}

/* Decodes the event at the current kbuffer position into EV; false for events
 * thp does not trace. */
static bool decode(struct thp_tracefs *tf, struct tep_record *rec, struct thp_ev *ev)
{
	int id = tep_data_type(tf->tep, rec);
	struct evinfo *e = NULL;
	size_t i;

	for (i = 0; i < NSPECS && !e; i++)
		if (tf->ev[i].ev && tf->ev[i].ev->id == id)
			e = &tf->ev[i];
	if (!e)
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->type = specs[i - 1].type;
	ev->ts = rec->ts;
	ev->cpu = rec->cpu;
	ev->tid = tep_data_pid(tf->tep, rec);
	ev->order = (int)field_val(e->order, rec->data, -1);
	ev->sync = (int)field_val(e->sync, rec->data, -1);
	ev->value = (uint64_t)field_val(e->reclaimed, rec->data, 0);
	if (e->status)
		ev->result = sym_name(e, field_val(e->status, rec->data, 0));
	return true;
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
				struct tep_record rec = { .ts = ts, .data = data, .cpu = c,
							  .size = kbuffer_event_size(tf->kbuf) };
				struct thp_ev ev;
				int rc;

				if (!decode(tf, &rec, &ev))
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

int thp_tracefs_close(struct thp_tracefs *tf)
{
	int rc = 0;

	if (!tf)
		return 0;
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
	for (size_t i = 0; i < NSPECS; i++) {
		for (size_t j = 0; j < tf->ev[i].nsyms; j++)
			free(tf->ev[i].syms[j].str);
		free(tf->ev[i].syms);
	}
	if (tf->tep)
		tep_free(tf->tep);
	if (tf->kbuf)
		kbuffer_free(tf->kbuf);
	free(tf->page);
	if (tf->mounted && umount(tf->dir) < 0)
		rc = -errno;
	free(tf->dir);
	free(tf);
	return rc;
}
