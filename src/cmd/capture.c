/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c - `thp capture`: record this host's THP files for `thp --root DIR` anywhere */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../control/control.h"
#include "../core/capture.h"
#include "../core/proc.h"
#include "../core/status.h"
#include "../core/unpack.h"
#include "../render/render.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

/* Prints WORDS (NULL-terminated) after INDENT, wrapped at 80 columns. */
static void print_words(const char *indent, const char *const *words)
{
	size_t start = strlen(indent), col = start;

	fputs(indent, stdout);
	for (int i = 0; words[i]; i++) {
		if (col > start && col + 1 + strlen(words[i]) > 79) {
			printf("\n%s", indent);
			col = start;
		}
		col += (size_t)printf("%s%s", col > start ? " " : "", words[i]);
	}
	putchar('\n');
}

/* What is recorded, after the usage's first paragraph. */
static void recorded_help(void)
{
	print_words("    ", thp_capture_host_paths);
	puts("    etc/passwd: only the users of the recorded processes (name, uid, group)\n"
	     "    etc/systemd/system/*.service that write THP settings, and thp.service:\n"
	     "        only their lines that write them (echo VALUE > PATH), as ExecStart\n"
	     "        lines, and section headers; every other line is left empty\n"
	     "and, as empty files (what counts is that they are there):\n"
	     "    etc/systemd/system/*.wants/UNIT of each of those units");
	print_words("    ", thp_capture_presence_paths);
	puts("and per process, below proc/PID/ (unless --no-procs):");
	print_words("    ", thp_capture_proc_files);
	puts("    " THP_CAPTURE_CMDLINE " (the command line, unless --no-cmdline)\n"
	     "    " THP_ENVIRON_FILE ": of the environment, only these variables:");
	print_words("        ", thp_environ_names);
	puts("Nothing else of any environment is recorded. Command lines can hold secrets\n"
	     "(passwords given as arguments): check them before sharing, or use --no-cmdline.\n"
	     "Only the capture's owner can read it (files 0600, directories 0700).");
}

