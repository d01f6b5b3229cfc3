/* SPDX-License-Identifier: GPL-2.0-or-later */
/* set.c - `thp set KEY=VALUE...` and `thp restore [FILE]`: change the host's THP
 * settings as one transaction, with the previous state saved first */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../control/control.h"
#include "../control/settings.h"
#include "../core/persist.h"
#include "../render/render.h"
#include "cmd.h"


static void set_usage(void)
{
	puts("Usage: thp [--root DIR] set [options] KEY=VALUE...\n       thp [--root DIR] set --save FILE\n"
	     "\n"
	     "Change THP settings of the host as one transaction: every value is checked\n"
	     "against what the kernel accepts before the first write, each write is read\n"
	     "back, and any failure (or Ctrl-C) puts back every setting already written.\n"
	     "The state before the change is saved first; 'thp restore' puts it back.\n"
	     "\n"
	     "Keys: enabled, defrag, shmem_enabled, use_zero_page, shrink_underused,\n"
	     "  khugepaged.{defrag,pages_to_scan,scan_sleep_millisecs,alloc_sleep_millisecs,\n"
	     "  max_ptes_none,max_ptes_swap,max_ptes_shared},\n"
	     "  hugepages.SIZE.enabled, hugepages.SIZE.shmem_enabled (SIZE: 64K, 2M, ... or all).\n"
	     "Per-size values are written after the top-level ones.\n"
	     "\n"
	     "Options:\n"
	     "  -n, --dry-run     show the changes, write nothing\n"
	     "  -s, --save FILE   save the previous state to FILE (default /" SAVED_DEFAULT ");\n"
	     "                    without KEY=VALUE, only save the current state to FILE\n"
	     "  -J, --json        report as JSON\n"
	     "  -h, --help        show this help");
}

static void restore_usage(void)
{
	puts("Usage: thp [--root DIR] restore [options] [FILE]\n"
	     "\n"
	     "Put back the THP settings saved by 'thp set' (default /" SAVED_DEFAULT "),\n"
	     "with the same checks, read-back and rollback as 'thp set'. Settings the file\n"
	     "does not name are left alone.\n"
	     "\n"
	     "Options:\n"
	     "  -n, --dry-run     show the changes, write nothing\n"
	     "  -J, --json        report as JSON\n"
	     "  -h, --help        show this help");
}

static const char *result_word(const struct thp_knob *kn)
{
	switch (kn->result) {
	case THP_KNOB_WRITTEN: return "written";
	case THP_KNOB_FAILED: return "failed";
	case THP_KNOB_ROLLED_BACK: return "rolled back";
	case THP_KNOB_STUCK: return "rollback failed";
	default: return "not written";
	}
}

/* Prints the planned or made changes of KS. */
static void report(const struct thp_ctx *ctx, const struct thp_knobs *ks, bool dry, int err,
		   const char *saved, bool user_file)
{
	struct out_table *t;
	int n = thp_knobs_changes(ks);

	if (ctx->json) {
		struct json_object *o = json_object_new_object(), *a = json_object_new_array();
		for (int i = 0; i < ks->n; i++) {
			const struct thp_knob *kn = &ks->k[i];
			struct json_object *c;
			if (!kn->want[0])
				continue;
			c = json_object_new_object();
			json_object_object_add(c, "key", json_object_new_string(kn->key));
			json_object_object_add(c, "from", json_object_new_string(kn->old));
			json_object_object_add(c, "to", json_object_new_string(kn->want));
			json_object_object_add(c, "result", json_object_new_string(
				strcmp(kn->want, kn->old) == 0 ? "unchanged" : dry ? "planned" : result_word(kn)));
			json_object_array_add(a, c);
		}
		json_object_object_add(o, "dry_run", json_object_new_boolean(dry));
		json_object_object_add(o, "ok", json_object_new_boolean(err == 0));
		json_object_object_add(o, "saved", saved ? json_object_new_string(saved) : NULL);
		json_object_object_add(o, "changes", a);
		out_json_print(o);
		return;
	}
	if (err)
		return;
	if (n == 0) {
		puts("nothing to change: every setting already has that value");
		return;
	}
	printf(dry ? "would change %d setting%s (dry run, nothing written):\n"
		   : "changed %d setting%s:\n", n, n == 1 ? "" : "s");
	t = out_table_new(4, NULL, true);
	for (int i = 0; i < ks->n; i++) {
		const struct thp_knob *kn = &ks->k[i];
		if (kn->want[0] && strcmp(kn->want, kn->old) != 0)
			out_table_row(t, (const char *const[]){ kn->key, kn->old, "->", kn->want });
	}
	out_table_print(t, 2);
	if (saved)
		printf("the previous state is saved in %s; 'thp restore%s%s' puts it back\n", saved,
		       user_file ? " " : "", user_file ? saved : "");
}

