/* SPDX-License-Identifier: GPL-2.0-or-later */
/* opt.h - a command's options, declared once: the table that its getopt
 * tables and the Options section of its --help come from (and so the shell
 * completion, which reads --help) */
#ifndef THP_OPT_H
#define THP_OPT_H

#include <stdbool.h>

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

#endif
