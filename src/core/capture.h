/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.h - copy the kernel files thp reads into a directory tree */
#ifndef THP_CAPTURE_H
#define THP_CAPTURE_H

#include <stdbool.h>

#include "root.h"

/* What a capture records, below the root: host files and directories, then
 * per process (below proc/PID/), NULL-terminated. '*' and '[...]' in them
 * match one path component; a directory is copied whole, and a path ending
 * in '/' is a directory made empty. */
extern const char *const thp_capture_host_paths[];
extern const char *const thp_capture_proc_files[];
/* Recorded as empty files, when they are there: links whose presence is
 * what counts (a unit enabled), whatever they point to. */
extern const char *const thp_capture_presence_paths[];
/* Recorded per process too, unless left out: the command line. */
#define THP_CAPTURE_CMDLINE "cmdline"

struct thp_capture_result;
struct thp_capture_opts {
	bool procs;   /* per-process files */
	bool cmdline; /* ... with each command line */
	/* called after each process recorded, with what is done so far; may be NULL */
	void (*progress)(const struct thp_capture_result *r, void *arg);
	void *arg;
};

struct thp_capture_result {
	int files;      /* files copied */
	int unreadable; /* files skipped because they could not be read */
	int processes;  /* processes recorded */
	char first[128]; /* the first of them, "/proc/1/smaps" */
	int first_err;   /* why it could not be read, -errno */
};

/* Copies every file thp reads from ROOT into the empty directory OUT (an open
 * descriptor), with only thp_environ_names of each environment (proc.h) and
 * only the lines of systemd units that write THP settings (thp_unit_record,
 * persist.h: the units that set them, and thp.service), and writes an etc/passwd naming the users of the recorded processes only.
 * Files are created 0600 and directories 0700, exclusively. Names found on
 * disk are taken literally; a link to a file is recorded as the file it leads
 * to inside ROOT, links to directories are not followed. Returns 0 or -errno of the first failure to write below OUT;
 * read failures are only counted. */
int thp_capture(const struct thp_root *root, int out, const struct thp_capture_opts *opts,
		struct thp_capture_result *res);

#endif
