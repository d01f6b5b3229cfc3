/* cmd.h - what every command gets, and the commands themselves */
#ifndef THP_CMD_H
#define THP_CMD_H

#include <stdbool.h>

#include "../core/root.h"

/* Global options, parsed by main before the command. */
struct thp_ctx {
	struct thp_root root;
	bool json;
};

/* A command: parses its own options from ARGV (ARGV[0] is its name) and returns
 * the exit status: 0 ok, 1 error, 2 usage. */
typedef int (*thp_cmd_fn)(struct thp_ctx *ctx, int argc, char **argv);

int cmd_status(struct thp_ctx *ctx, int argc, char **argv);
int cmd_capture(struct thp_ctx *ctx, int argc, char **argv);
int cmd_hugetlb(struct thp_ctx *ctx, int argc, char **argv);
int cmd_watch(struct thp_ctx *ctx, int argc, char **argv);
int cmd_exec(struct thp_ctx *ctx, int argc, char **argv);
int cmd_doctor(struct thp_ctx *ctx, int argc, char **argv);
int cmd_trace(struct thp_ctx *ctx, int argc, char **argv);

/* Prints "thp: MESSAGE" to stderr. */
void thp_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Words for a negative errno from core: "Permission denied", "malformed value". */
const char *thp_strerror(int err);

/* Handles an unknown option or stray argument: prints a hint, returns 2. */
int thp_usage_error(const char *cmd);

#endif