/* Explains a failed transaction on stderr. */
static void explain(const struct thp_knobs *ks, int err, int signo, const char *saved)
{
	char undone[1024] = "", stuck[1024] = "";
	int nundone = 0, nstuck = 0;

	for (int i = 0; i < ks->n; i++) {
		const struct thp_knob *kn = &ks->k[i];
		size_t u = strlen(undone), s = strlen(stuck);

		if (kn->err && kn->got[0])
			thp_err("'%s' reads '%s' after writing '%s'", kn->key, kn->got, kn->want);
		else if (kn->err)
			thp_err("cannot write '%s': %s%s", kn->key, strerror(-kn->err),
				kn->err == -EACCES || kn->err == -EPERM ? " (run as root)" : "");
		if (kn->result == THP_KNOB_ROLLED_BACK && u < sizeof(undone) - 64)
			snprintf(undone + u, sizeof(undone) - u, "%s%s", nundone++ ? ", " : "", kn->key);
		if (kn->result == THP_KNOB_STUCK && s < sizeof(stuck) - 64)
			snprintf(stuck + s, sizeof(stuck) - s, "%s%s (%s)", nstuck++ ? ", " : "",
				 kn->key, strerror(-kn->undo_err));
	}
	if (signo && sigabbrev_np(signo))
		thp_err("interrupted by SIG%s", sigabbrev_np(signo));
	else if (signo)
		thp_err("interrupted by signal %d", signo);
	else if (err == -EPERM)
		thp_err("cannot change THP settings: %s (run as root)", strerror(-err));
	if (nundone)
		thp_err("rolled back %d setting%s already written: %s", nundone, nundone == 1 ? "" : "s",
			undone);
	else if (!nstuck)
		thp_err("nothing was changed");
	if (nstuck)
		thp_err("could not roll back %s; the previous state is saved in %s", stuck,
			saved ? saved : "(nowhere)");
}

/* Ends the process by SIGNO after a rolled-back transaction, as the signal would have. */
static int die_by(int signo)
{
	signal(signo, SIG_DFL);
	raise(signo);
	return 128 + signo;
}

struct txn {
	bool dry;
	bool user_file;       /* the saved state is a file the user named */
	const char *path;     /* saved state: the file named, or below the root */
	int dirfd;            /* its directory once opened (txn_dir), else -1 */
	const char *name;     /* its name in that directory */
	char shown[4200];     /* saved state as shown to the user */
};

/* Opens the directory of the saved state of TX: the user's (never created) or
 * thp's state directory, created with CREATE. Returns 0 or -errno. */
static int txn_dir(const struct thp_ctx *ctx, struct txn *tx, bool create)
{
	if (tx->dirfd >= 0)
		return 0;
	if (tx->user_file) {
		tx->dirfd = thp_file_dir(tx->path, &tx->name);
	} else {
		tx->dirfd = thp_state_dir(&ctx->root, create);
		tx->name = strrchr(SAVED_DEFAULT, '/') + 1;
	}
	return tx->dirfd < 0 ? tx->dirfd : 0;
}

static void txn_close(struct txn *tx)
{
	if (tx->dirfd >= 0)
		close(tx->dirfd);
	tx->dirfd = -1;
}

/* Name of the marker of an unfinished change beside saved state NAME. */
static void pending_name(const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s.pending", name);
}

/* Saves the current state of KS as the saved state of TX. Before a change
 * (MARK), a NAME.pending marker is added that lives until the change is done;
 * when the marker is already there, an earlier change did not finish and the
 * state saved before it is kept. Returns 0 or -errno. */
