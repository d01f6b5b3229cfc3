/* SPDX-License-Identifier: GPL-2.0-or-later */
/* target.c - what a command is pointed at: one process, refused in one wording
 * when it has no memory to look at, and the --root tree, a directory or a
 * capture archive unpacked for as long as thp runs; what a command needs
 * before it may change it (root, the writers' lock) */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../control/change.h"
#include "../control/control.h"
#include "../core/proc.h"
#include "../core/status.h"
#include "../core/state.h"
#include "../core/unpack.h"
#include "../render/change.h"
#include "cmd.h"
#include "target.h"

int thp_pid_target(const struct thp_ctx *ctx, pid_t pid, bool kthread_ok,
		   struct thp_pstatus *st)
{
	int err = thp_pstatus_read(&ctx->root, pid, st);

	if (thp_proc_gone(err))
		thp_err("no process %d", (int)pid);
	else if (err)
		thp_err("cannot read '/proc/%d/status': %s%s", (int)pid, thp_strerror(err),
			thp_root_hint(err));
	else if (st->state == 'Z' || st->state == 'X')
		thp_err("process %d is a zombie: it has no memory", (int)pid);
	else if (!kthread_ok && thp_pstatus_kthread(st))
		thp_err("process %d is a kernel thread: it has no user memory", (int)pid);
	else
		return 0;
	return 1;
}

/* Runs in a process of its own until thp ends, however it ends (pipe P then
 * reads end-of-file), and removes the unpacked tree DIR. */
_Noreturn static void remover(const int p[2], const char *dir)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ssize_t n;
	char c;

	setsid(); /* a Ctrl-C at the terminal is for thp, not for this */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	for (int fd = 0; fd < 3 && null >= 0; fd++)
		dup2(null, fd); /* a pipe reading thp's output is not held open */
	close(p[1]);
	do
		n = read(p[0], &c, 1);
	while (n > 0 || (n < 0 && errno == EINTR));
	thp_unpack_remove(dir);
	_exit(0);
}

int thp_dir_kept(struct thp_rootarg *a, const char *dir)
{
	int p[2];
	pid_t pid;

	a->keeper = -1;
	a->remover = 0;
	if (dir != a->dir && snprintf(a->dir, sizeof(a->dir), "%s", dir) >= (int)sizeof(a->dir))
		return -ENAMETOOLONG;
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid == 0)
		remover(p, dir);
	close(p[0]);
	if (pid < 0) {
		close(p[1]);
		return -errno;
	}
	a->keeper = p[1];
	a->remover = pid;
	return 0;
}

int thp_unpack_kept(struct thp_rootarg *a, const char *arg, char *why, size_t wcap)
{
	sigset_t old;
	int err;

	thp_signals_hold(&old); /* no directory without its remover */
	err = thp_unpack_dir(a->dir, sizeof(a->dir), why, wcap);
	if (!err && (err = thp_dir_kept(a, a->dir)) < 0) {
		snprintf(why, wcap, "cannot start the process that removes it: %s", strerror(-err));
		rmdir(a->dir);
	}
	if (err) {
		a->dir[0] = '\0';
		a->keeper = -1;
		a->remover = 0;
	}
	thp_signals_release(&old); /* from now on a signal ends thp at once */
	if (!err)
		err = thp_unpack(arg, a->dir, why, wcap);
	if (err)
		thp_dir_release(a);
	return err;
}

void thp_dir_release(struct thp_rootarg *a)
{
	if (a->dir[0])
		thp_unpack_remove(a->dir);
	a->dir[0] = '\0';
	if (a->keeper >= 0)
		close(a->keeper);
	a->keeper = -1;
	if (a->remover > 0) /* it finds nothing left to remove */
		waitpid(a->remover, NULL, 0);
	a->remover = 0;
}

/* Unpacks capture archive ARG into A->dir (thp_unpack_kept). Writes the
 * capture's top directory to TOP. Returns 0 or 1 after saying why not. */
static int unpack_root(struct thp_rootarg *a, const char *arg, char *top, size_t cap)
{
	char why[256];
	int err = thp_unpack_kept(a, arg, why, sizeof(why));

	if (err) {
		thp_err("cannot unpack capture archive '%s': %s", arg, why);
		return 1;
	}
	if (!thp_unpack_capture_in(a->dir, top, cap)) {
		thp_err("'%s' is not a capture: it holds no proc or sys directory", arg);
		return 1;
	}
	return 0;
}

int thp_rootarg_open(struct thp_root *r, struct thp_rootarg *a, const char *arg, const char *what)
{
	char top[sizeof(a->dir) + 256];
	const char *path = arg;
	struct stat sb;
	int err;

	a->dir[0] = '\0';
	a->keeper = -1;
	a->remover = 0;
	if (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode)) {
		if (unpack_root(a, arg, top, sizeof(top))) {
			thp_rootarg_close(r, a);
			return 1;
		}
		path = top;
	}
	err = thp_root_open(r, path);
	if (!err && a->dir[0]) /* messages name the archive (stat took it: shorter than PATH_MAX) */
		snprintf(r->path, sizeof(r->path), "%s", arg);
	if (err)
		thp_err("cannot open %s '%s': %s", what, arg, strerror(-err));
	else if (!r->live && !thp_capture_dir(path))
		thp_err("'%s' does not look like a host root or a capture: it holds neither proc/ "
			"nor sys/", arg);
	else
		return 0;
	thp_rootarg_close(r, a);
	return 1;
}

int thp_ctx_root(struct thp_ctx *ctx, const char *arg)
{
	thp_rootarg_close(&ctx->root, &ctx->rootarg);
	return thp_rootarg_open(&ctx->root, &ctx->rootarg, arg, "root");
}

void thp_rootarg_close(struct thp_root *r, struct thp_rootarg *a)
{
	if (r->fd >= 0)
		thp_root_done(r);
	thp_dir_release(a);
}

int thp_need_root(const struct thp_ctx *ctx, const char *what)
{
	assert(!what || ctx->writes);
	if (what && ctx->rootarg.dir[0]) {
		thp_err("%s below '%s' is refused: it is an archive, unpacked into a temporary "
			"directory that is removed when thp ends, so the change would vanish; unpack it "
			"and give the directory", what, ctx->root.path);
		return thp_usage_error(ctx->cmd);
	}
	if (!ctx->root.live || geteuid() == 0)
		return 0;
	if (what)
		thp_err("%s needs root (run as root)", what);
	else
		thp_err("needs root (run as root)");
	return 1;
}

int thp_live_only(const struct thp_ctx *ctx, const char *what)
{
	if (ctx->root.live)
		return 0;
	if (what)
		thp_err("%s works on the running kernel only; it cannot be used with --root", what);
	else
		thp_err("works on the running kernel only; it cannot be used with --root");
	return thp_usage_error(ctx->cmd);
}

int thp_change_begin(const struct thp_ctx *ctx, const char *what)
{
	struct thp_lock_holder h;
	int rc = thp_need_root(ctx, what);

	return rc ? rc : thp_lock_report(&ctx->root, thp_writer_lock(&ctx->root, THP_LOCK_WAIT_MS, &h), &h);
}

int modes_need_thp(const struct thp_ctx *ctx)
{
	if (thp_policy_dir(&ctx->root, NULL))
		return 0;
	thp_err("this kernel has no THP (no /sys/kernel/mm/transparent_hugepage; built without "
		"CONFIG_TRANSPARENT_HUGEPAGE): there is nothing to measure");
	return 1;
}
