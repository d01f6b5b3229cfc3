/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.c - `thp persist`: keep THP settings across reboot, or check what is kept */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "../control/boot.h"
#include "../control/change.h"
#include "../core/drift.h"
#include "../core/persist.h"
#include "../render/change.h"
#include "../render/persist.h"
#include "cmd.h"
#include "opt.h"
#include "target.h"

#define TMPFILES_DIR THP_TMPFILES_DIR
#define TMPFILES_NAME THP_TMPFILES_NAME
#define TMPFILES_DEFAULT TMPFILES_DIR "/" TMPFILES_NAME
#define UNIT_DIR THP_UNIT_DIR
#define UNIT_NAME THP_UNIT_NAME
#define UNIT_DEFAULT UNIT_DIR "/" UNIT_NAME
#define SYSCTL_DIR THP_SYSCTLD_DIR
#define SYSCTL_NAME THP_SYSCTLD_NAME
#define SYSCTL_DEFAULT SYSCTL_DIR "/" SYSCTL_NAME

enum mode { TMPFILES, SYSTEMD, CMDLINE, CHECK, SYSCTL /* chosen by vm.* keys, not an option */ };

static const struct thp_opt opts[] = {
	THP_OPT_LONG('T', "tmpfiles", NULL, "write a tmpfiles.d drop-in (default:\n/" TMPFILES_DEFAULT ")"),
	THP_OPT_LONG('S', "systemd", NULL, "write and enable a oneshot unit\n(/" UNIT_DEFAULT ")"),
	THP_OPT_LONG('C', "cmdline", NULL, "print kernel command-line options and how to add them"),
	THP_OPT_LONG('K', "check", NULL,
		     "compare what is persisted (sysctl.d, tmpfiles.d, enabled\n"
		     "units, /proc/cmdline, tuned's active profile) with the\n"
		     "running kernel; exit 3 on drift, or when tuned writes a\n"
		     "persisted setting again at boot (a second writer)"),
	THP_OPT('o', "output", "FILE", "write FILE instead of the default path"),
	THP_OPT_LONG('n', "dry-run", NULL, "print the file, write nothing (with --json: the file as it\n"
					   "is and would be, and whether writing changes it)"),
	THP_OPT('f', "force", NULL, "replace a file that 'thp persist' did not write"),
	THP_OPT_JSON("report as JSON"),
	THP_OPT_HELP,
	THP_OPT_END,
};

static const struct thp_cmd_opts decl = {
	.usage = "Usage: thp [--root DIR] persist [options] [KEY=VALUE...]\n"
		 "\n"
		 "Make THP settings survive reboot: the current settings, or only the KEY=VALUE\n"
		 "given (keys as for 'thp set'). Every value is checked against what the running\n"
		 "kernel accepts, and written in the order the kernel needs (per-size last).\n"
		 "vm.* keys (compaction and watermarks) are persisted only when given, and go to\n"
		 "a sysctl.d drop-in (/" SYSCTL_DEFAULT "), applied by systemd-sysctl at\n"
		 "boot; give them in a command of their own.",
	.width = 20,
	.opts = opts,
};

/* 'persist --check': compares what is persisted with the kernel's settings
 * CS. Returns the exit status. */
static int check(const struct thp_ctx *ctx, const struct thp_changes *cs)
{
	struct thp_persisted *p = malloc(sizeof(*p));
	struct thp_drift *d = calloc(THP_KV_MAX, sizeof(*d));
	struct thp_hugetlb *h = malloc(sizeof(*h));
	uint64_t sizes[THP_SIZES_MAX];
	int n, rc = 1, nsizes = thp_changes_sizes(cs, sizes, THP_SIZES_MAX);

	if (p && d && h) {
		thp_hugetlb_read(&ctx->root, h);
		thp_persisted_read(&ctx->root, sizes, nsizes, h->default_size, p);
		n = thp_drift_check(cs, h, p, d, THP_KV_MAX);
		rc = thp_persist_check_report(ctx->json, p, d, n);
	}
	free(p);
	free(d);
	free(h);
	return rc;
}

/* 'persist --cmdline': the kernel command-line options for L. */
static void cmdline(const struct thp_ctx *ctx, const struct thp_kvlist *l)
{
	struct thp_kvlist *rest = malloc(sizeof(*rest));
	char *opts = rest ? thp_cmdline_format(l, rest) : NULL;

	if (opts)
		thp_persist_cmdline_report(ctx->json, opts, rest);
	else
		thp_err("out of memory");
	free(opts);
	free(rest);
}

/* Writes the file of MODE (TMPFILES, SYSTEMD, SYSCTL) for the settings L:
 * FILE, or the default below the root; with DRY only shows it. */