static int save_state(const struct thp_ctx *ctx, struct txn *tx, const struct thp_knobs *ks,
		      bool mark, int argc, char **argv)
{
	char pending[4200], header[1024], when[64];
	struct thp_kvlist *l;
	time_t now = time(NULL);
	size_t len;
	char *text;
	int err = txn_dir(ctx, tx, true);

	if (err)
		return err;
	pending_name(tx->name, pending, sizeof(pending));
	if (mark && faccessat(tx->dirfd, pending, F_OK, AT_SYMLINK_NOFOLLOW) == 0 &&
	    faccessat(tx->dirfd, tx->name, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
		thp_err("an earlier 'thp set' did not finish; keeping the state saved before it in %s",
			tx->shown);
		return 0;
	}
	l = malloc(sizeof(*l));
	if (!l)
		return -ENOMEM;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	len = (size_t)snprintf(header, sizeof(header),
			       "THP settings at %s, saved by 'thp set'; 'thp restore' puts them back.\n"
			       "command:", when);
	for (int i = 0; i < argc && len < sizeof(header); i++)
		len += (size_t)snprintf(header + len, sizeof(header) - len, " %s", argv[i]);
	thp_knobs_snapshot(ks, l);
	text = thp_state_format(l, header);
	free(l);
	if (!text)
		return -ENOMEM;
	err = thp_file_write(tx->dirfd, tx->name, text, 0600);
	free(text);
	return err || !mark ? err : thp_file_write(tx->dirfd, pending, "", 0600);
}

/* Runs the wanted changes of KS. SAVE: save the previous state first. */
static int run(const struct thp_ctx *ctx, struct thp_knobs *ks, struct txn *tx, bool save,
	       int argc, char **argv)
{
	char pending[4200];
	int err, signo = 0;
	bool stuck = false;

	if (tx->dry || thp_knobs_changes(ks) == 0) {
		report(ctx, ks, tx->dry, 0, NULL, false);
		return 0;
	}
	if (ctx->root.live && geteuid() != 0) {
		thp_err("cannot change THP settings: %s (run as root)", strerror(EPERM));
		return 1;
	}
	if (save) {
		err = save_state(ctx, tx, ks, true, argc, argv);
		if (err) {
			thp_err("cannot save the previous state to '%s': %s; nothing was changed",
				tx->shown, thp_file_strerror(err));
			return 1;
		}
	}
	err = thp_knobs_apply(&ctx->root, ks, &signo);
	for (int i = 0; i < ks->n; i++)
		stuck = stuck || ks->k[i].result == THP_KNOB_STUCK;
	/* the host holds one complete state: the saved one or the new one */
	if (!stuck && txn_dir(ctx, tx, false) == 0) {
		pending_name(tx->name, pending, sizeof(pending));
		unlinkat(tx->dirfd, pending, 0);
	}
	report(ctx, ks, false, err, save ? tx->shown : NULL, tx->user_file);
	if (!err)
		return 0;
	explain(ks, err, signo, tx->shown);
	return signo ? die_by(signo) : 1;
}

/* Resolves where the saved state is: FILE as given (relative to the current
 * directory), or the default below the root. */
static void locate(const struct thp_ctx *ctx, const char *file, struct txn *tx)
{
	tx->path = file ? file : SAVED_DEFAULT;
	tx->user_file = file != NULL;
	tx->dirfd = -1;
	thp_saved_path(ctx, file, tx->shown, sizeof(tx->shown));
}

/* Reads the saved state of TX into a malloc'd *BUF. Returns 0 or -errno. */
static int read_saved(const struct thp_ctx *ctx, const struct txn *tx, char **buf)
{
	if (tx->user_file)
		return thp_read_user(tx->path, buf, NULL);
	return thp_read(&ctx->root, SAVED_DEFAULT, buf, NULL);
}

struct thp_knobs *thp_knobs_load(const struct thp_root *root)
{
	struct thp_knobs *ks = malloc(sizeof(*ks));
	int err = ks ? thp_knobs_read(root, ks) : -ENOMEM;

	if (err == -ENOENT && root->live)
		thp_err("this kernel has no /" THP_SYSFS_DIR " (built without THP)");
	else if (err == -ENOENT)
		thp_err("'%s' has no " THP_SYSFS_DIR, root->path);
	else if (err == -EOPNOTSUPP)
		thp_err("RHEL 6's redhat_transparent_hugepage is not supported: it predates these settings");
	else if (err)
		thp_err("cannot read THP settings below '%s': %s", root->path, strerror(-err));
	if (err) {
		free(ks);
		return NULL;
	}
	return ks;
}

static int parse_opts(int argc, char **argv, bool *dry, const char **save, bool with_save,
		      struct thp_ctx *ctx, void (*usage)(void), int *rc)
{
	static const struct option lo[] = {
		{ "dry-run", no_argument, NULL, 'n' }, { "save", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'J' },    { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, with_save ? "ns:Jh" : "nJh", lo, NULL)) != -1) {
		switch (c) {
		case 'n': *dry = true; break;
		case 's':
			if (!with_save)
				goto bad;
			*save = optarg;
			break;
		case 'J': ctx->json = true; break;
		case 'h': usage(); *rc = 0; return -1;
		default: goto bad;
		}
	}
	return 0;
bad:
	*rc = thp_usage_error(argv[0]);
	return -1;
}

