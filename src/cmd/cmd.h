/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd.h - what every command gets, and the commands themselves */
#ifndef THP_CMD_H
#define THP_CMD_H

#include <stdbool.h>
#include <sys/types.h>

#include "../core/root.h"
#include "../render/msg.h"

/* A --root argument opened as a root: a directory, or a capture archive
 * unpacked into DIR until thp_rootarg_close (or the end of thp, however it
 * ends: a process of its own then removes DIR). */
struct thp_rootarg {
	char dir[4096]; /* the unpacked archive; "" for a directory */
	int keeper;     /* keeps the remover waiting while open; -1 */
	pid_t remover;  /* that process; 0 */
};

/* Global options, parsed by main before the command. */
struct thp_ctx {
	struct thp_root root;
	struct thp_rootarg rootarg;
	bool json;
	const char *cmd; /* the command's name, for messages */
	bool writes;     /* the command may change the host (WRITES in main's table) */
};

/* A command: parses its own options from ARGV (ARGV[0] is its name) and returns
 * the exit status: 0 ok, 1 error, 2 usage. */
typedef int (*thp_cmd_fn)(struct thp_ctx *ctx, int argc, char **argv);

int cmd_status(struct thp_ctx *ctx, int argc, char **argv);
int cmd_capture(struct thp_ctx *ctx, int argc, char **argv);
int cmd_hugetlb(struct thp_ctx *ctx, int argc, char **argv);
int cmd_watch(struct thp_ctx *ctx, int argc, char **argv);
int cmd_exec(struct thp_ctx *ctx, int argc, char **argv);
int cmd_collapse(struct thp_ctx *ctx, int argc, char **argv);
int cmd_doctor(struct thp_ctx *ctx, int argc, char **argv);
int cmd_trace(struct thp_ctx *ctx, int argc, char **argv);
int cmd_set(struct thp_ctx *ctx, int argc, char **argv);
int cmd_restore(struct thp_ctx *ctx, int argc, char **argv);
int cmd_diff(struct thp_ctx *ctx, int argc, char **argv);
int cmd_persist(struct thp_ctx *ctx, int argc, char **argv);
int cmd_ps(struct thp_ctx *ctx, int argc, char **argv);
int cmd_show(struct thp_ctx *ctx, int argc, char **argv);
int cmd_metrics(struct thp_ctx *ctx, int argc, char **argv);
int cmd_serve(struct thp_ctx *ctx, int argc, char **argv);
int cmd_report(struct thp_ctx *ctx, int argc, char **argv);
int cmd_bench(struct thp_ctx *ctx, int argc, char **argv);
int cmd_ab(struct thp_ctx *ctx, int argc, char **argv);

/* 'thp --version': prints VERSION, one line (or {"version"} in JSON). */
int thp_version(const struct thp_ctx *ctx, const char *version);

#endif
