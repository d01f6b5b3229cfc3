/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.h - a command's options, declared once: the table that its getopt
 * tables and the Options section of its --help come from (and so the shell
 * completion, which reads --help) */
#ifndef THP_OPT_H
#define THP_OPT_H

#include <stdbool.h>
#include <stdint.h>

struct thp_ctx;

/* One entry of a command's options: an option, or a line of text between
 * them. A short letter means the same in every command (tests/cli.sh checks
 * the --help of all of them). */
struct thp_opt {
	const char *name; /* the long option, without "--"; NULL: a line of text, or the end */
	int letter;       /* its short option; 0: none */
	int key;          /* what thp_opt_next() returns for it: its letter, or a value of its own */
	const char *arg;  /* the name of its argument ("COL"); "[=WHEN]": an optional one,
			   * given after '='; NULL: it takes none */
	const char *help; /* lines separated by '\n'; NULL: not listed (an old name kept working) */
	int width;        /* a line of text: the help column of the options after it (0: as before) */
};

#define THP_OPT(letter, name, arg, help) { name, letter, letter, arg, help, 0 }
#define THP_OPT_LONG(key, name, arg, help) { name, 0, key, arg, help, 0 }
#define THP_OPT_TEXT(width, text) { NULL, 0, 0, NULL, text, width }
#define THP_OPT_END { NULL, 0, 0, NULL, NULL, 0 }

/* The options many commands take, each declared here once. --json and
 * --help are taken by thp_opt_next() itself; --root is the global option's
 * (a capture directory or archive, opened by thp_ctx_root()). */
#define THP_OPT_JSON(help) THP_OPT('J', "json", NULL, help)
#define THP_OPT_HELP THP_OPT('h', "help", NULL, "show this help")
#define THP_OPT_ROOT(arg, help) THP_OPT('R', "root", arg, help)
/* The table options (struct out_fmt, taken by out_fmt_opt()), at column 22. */
#define THP_OPTS_TABLE                                                                             \
	THP_OPT('o', "output", "LIST", "columns to show, comma-separated (see below)"),            \
	THP_OPT('n', "noheadings", NULL, "do not print the header line"),                          \
	THP_OPT('r', "raw", NULL, "one space between cells, no alignment, spaces escaped"),        \
	THP_OPT('P', "pairs", NULL, "each row as COLUMN=\"value\" pairs"),                         \
	THP_OPT_JSON("one JSON document (sizes in bytes; every column, or those\n"                 \
		     "of -o; the keys are the column names in lower case)"),                       \
	THP_OPT('b', "bytes", NULL, "print sizes in bytes"),                                       \
	THP_OPT_LONG(OUT_OPT_NOTRUNC, "notruncate", NULL, "do not cut or wrap text to fit the terminal")

/* What 'thp CMD --help' prints, and how its options are read. */
struct out_col;

struct thp_cmd_opts {
	const char *usage;         /* the usage lines and what the command does */
	void (*more)(void);        /* prints the rest of that (lists known at run time); NULL: none */
	const char *title;         /* the heading of the options; NULL: "Options:" */
	int width;                 /* the help column of the options */
	const struct thp_opt *opts;
	const struct out_col *cols; /* the columns listed after the options ("Columns:"); NULL: none */
	int ncols;
	void (*after)(void);       /* prints what follows those (more columns); NULL: none */
	bool in_order;             /* the options end at the first operand (getopt's '+') */
};

/* thp_opt_next() after --help was printed, or after a bad option was named */
enum { THP_OPT_HELP_DONE = -2, THP_OPT_BAD = -3 };

/* getopt_long(3) over the options D declares (set optind to 0 before the
 * first call): returns the key of the next option (optarg its argument), or
 * -1 after the last. --json sets CTX->json and is not returned; --help prints
 * D's usage and returns THP_OPT_HELP_DONE; an unknown option, or an argument
 * missing or given to a flag, prints "thp: CMD: ..." and returns THP_OPT_BAD. */
int thp_opt_next(struct thp_ctx *ctx, const struct thp_cmd_opts *d, int argc, char **argv);

/* The exit status after thp_opt_next() returned C, a key the command does not
 * take as an option of its own: 0 after --help, else 2 with the hint of
 * thp_usage_error(). */
int thp_opt_exit(const struct thp_ctx *ctx, int c);

/* Prints D's usage: its text, the Options section made from its table, and what follows. */
void thp_opt_usage(const struct thp_cmd_opts *d);

/* Options of 'thp metrics' that 'thp serve' takes too (core/metrics.h). */
struct thp_metrics_opts;
enum { THP_OPT_PIDS = 0x100, THP_OPT_NODE_EXPORTER_COMPAT, THP_OPT_NO_DOCTOR };
/* Those options, for a table of opt.h (help at column 24). */
#define THP_OPTS_METRICS                                                                           \
	THP_OPT('t', "top", "N", "export AnonHugePages of the N command names holding the\n"      \
				 "most, summed over their processes (default 20; 0: none)"),       \
	THP_OPT_LONG(THP_OPT_PIDS, "pids", NULL, "one series per process (labels pid and comm) instead of\n" \
						 "one per command name"),                          \
	THP_OPT_LONG(THP_OPT_NODE_EXPORTER_COMPAT, "node-exporter-compat", NULL, NULL),            \
	THP_OPT_LONG(THP_OPT_NO_DOCTOR, "no-doctor", NULL,                                         \
		     "leave out the doctor's findings and persistence drift\n"                      \
		     "(then no process is read beyond the --top scan)")

/* Takes option C (with ARG) of THP_OPTS_METRICS into O.
 * Returns 0, 1 when C is not one of them, or 2 after explaining a bad value. */
int thp_metrics_opt(int c, const char *arg, struct thp_metrics_opts *o);

struct modes;

/* Splits the comma list LIST of --modes into M, accepting only words of
 * ALLOWED (NULL-terminated). Prints the error and returns 2 on bad input,
 * else 0. */
int modes_parse(const char *list, const char *const *allowed, struct modes *m);

/* Numeric arguments, read with core/arg.h (decimal, no leading zero, in
 * range). On a bad value each prints "thp: CMD: WHAT 'ARG' is ..." (thp_err) with what
 * it accepts and returns false; the caller then exits 2 having changed
 * nothing. WHAT names the option ("--interval") or the operand ("process id"). */
bool thp_opt_u64(const char *what, const char *arg, uint64_t min, uint64_t max,
		 uint64_t *v);
bool thp_opt_int(const char *what, const char *arg, int min, int max, int *v);
/* A number of UNIT ("seconds") with up to THP_ARG_DECIMALS decimals. */
bool thp_opt_decimal(const char *what, const char *arg, const char *unit, double min,
		     double max, double *v);
/* A size ("64M"); MAX_IS, when not NULL, says where MAX comes from ("MemAvailable"). */
bool thp_opt_size(const char *what, const char *arg, uint64_t min, uint64_t max,
		  const char *max_is, uint64_t *v);
/* A percentage ("5%", "2.5") in basis points, at most MAX_BP. */
bool thp_opt_percent(const char *what, const char *arg, unsigned max_bp, unsigned *bp);

struct option;

/* getopt_long(3) with getopt's own messages replaced: an unknown or ambiguous
 * option, a missing argument or an argument given to a flag prints "thp: CMD:
 * ..." (thp_err) and returns '?', on which the caller exits with
 * thp_usage_error(). */
int thp_getopt(int argc, char **argv, const char *opts, const struct option *lo);

/* The largest process or thread id any command accepts. */
#define THP_PID_MAX INT32_MAX

#endif