int thp_want_args(struct thp_knobs *ks, int argc, char **argv, const char *cmd)
{
	char why[512];

	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		int err;

		if (!eq || eq == argv[i] || !eq[1]) {
			thp_err("%s: '%s' is not KEY=VALUE", cmd, argv[i]);
			return thp_usage_error(cmd);
		}
		*eq = '\0';
		err = thp_knobs_want(ks, argv[i], eq + 1, why, sizeof(why));
		*eq = '=';
		if (err) {
			thp_err("%s; nothing was changed", why);
			return 2;
		}
	}
	return 0;
}

int cmd_set(struct thp_ctx *ctx, int argc, char **argv)
{
	const char *save = NULL;
	struct thp_knobs *ks;
	struct txn tx = { .dirfd = -1 };
	int rc = 0;

	if (parse_opts(argc, argv, &tx.dry, &save, true, ctx, set_usage, &rc))
		return rc;
	if (optind >= argc && !save) {
		thp_err("set: no KEY=VALUE given");
		return thp_usage_error("set");
	}
	ks = thp_knobs_load(&ctx->root);
	if (!ks)
		return 1;
	locate(ctx, save, &tx);
	if (optind >= argc) { /* only --save: record the current state */
		rc = save_state(ctx, &tx, ks, false, argc, argv);
		if (rc) {
			thp_err("cannot write '%s': %s", save, thp_file_strerror(rc));
		} else if (ctx->json) {
			struct json_object *o = json_object_new_object();
			json_object_object_add(o, "saved", json_object_new_string(save));
			out_json_print(o);
		} else {
			printf("saved the current settings to %s; 'thp restore %s' puts them back\n",
			       save, save);
		}
		txn_close(&tx);
		free(ks);
		return rc ? 1 : 0;
	}
	rc = thp_want_args(ks, argc - optind, argv + optind, "set");
	if (!rc)
		rc = run(ctx, ks, &tx, true, argc, argv);
	txn_close(&tx);
	free(ks);
	return rc;
}

int cmd_restore(struct thp_ctx *ctx, int argc, char **argv)
{
	struct thp_kvlist *l = NULL;
	struct thp_knobs *ks = NULL;
	struct txn tx = { .dirfd = -1 };
	char *buf = NULL, why[512];
	const char *unused = NULL;
	int rc = 0, bad, err;

	if (parse_opts(argc, argv, &tx.dry, &unused, false, ctx, restore_usage, &rc))
		return rc;
	if (argc - optind > 1) {
		thp_err("restore: unexpected argument '%s'", argv[optind + 1]);
		return thp_usage_error("restore");
	}
	locate(ctx, optind < argc ? argv[optind] : NULL, &tx);
	err = read_saved(ctx, &tx, &buf);
	if (err) {
		thp_err("cannot read saved state '%s': %s%s", tx.shown, strerror(-err),
			err == -ENOENT ? " (nothing was saved: 'thp set' saves the state it changes)" : "");
		return 1;
	}
	l = malloc(sizeof(*l));
	rc = 1;
	if (!l || thp_state_parse(buf, l, &bad) != 0) {
		if (l)
			thp_err("'%s' line %d: not KEY=VALUE of a THP setting; nothing was changed",
				tx.shown, bad);
		goto out;
	}
	ks = thp_knobs_load(&ctx->root);
	if (!ks)
		goto out;
	if (thp_knobs_want_list(ks, l, &bad, why, sizeof(why)) != 0) {
		thp_err("'%s' line %d: %s; nothing was changed", tx.shown, l->v[bad].line, why);
		goto out;
	}
	rc = run(ctx, ks, &tx, false, argc, argv);
out:
	txn_close(&tx);
	free(buf);
	free(l);
	free(ks);
	return rc;
}

void thp_saved_path(const struct thp_ctx *ctx, const char *file, char *buf, size_t cap)
{
	size_t n = strlen(ctx->root.path);

	if (file)
		snprintf(buf, cap, "%s", file);
	else if (ctx->root.live)
		snprintf(buf, cap, "/" SAVED_DEFAULT);
	else
		snprintf(buf, cap, "%.*s/" SAVED_DEFAULT,
			 (int)(n > 1 && ctx->root.path[n - 1] == '/' ? n - 1 : n), ctx->root.path);
}
