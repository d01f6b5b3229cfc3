/* SPDX-License-Identifier: GPL-2.0-or-later */
/* capture.c - `thp capture`: record this host's THP files for `thp --root DIR` anywhere */
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/capture.h"
#include "../render/render.h"
#include "cmd.h"

extern char **environ;

static void usage(void)
{
	puts("Usage: thp [--root DIR] capture [-o DIR|FILE.tar.gz] [--no-procs]\n"
	     "\n"
	     "Record exactly the /proc and /sys files thp reads, keeping their layout, so that\n"
	     "'thp --root DIR status' shows this host on any machine. Per-process files\n"
	     "(status, smaps_rollup, smaps, comm, cmdline, stat, cgroup) are included unless\n"
	     "--no-procs is given; command lines may hold secrets, so check before sharing.\n"
	     "\n"
	     "Options:\n"
	     "  -o, --output PATH  a directory, or an archive if PATH ends in .tar.gz or .tgz\n"
	     "                     (default: thp-capture-HOST-DATE.tar.gz in the current directory)\n"
	     "      --no-procs     leave out per-process files\n"
	     "  -J, --json         report what was captured as JSON\n"
	     "  -h, --help         show this help");
}

static bool is_archive(const char *p)
{
	size_t n = strlen(p);
	return (n > 7 && strcmp(p + n - 7, ".tar.gz") == 0) || (n > 4 && strcmp(p + n - 4, ".tgz") == 0);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)sb; (void)flag; (void)f;
	return remove(path);
}

/* Runs tar to pack DIR/NAME into ARCHIVE. Returns 0 or an error message. */
static const char *pack(const char *archive, const char *dir, const char *name)
{
	char *argv[] = { "tar", "-czf", (char *)archive, "-C", (char *)dir, (char *)name, NULL };
	pid_t pid;
	int status;

	if (posix_spawnp(&pid, "tar", NULL, NULL, argv, environ) != 0)
		return "cannot run tar";
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return "tar failed";
	return NULL;
}

/* Base name of an archive path without its .tar.gz/.tgz suffix. */
static void archive_stem(const char *archive, char *out, size_t cap)
{
	const char *b = strrchr(archive, '/');
	b = b ? b + 1 : archive;
	snprintf(out, cap, "%s", b);
	char *dot = strstr(out, ".tar.gz");
	if (!dot)
		dot = strstr(out, ".tgz");
	if (dot)
		*dot = '\0';
}

static void report(const struct thp_ctx *ctx, const char *out, const struct thp_capture_result *r)
{
	if (ctx->json) {
		struct json_object *o = json_object_new_object();
		json_object_object_add(o, "output", json_object_new_string(out));
		json_object_object_add(o, "files", json_object_new_int(r->files));
		json_object_object_add(o, "processes", json_object_new_int(r->processes));
		json_object_object_add(o, "unreadable", json_object_new_int(r->unreadable));
		out_json_print(o);
		return;
	}
	printf("captured %d files (%d processes) into %s\n", r->files, r->processes, out);
	if (r->unreadable)
		printf("%d files could not be read and were left out (run as root to record all)\n",
		       r->unreadable);
}

int cmd_capture(struct thp_ctx *ctx, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "output", required_argument, NULL, 'o' }, { "no-procs", no_argument, NULL, 'P' },
		{ "json", no_argument, NULL, 'J' },          { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct thp_capture_result r;
	char def[512], tmp[] = "/tmp/thp-capture.XXXXXX", stem[256], dir[600], host[128] = "host";
	const char *out = NULL, *msg;
	bool procs = true;
	int c, err;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+o:Jh", lo, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'P': procs = false; break;
		case 'J': ctx->json = true; break;
		case 'h': usage(); return 0;
		default: return thp_usage_error("capture");
		}
	}
	if (optind < argc) {
		thp_err("capture: unexpected argument '%s'", argv[optind]);
		return thp_usage_error("capture");
	}
	if (!out) {
		time_t now = time(NULL);
		char date[32];
		gethostname(host, sizeof(host) - 1);
		strftime(date, sizeof(date), "%Y%m%d-%H%M%S", localtime(&now));
		snprintf(def, sizeof(def), "thp-capture-%s-%s.tar.gz", host, date);
		out = def;
	}
	if (!is_archive(out)) {
		err = thp_capture(&ctx->root, out, procs, &r);
		if (err) {
			thp_err("cannot write capture '%s': %s", out, strerror(-err));
			return 1;
		}
		report(ctx, out, &r);
		return 0;
	}
	if (!mkdtemp(tmp)) {
		thp_err("cannot create a temporary directory: %s", strerror(errno));
		return 1;
	}
	archive_stem(out, stem, sizeof(stem));
	snprintf(dir, sizeof(dir), "%s/%s", tmp, stem);
	err = thp_capture(&ctx->root, dir, procs, &r);
	msg = err ? strerror(-err) : pack(out, tmp, stem);
	nftw(tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	if (msg) {
		thp_err("cannot write capture '%s': %s", out, msg);
		return 1;
	}
	report(ctx, out, &r);
	return 0;
}