static int write_out(const struct thp_ctx *ctx, enum mode mode, const struct thp_kvlist *l,
		     const char *file, bool dry, bool force)
{
	static const char *const dirs[] = { [THP_PERSIST_TMPFILES] = TMPFILES_DIR,
					    [THP_PERSIST_UNIT] = UNIT_DIR, [THP_PERSIST_SYSCTL] = SYSCTL_DIR };
	static const char *const names[] = { [THP_PERSIST_TMPFILES] = TMPFILES_NAME,
					     [THP_PERSIST_UNIT] = UNIT_NAME, [THP_PERSIST_SYSCTL] = SYSCTL_NAME };
	enum thp_persist_kind kind = mode == SYSTEMD ? THP_PERSIST_UNIT
				     : mode == SYSCTL ? THP_PERSIST_SYSCTL : THP_PERSIST_TMPFILES;
	struct thp_boot_file f = { .dir = dirs[kind], .name = names[kind], .mark = THP_PERSIST_MARK };
	struct thp_persist_run r;
	bool unit = kind == THP_PERSIST_UNIT && !file;
	int rc = 0;

	f.text = kind == THP_PERSIST_UNIT ? thp_unit_format(l) : kind == THP_PERSIST_SYSCTL ? thp_sysctl_format(l)
											  : thp_tmpfiles_format(l);
	if (!f.text) {
		thp_err("out of memory");
		return 1;
	}
	if (file) {
		snprintf(f.shown, sizeof(f.shown), "%s", file);
		if (thp_read_user(file, &f.cur, NULL))
			f.cur = NULL; /* absent or unreadable: nothing of thp's or anyone's to keep */
	} else {
		thp_boot_files_read(&ctx->root, &f, 1);
	}
	if (dry) {
		rc = thp_persist_dry(ctx->json, &f);
	} else if (file || (rc = thp_change_begin(ctx, "writing what boot applies")) == 0) {
		thp_persist_write(&ctx->root, &f, file, unit, force, &r);
		rc = thp_persist_report(ctx->json, &ctx->root, kind, &f, l->n, unit, &r);
	}
	thp_boot_files_free(&f, 1);
	return rc;
}

int cmd_persist(struct thp_ctx *ctx, int argc, char **argv)
{
	static const char *const mode_opt[] = { [TMPFILES] = "--tmpfiles", [SYSTEMD] = "--systemd",
						 [CMDLINE] = "--cmdline", [CHECK] = "--check" };
	enum mode mode = TMPFILES;
	const char *file = NULL, *given = NULL, *writes = NULL;
	struct thp_changes *cs = NULL;
	struct thp_kvlist *l = NULL;
	char why[512];
	bool dry = false, force = false;
	int c, rc = 1, nvm = 0, err;

	optind = 0;
	while ((c = thp_opt_next(ctx, &decl, argc, argv)) != -1) {
		switch (c) {
		case 'T':
		case 'S':
		case 'C':
		case 'K': {
			enum mode m = c == 'T' ? TMPFILES : c == 'S' ? SYSTEMD : c == 'C' ? CMDLINE : CHECK;
			if (given && m != mode) {
				thp_err("%s and %s cannot be combined; give one", given, mode_opt[m]);
				return thp_usage_error("persist");
			}
			mode = m;
			given = mode_opt[m];
			break;
		}
		case 'o': file = optarg; writes = "--output"; break;
		case 'n': dry = true; writes = "--dry-run"; break;
		case 'f': force = true; writes = "--force"; break;
		default: return thp_opt_exit(ctx, c);
		}
	}
	if (writes && (mode == CMDLINE || mode == CHECK)) {
		thp_err("%s applies to --tmpfiles and --systemd, not to %s", writes, mode_opt[mode]);
		return thp_usage_error("persist");
	}
	if (mode == CHECK && optind < argc) {
		thp_err("--check takes no KEY=VALUE");
		return thp_usage_error("persist");
	}
	l = calloc(1, sizeof(*l));
	if ((err = thp_change_load(&ctx->root, &cs)) != 0)
		thp_change_load_failed(&ctx->root, err);
	if (err || !l)
		goto out;
	if (mode == CHECK) {
		rc = check(ctx, cs);
		goto out;
	}
	rc = thp_want_report(thp_change_want_args(cs, argc - optind, argv + optind, why, sizeof(why)), why,
			     "persist");
	if (rc)
		goto out;
	for (int i = 0; i < cs->n; i++) {
		const struct thp_change *c = &cs->v[i];
		const char *v = optind < argc ? c->want : c->old;
		bool named = (c->k.d->flags & THP_NAMED) != 0;

		if (!v[0] || !(c->k.d->flags & THP_PERSIST) || (named && optind >= argc))
			continue;
		thp_kv_set(l, c->key, v, 0);
		nvm += named;
	}
	if (nvm && nvm < l->n && mode != CMDLINE) {
		thp_err("vm.* settings go to /" SYSCTL_DEFAULT " and the others to a tmpfiles.d "
			"file or unit; give them in two commands");
		rc = thp_usage_error("persist");
		goto out;
	}
	if (nvm && mode == SYSTEMD) {
		thp_err("vm.* settings go to a sysctl.d drop-in, not to a unit; leave out --systemd");
		rc = thp_usage_error("persist");
		goto out;
	}
	if (nvm && mode == TMPFILES)
		mode = SYSCTL;
	if (mode == CMDLINE) {
		cmdline(ctx, l);
		rc = 0;
	} else {
		rc = write_out(ctx, mode, l, file, dry, force);
	}
out:
	free(cs);
	free(l);
	return rc;
}