static const struct thp_opt opts[] = {
	THP_OPT('o', "output", "PATH", "a new directory, or an archive if PATH ends in .tar.gz or\n"
				       ".tgz (default: thp-capture-HOST-DATE.tar.gz in the current\n"
				       "directory)"),
	THP_OPT_LONG('P', "no-procs", NULL, "leave out per-process files"),
	THP_OPT_LONG('C', "no-cmdline", NULL, "leave out the command lines of processes"),
	THP_OPT_JSON("report what was captured as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] capture [-o DIR|FILE.tar.gz] [--no-procs] [--no-cmdline]\n"
		 "\n"
		 "Record exactly the files thp reads, keeping their layout, so that\n"
		 "'thp --root DIR status' shows this host on any machine, and 'set' and\n"
		 "'persist' can be rehearsed on the copy. Recorded, below the root (a path\n"
		 "ending in '/': that directory without its files, where the host has it):",
	.more = recorded_help,
	.width = 21,
	.opts = opts,
	.in_order = true,
};

static bool is_archive(const char *p)
{
	size_t n = strlen(p);
	return (n > 7 && strcmp(p + n - 7, ".tar.gz") == 0) || (n > 4 && strcmp(p + n - 4, ".tgz") == 0);
}

/* Creates a new private directory beside the capture in DIRFD, shown as the
 * directory PREFIX ("" or ending in '/'), whose name goes to NAME; a process
 * of its own removes it however thp ends (K, thp_dir_kept). Call with SIGINT,
 * SIGTERM and SIGHUP held. Returns 0 or -errno. */
static int make_staging(int dirfd, const char *prefix, char name[NAME_MAX + 1], struct thp_rootarg *k)
{
	char path[sizeof(k->dir)];
	int err = -EEXIST;

	for (int tries = 0; err == -EEXIST && tries < 100; tries++) {
		thp_temp_name("thp-capture", name);
		err = mkdirat(dirfd, name, 0700) == 0 ? 0 : -errno;
	}
	if (!err && fchmodat(dirfd, name, 0700, 0) != 0)
		err = -errno;
	if (!err && snprintf(path, sizeof(path), "%s%s", prefix, name) >= (int)sizeof(path))
		err = -ENAMETOOLONG;
	if (!err)
		err = thp_dir_kept(k, path);
	if (err)
		unlinkat(dirfd, name, AT_REMOVEDIR);
	return err;
}

struct pack {
	int dir;          /* the staging directory */
	const char *stem; /* the capture in it, packed */
	char *why;        /* why packing failed, where libarchive says */
	size_t wcap;
};

/* Writes a gzip-compressed tar of the staged capture to FD with libarchive;
 * a signal ends it (thp_fill_fn). */
static int fill_archive(int fd, void *arg)
{
	struct pack *p = arg;

	return thp_pack(p->dir, p->stem, fd, thp_signals_pending, p->why, p->wcap);
}

/* Base name of an archive path without its .tar.gz/.tgz suffix. */
static void archive_stem(const char *name, char *out, size_t cap)
{
	char *dot;

	snprintf(out, cap, "%s", name);
	dot = strstr(out, ".tar.gz");
	if (!dot)
		dot = strstr(out, ".tgz");
	if (dot)
		*dot = '\0';
}

static void report(const struct thp_ctx *ctx, const char *out, const struct thp_capture_result *r)
{
	out_doc_begin(ctx->json, false, "thp-capture/1");
	out_put(OUT_ANY, "files", "captured %s files", ov_count((uint64_t)r->files));
	out_put(OUT_ANY, "processes", " (%s processes)", ov_count((uint64_t)r->processes));
	out_put(OUT_ANY, "output", " into %s\n", ov_str(out));
	out_put(OUT_ANY, "unreadable", r->unreadable ? "%s files could not be read and were left out" : NULL,
		ov_count((uint64_t)r->unreadable));
	if (r->unreadable)
		out_text(" (the first: %s: %s)\n%s", r->first, thp_read_strerror(r->first_err),
			 geteuid() != 0 ? "run as root to record all\n" : "");
	out_doc_end();
}

/* Renames FROM in FROMDIR to TO in TODIR, which must not exist. Returns 0 or -errno. */
static int rename_new(int fromdir, const char *from, int todir, const char *to)
{
	if (renameat2(fromdir, from, todir, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL) /* EINVAL: no RENAME_NOREPLACE (Linux before 3.15, some file systems) */
		return -errno;
	if (faccessat(todir, to, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	return renameat(fromdir, from, todir, to) == 0 ? 0 : -errno;
}

/* Records the host into a new directory STEM below a private staging
 * directory in DIR (shown as PREFIX, "" or ending in '/'), then renames it to
 * NAME (a directory) or packs it into the archive NAME. Called with SIGINT,
 * SIGTERM and SIGHUP held (OLD: the mask before); they end thp at once while
 * it records and while the staging directory is removed (its remover then
 * cleans up), and are held while the archive or the directory is put in
 * place. Returns 0 or -errno; WHY (WCAP bytes, "" first) may say why the
 * archive could not be written. */
static int capture_into(const struct thp_ctx *ctx, int dir, const char *prefix, const char *name,
			const struct thp_capture_opts *o, const sigset_t *old,
			struct thp_capture_result *r, char *why, size_t wcap)
{
	char staging[NAME_MAX + 1], stem[256];
	struct pack p = { -1, stem, why, wcap };
	struct thp_rootarg kept;
	bool archive = is_archive(name);
	sigset_t held;
	struct stat st;
	int out = -1, err;

	archive_stem(name, stem, sizeof(stem));
	if (!archive && fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	err = archive ? thp_file_check(dir, name) : 0;
	if (!err)
		err = make_staging(dir, prefix, staging, &kept);
	if (err)
		return err;
	p.dir = openat(dir, staging, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (p.dir < 0 || mkdirat(p.dir, stem, 0700) != 0 ||
	    (out = openat(p.dir, stem, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		err = -errno;
	thp_signals_release(old);
	if (!err)
		err = thp_capture(&ctx->root, out, o, r);
	thp_signals_hold(&held); /* for the archive's temporary file, or the rename */
	if (!err && archive) /* written in the staging directory: its remover takes what a kill leaves */
		err = thp_file_write_with(p.dir, name, 0600, fill_archive, &p);
	if (!err && archive && renameat(p.dir, name, dir, name) != 0)
		err = -errno;
	else if (!err && !archive)
		err = rename_new(p.dir, stem, dir, name);
	thp_signals_release(&held);
	if (out >= 0)
		close(out);
	if (p.dir >= 0)
		close(p.dir);
	thp_dir_release(&kept);
	return err;
}

/* The host name of ROOT (the live host, or the one a tree recorded) for a
 * file name: letters, digits, '.', '-' and '_' kept, anything else '_';
 * "host" when unknown. */
static void host_for_name(const struct thp_root *root, char *buf, size_t cap)
{
	thp_hostname(root, buf, cap);
	for (char *c = buf; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			*c = '_';
	if (!buf[0])
		snprintf(buf, cap, "host");
}

static void capture_progress(const struct thp_capture_result *r, void *arg)
{
	out_progress(arg, "capture", (uint64_t)r->processes, "processes recorded");
}

int cmd_capture(struct thp_ctx *ctx, int argc, char **argv)
{
	struct thp_capture_opts opts = { true, true, capture_progress, NULL };
	struct thp_capture_result r;
	struct out_progress p;
	char def[512], path[4096], prefix[4096], host[128], why[512] = "";
	const char *out = NULL, *name;
	sigset_t old;
	int c, dir, err;
	size_t len;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'P': opts.procs = false; break;
		case 'C': opts.cmdline = false; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (optind < argc) {
		thp_err("unexpected argument '%s'", argv[optind]);
		return thp_usage_error("capture");
	}
	if (!out) {
		time_t now = time(NULL);
		char date[32];
		host_for_name(&ctx->root, host, sizeof(host));
		strftime(date, sizeof(date), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(def, sizeof(def), "thp-capture-%s-%s.tar.gz", host, date);
		out = def;
	}
	len = strlen(out);
	while (len > 1 && out[len - 1] == '/')
		len--; /* "-o DIR/" names DIR */
	snprintf(path, sizeof(path), "%.*s", (int)len, out);
	dir = thp_file_dir(path, &name);
	if (dir >= 0 && (!*name || *name == '.' || (is_archive(name) && strlen(name) <= 7))) {
		thp_err("'%s' does not name a new directory or archive", out);
		close(dir);
		return 2;
	}
	if (dir < 0) {
		thp_err("cannot write capture '%s': %s", out, thp_file_strerror(dir));
		return 1;
	}
	thp_signals_hold(&old); /* while the staging directory is made, and the capture written */
	out_progress_init(&p);
	p.tty = p.tty && !ctx->json;
	opts.arg = &p;
	snprintf(prefix, sizeof(prefix), "%.*s", (int)(name - path), path); /* DIR's path */
	err = capture_into(ctx, dir, prefix, name, &opts, &old, &r, why, sizeof(why));
	out_progress_end(&p);
	close(dir);
	if (err == -EEXIST && !is_archive(name))
		thp_err("cannot write capture '%s': it exists (a capture makes a new directory)", out);
	else if (err)
		thp_err("cannot write capture '%s': %s", out, why[0] ? why : thp_file_strerror(err));
	else
		report(ctx, out, &r);
	thp_signals_release(&old);
	return err ? 1 : 0;
}
