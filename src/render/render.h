/* SPDX-License-Identifier: GPL-2.0-or-later */
/* render.h - the output layer: units, tables (libsmartcols), JSON (json-c), verdicts */
#ifndef THP_RENDER_H
#define THP_RENDER_H

#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../core/folios.h"
#include "../core/proc.h"
#include "../core/status.h"
#include "escape.h"

/* "2 processes could not be read: PID 1: permission denied, PID 7: ...": the
 * first few by pid and why; "(run as root to see all)" only when not root. */
const char *out_denied(char *buf, size_t cap, const struct thp_denied *d);

/* Binary human size: "0 B", "4 KiB", "2 MiB", "1.2 GiB". With EXACT, plain bytes. */
const char *out_size(char *buf, size_t cap, uint64_t bytes, bool exact);

/* Size as a user or the kernel command line writes it: "64K", "2M", "1G";
 * plain bytes when no binary unit divides it. */
const char *out_size_spec(char *buf, size_t cap, uint64_t bytes);

/* Count with thousands separators: "2,631". */
const char *out_count(char *buf, size_t cap, uint64_t n);

/* Percentage with one decimal: "19.0%". */
const char *out_pct(char *buf, size_t cap, uint64_t part, uint64_t whole);

/* A duration: "812.0 ns", "3.4 us", "12.5 ms", "2.31 s". */
const char *out_ns(char *buf, size_t cap, double ns);

/* An aligned table; a thin layer over libsmartcols. */
struct out_table;
struct out_table *out_table_new(int ncols, const char *const *headers, bool noheadings);
/* Adds a row; VALUES holds ncols strings (NULL prints as empty), escaped as
 * out_escape() does for a terminal. */
void out_table_row(struct out_table *t, const char *const *values);
/* Marks column COL right-aligned (numbers). */
void out_table_right(struct out_table *t, int col);
/* Gives column COL FLAGS (OUT_TRUNC, OUT_WRAP, OUT_KEEP); the table is then
 * fitted as those of out_table_cols() are. */
void out_table_col(struct out_table *t, int col, unsigned flags);
/* Lets text column COL wrap onto more lines when the table is wider than the
 * terminal, and leaves no column out (every one OUT_KEEP). */
void out_table_wrap(struct out_table *t, int col);
/* Fits T to at most WIDTH columns (its indent included) whether standard
 * output is a terminal or not: the width of a text read as a document. */
void out_table_width(struct out_table *t, int width);
/* The width of help texts, in a file too. */
#define OUT_HELP_WIDTH 80
/* A list in a help text: NCOLS columns without a header, the last one's
 * words wrapped so that the list, printed indented by 2, fits OUT_HELP_WIDTH. */
struct out_table *out_help_list(int ncols);
/* Fits a table of out_table_new() to the terminal as those of out_table_cols()
 * are: its last columns left out (none OUT_KEEP), and named under it, when
 * it is too wide. */
void out_table_fitted(struct out_table *t);
/* Prints the table with every line indented by INDENT spaces, then frees it.
 * A table of out_table_cols() in JSON prints nothing (see out_table_json). */
void out_table_print(struct out_table *t, int indent);

/* What a value is: its JSON type, its words in text, and how a column of it
 * is aligned (text and yes/no to the left, numbers to the right). */
enum out_kind {
	OUT_TEXT,    /* a string */
	OUT_SIZE,    /* bytes: human in text ("2 MiB"), exact with --bytes and in JSON */
	OUT_COUNT,   /* a whole number: "2631" */
	OUT_PCT,     /* a percentage: "19.0%" in text, 19.0 in JSON */
	OUT_BOOL,    /* yes/no in text, true/false in JSON */
	OUT_NS,      /* a duration in nanoseconds: "3.4 us" in text, nanoseconds in JSON */
	OUT_NUM,     /* any other number (ratios, durations in other units), with decimals */
	OUT_INT,     /* a signed whole number */
	OUT_GROUPED, /* a whole number with thousands separators in text: "2,631" */
	OUT_FOLIOS,  /* folio mapping counters (out_folio_counters): an object in JSON */
	OUT_HEX,     /* an address or offset: hexadecimal in text, a number in JSON */
	OUT_SIZES,   /* sizes: "64K,2M" in text, an array of bytes in JSON */
	OUT_STATS,   /* figures of several runs (struct out_stats): the median in text, an object in JSON */
	OUT_WORDLIST,   /* words separated by spaces: as they are in text, an array of strings in JSON */
};

/* How a column is fitted to a terminal narrower than its table. A text
 * column may be cut with an ellipsis (OUT_TRUNC) or wrapped onto more lines
 * (OUT_WRAP: at spaces, else after a '/', else after ',' or '-'). A column
 * that tells which row it is or gives the table's answer (OUT_KEEP) is never
 * left out, and narrowed after the others; columns without it are details,
 * left out the last first (never the first column) while the table does not
 * fit, and named under it. */
enum { OUT_TRUNC = 1, OUT_WRAP = 2, OUT_KEEP = 4 };

/* A value as the output layer prints it: in text as its kind's words (or
 * TEXT), in JSON typed by its kind (null when NULL_). Made by the ov_*()
 * functions below, or filled by a column's getter. */
struct out_val {
	enum out_kind kind;
	bool null;        /* JSON null; in text TEXT, or "-" ("" for OUT_TEXT) */
	uint64_t u;       /* SIZE, COUNT, GROUPED, NS, BOOL; PCT: the part */
	uint64_t whole;   /* PCT: the whole (0: null); SIZES: how many */
	int64_t i;        /* INT */
	double d;         /* NUM */
	int dec;          /* NUM: decimals in text and JSON; -1: as many as it has */
	const char *s;    /* TEXT */
	const void *obj;  /* FOLIOS: a struct thp_folio_stats; SIZES: WHOLE uint64_t */
	const char *text; /* the words text shows instead of the kind's own; JSON keeps the value */
	int hue;          /* 1 + enum out_hue (term.h) colouring the cell in text; 0: none */
	char *buf;        /* room for a getter's words (CAP bytes), given by the table */
	size_t cap;
};

static inline struct out_val ov_null(void)
{
	return (struct out_val){ .null = true };
}
static inline struct out_val ov_str(const char *s)
{
	return (struct out_val){ .kind = OUT_TEXT, .s = s, .null = !s };
}
static inline struct out_val ov_size(uint64_t bytes)
{
	return (struct out_val){ .kind = OUT_SIZE, .u = bytes };
}
static inline struct out_val ov_count(uint64_t n)
{
	return (struct out_val){ .kind = OUT_COUNT, .u = n };
}
static inline struct out_val ov_grouped(uint64_t n)
{
	return (struct out_val){ .kind = OUT_GROUPED, .u = n };
}
static inline struct out_val ov_int(int64_t n)
{
	return (struct out_val){ .kind = OUT_INT, .i = n };
}
static inline struct out_val ov_bool(bool b)
{
	return (struct out_val){ .kind = OUT_BOOL, .u = b };
}
static inline struct out_val ov_pct(uint64_t part, uint64_t whole)
{
	return (struct out_val){ .kind = OUT_PCT, .u = part, .whole = whole, .null = !whole };
}
static inline struct out_val ov_num(double v, int decimals)
{
	return (struct out_val){ .kind = OUT_NUM, .d = v, .dec = decimals };
}
static inline struct out_val ov_ns(uint64_t ns)
{
	return (struct out_val){ .kind = OUT_NS, .u = ns };
}
static inline struct out_val ov_hex(uint64_t v)
{
	return (struct out_val){ .kind = OUT_HEX, .u = v };
}
static inline struct out_val ov_sizes(const uint64_t *sizes, int n)
{
	return (struct out_val){ .kind = OUT_SIZES, .obj = sizes, .whole = (uint64_t)n };
}
static inline struct out_val ov_wordlist(const char *s)
{
	return (struct out_val){ .kind = OUT_WORDLIST, .s = s, .null = !s };
}
static inline struct out_val ov_folios(const struct thp_folio_stats *f)
{
	return (struct out_val){ .kind = OUT_FOLIOS, .obj = f, .null = !f };
}
/* Figures of several runs: their min, median and max, and (N > 0) the N
 * figures RUNS; in JSON an object of them ("min", "median", "max", "runs"),
 * each number rounded to a whole one with WHOLE. */
struct out_stats {
	double min, median, max;
	const double *runs;
	int n;
	bool whole;
};
static inline struct out_val ov_stats(const struct out_stats *s)
{
	return (struct out_val){ .kind = OUT_STATS, .obj = s };
}
/* V, or null when not HAVE. */
static inline struct out_val ov_if(bool have, struct out_val v)
{
	v.null = v.null || !have;
	return v;
}

/* V shown in text as TEXT (JSON keeps V): a value whose words are not its
 * kind's, such as a local time for a UTC timestamp. */
static inline struct out_val ov_words(struct out_val v, const char *text)
{
	v.text = text;
	return v;
}

/* Sets *V to X, keeping V's room for words (a getter's way to give a value
 * made by the ov_*() functions). */
static inline void out_val_set(struct out_val *v, struct out_val x)
{
	x.buf = v->buf;
	x.cap = v->cap;
	*v = x;
}

/* The words of V in text (sizes exact with BYTES), in BUF or V's own. */
const char *out_val_text(const struct out_val *v, bool bytes, char *buf, size_t cap);

struct out_col;
/* A column's getter: fills V (its kind preset from C, BUF and CAP given) with
 * the value of C for ROW, a record of the table's command; CTX is the
 * command's, given to out_table_open(). */
typedef void (*out_get_fn)(const struct out_col *c, const void *row, void *ctx, struct out_val *v);

/* One column of a table, as lsblk's colinfo: the one declaration its header,
 * -o name, JSON key (the name in lower case), type, alignment, fitting,
 * --help line and value come from. */
struct out_col {
	const char *name; /* the header, and the -o name (any case) */
	enum out_kind kind;
	unsigned flags; /* OUT_TRUNC, OUT_WRAP, OUT_KEEP */
	const char *help;
	out_get_fn get;
	int arg; /* for the getter: which of several like columns */
};

/* The JSON key of column C: its name in lower case, as lsblk's. */
const char *out_col_key(const struct out_col *c, char *buf, size_t cap);

/* The output options every table command takes: -o LIST, -n, -r, -P, -J,
 * -b, --notruncate (declared by THP_OPTS_TABLE of cmd/opt.h). */
struct out_fmt {
	const char *list; /* -o LIST; NULL: the command's default columns */
	bool noheadings, raw, pairs, json, bytes, notrunc;
	bool bare; /* text without a header, each column as wide as its cells (-n keeps the headers' widths) */
	bool fixed; /* a table of a command without -o or --notruncate: a column
		     * left out on a narrow terminal is shown by a wider one or a pipe */
};
enum { OUT_OPT_NOTRUNC = 0x180 };
/* Takes option C (with ARG) of those but -J (the command's JSON, which
 * F->json takes from the context) into F; false when C is not one. */
bool out_fmt_opt(struct out_fmt *f, int c, const char *arg);
/* Prints an empty line and TITLE (none when NULL: more of the list above),
 * and the name and help line of each of the N columns COLS. */
void out_cols_help(const char *title, const struct out_col *cols, int n);

/* Selects the columns of F->list (comma-separated names of COLS, any case)
 * into SEL (at most CAP); without a list, the NDEF columns DEF. Returns the
 * number selected, or -1 after "thp: CMD: unknown column 'X'" and the valid
 * names (the command then exits 2). */
int out_cols_select(const struct out_col *cols, int n, const struct out_fmt *f,
		    const int *def, int ndef, int *sel, int cap);

/* A table of the NSEL columns SEL of COLS, printed as F says: text fitted to
 * a terminal, raw (-r), KEY="value" pairs (-P), or in the JSON document begun
 * by out_doc_begin() as member KEY, an array with an object per row (the
 * selected columns' keys, in their order), written as rows are added. Every
 * cell comes from its column's getter, given CTX. */
struct out_table *out_table_open(const char *key, const struct out_col *cols, const int *sel, int nsel,
				 const struct out_fmt *f, void *ctx);
/* Adds the row of record ROW. */
void out_table_add(struct out_table *t, const void *row);
/* Adds the sums of the rows, record ROW: in text the last row, in JSON after
 * the array its object, member KEY. */
void out_table_total(struct out_table *t, const char *key, const void *row);
/* Prints text tables every N rows as they come (N > 0), so that memory does
 * not grow with the rows: the column widths are those of the first N rows
 * fitted to the terminal, a later cell of a column that may be cut is cut to
 * them, and a wider one of another column widens it from there on. Every
 * line is indented by INDENT spaces. */
void out_table_stream(struct out_table *t, int n, int indent);
/* Keeps the records given to out_table_add() and out_table_total() instead of
 * their text (they must stay valid until out_table_close()): a text table of
 * more rows than a chunk (OUT_TABLE_CHUNK, or the environment's
 * THP_TABLE_CHUNK) is printed a chunk at a time, in the widths of all of its
 * rows, the same text as one table but without holding every cell. */
void out_table_keep(struct out_table *t);
#define OUT_TABLE_CHUNK 2048
/* Measures and prints a kept table on JOBS threads, each taking the next
 * chunk of rows as it ends one: the widths of its columns over each chunk,
 * then its chunks after the first, a round of a few a thread at a time,
 * each chunk's lines made and printed to text on one thread, the texts
 * written in their order: the same text as on one thread. The getters of
 * its columns are called on those threads at once: they must be safe to. */
void out_table_jobs(struct out_table *t, int jobs);
/* Ends T: prints its text with every line indented by INDENT spaces, or
 * ends its JSON array; frees T. */
void out_table_close(struct out_table *t, int indent);

/* A table of the NSEL columns SEL of COLS, printed as F says: text (fitted
 * to a terminal), raw or the rows of a JSON array. Fill a row with
 * out_table_line() and then one out_cell*() per column of COLS (those not
 * selected are ignored). */
struct out_table *out_table_cols(const struct out_col *cols, const int *sel, int nsel,
				 const struct out_fmt *f);
void out_table_line(struct out_table *t);
/* Cell COL of the current row: TEXT as shown (NULL: empty) and VAL in JSON
 * (NULL: null; taken over). */
void out_cell(struct out_table *t, int col, const char *text, struct json_object *val);
/* V as the column's kind shows it: a size, a count ("2631"), a bool, a duration. */
void out_cell_u64(struct out_table *t, int col, uint64_t v);
/* A string, shown escaped; NULL: empty and null. */
void out_cell_str(struct out_table *t, int col, const char *s);
/* PART of WHOLE in percent ("-" and null when WHOLE is 0). */
void out_cell_pct(struct out_table *t, int col, uint64_t part, uint64_t whole);
/* The rows as a JSON array (one object per row, the selected keys in order);
 * frees T. */
struct json_object *out_table_json(struct out_table *t);

/* One document, in text or JSON from the same calls, as iproute2's print_*()
 * with PRINT_ANY: each value is printed once, typed, and feeds both. */
enum out_to {
	OUT_ANY,  /* text and JSON */
	OUT_JSON, /* JSON only */
	OUT_FP,   /* text only (iproute2's PRINT_FP) */
};
/* Begins the document of a command: JSON (one pretty document on standard
 * output, its first member "schema": SCHEMA) or text; sizes in text exact
 * with BYTES. */
void out_doc_begin(bool json, bool bytes, const char *schema);
/* The same as one compact line (JSON lines: one document a line). */
void out_doc_line(bool json, bool bytes, const char *schema);
/* Ends it (closing what is open). Returns 0, or -1 when stdout failed. */
int out_doc_end(void);
/* Begins a JSON document in memory, the line out_doc_line() would print
 * (for a command that reads another's document). Returns 0, or -1 when out
 * of memory. */
int out_doc_mem(const char *schema);
/* Ends it: its text, malloc'd (NULL when out of memory); the next document
 * is text until one is begun. */
char *out_doc_mem_end(void);
/* Whether the document is JSON; whether text shows exact bytes. */
bool out_json_on(void);
bool out_bytes_on(void);
/* Opens member KEY (NULL: an element of the open array) of the JSON document
 * as an object, or as an array; out_end() closes it. Text shows nothing. */
void out_obj(const char *key);
void out_arr(const char *key);
void out_end(void);
/* Value V as member KEY of the open JSON object (or an element of the open
 * array), and in text FMT (NULL: nothing) with V's words for its "%s". */
void out_put(enum out_to to, const char *key, const char *fmt, struct out_val v);
/* Lines of a label and a value: in text a table of two columns, LABEL and
 * the value's words through FMT (NULL: "%s"), every line indented by INDENT
 * and, with WRAP, the values wrapped on a narrow terminal; in JSON members
 * KEY, as out_put(). out_kv_close() prints the text. */
void out_kv_open(int indent, bool wrap);
void out_kv(enum out_to to, const char *key, const char *label, const char *fmt, struct out_val v);
void out_kv_close(void);
/* Aligns the values of the open lines to the right (numbers). */
void out_kv_right(void);
/* Value V as member KEY of the open JSON object, and in text LABEL and V's
 * words as out_wrap() prints them, wrapped at MAX columns. */
void out_wrapped(enum out_to to, const char *key, const char *label, struct out_val v, int max);
/* Text only: FMT printed as printf does (nothing in JSON). */
void out_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints OBJ as one pretty JSON document followed by a newline, and releases it. */
int out_json_print(struct json_object *obj);
/* Prints OBJ as one compact line (JSON lines), and releases it. */
int out_json_line(struct json_object *obj);
/* OBJ as out_json_line() prints it, without the newline, in a malloc'd string
 * (NULL when out of memory); releases OBJ. */
char *out_json_text(struct json_object *obj);
/* Adds the memory fields of R (rss, anon, anon_huge, shmem_pmd, file_pmd,
 * hugetlb) to OBJ, in bytes, in that order. */
void out_json_rollup(struct json_object *obj, const struct thp_rollup *r);
/* JSON unsigned integer. */
struct json_object *out_json_u64(uint64_t v);
/* JSON number with at most DECIMALS decimals, trailing zeros dropped ("2.5", "3.0"). */
struct json_object *out_json_num(double v, int decimals);

/* Writes the two-line verdict ("THP: ..." and "Now: ...") for ST into BUF. */
void out_verdict(const struct thp_status *st, char *policy, size_t pcap, char *now, size_t ncap);

/* THP_STATE of a process: "on", "off (prctl)", "off (inherited from PID COMM)",
 * "except-advised (prctl)" or "except-advised (inherited from PID COMM)" when
 * PR_THP_DISABLE_EXCEPT_ADVISED was inferred, "kernel has no THP" on a kernel
 * built without it, or "-" when the kernel does not show it. ORIGIN comes
 * from thp_thp_origin() or thp_except_advised_infer() (NULL when THP is on or
 * the origin is unknown). */
const char *out_thp_state(char *buf, size_t cap, const struct thp_pstatus *s,
			  const struct thp_pstatus *origin);
/* What a process's THP state is made of, as columns and JSON members. */
enum out_pstate {
	OUT_PS_STATE,          /* out_thp_state() */
	OUT_PS_ENABLED,        /* yes, no on a kernel without THP, null where it does not say */
	OUT_PS_EXCEPT_ADVISED, /* PR_THP_DISABLE_EXCEPT_ADVISED inferred */
	OUT_PS_SET_BY_PID,     /* who set THP off or except-advised; null when nobody */
	OUT_PS_SET_BY,         /* its command name */
};
/* Part F of the THP state of process S (ORIGIN as out_thp_state() takes it),
 * its words in BUF. */
struct out_val out_pstate(enum out_pstate f, const struct thp_pstatus *s, const struct thp_pstatus *origin,
			  char *buf, size_t cap);

/* Columns of folio mapping: the summary PMD, MTHP (every PTE-mapped large
 * folio page), PTE_ALIGNED, PTE_UNALIGNED, PTE_PARTIAL (the first
 * OUT_FOLIO_SUMMARY, shown by default), then FOLIOS, every counter of
 * out_folio_counters() (an object in JSON). */
#define OUT_FOLIO_COLS 6
#define OUT_FOLIO_SUMMARY 5
extern const struct out_col out_folio_cols[OUT_FOLIO_COLS];
/* Lists the folio columns' names and help lines (more of a "Columns:" list). */
void out_folio_cols_help(void);
/* The value of folio column I (arg of its descriptor) for S, NULL: null. */
struct out_val out_folio_col(const struct thp_folio_stats *s, int i);
/* Copies the N columns COLS and then the folio columns into ALL (N +
 * OUT_FOLIO_COLS entries): what -o may name, the folio columns with --folios.
 * Their getter is GET, their arg the I of out_folio_col_value(). */
void out_cols_folios(struct out_col *all, const struct out_col *cols, int n, out_get_fn get);
/* Whether the NSEL columns SEL of ALL name a folio column (index N or more)
 * without FOLIOS; then "thp: CMD: column 'PMD' needs --folios" (exit 2). */
bool out_cols_folios_refused(const struct out_col *all, int n, const int *sel, int nsel,
			     bool folios);

/* Calls FN for each counter of S named as tools/mm/thpmaps names it
 * ("anon-thp-pmd-aligned-2048kB", "anon-thp-pte-aligned-64kB", ...,
 * "file-thp-pte-partial", then per --cont size "anon-cont-pmd-aligned-64kB",
 * "file-cont-pmd-aligned-64kB", "anon-cont-pte-aligned-64kB",
 * "file-cont-pte-aligned-64kB"), in that tool's order; values in bytes. */
typedef void (*out_counter_fn)(const char *name, uint64_t bytes, void *ctx);
void out_folio_counters(const struct thp_folio_stats *s, out_counter_fn fn, void *ctx);
/* The same counters as one JSON object. */
struct json_object *out_folio_json(const struct thp_folio_stats *s);

/* Calls FN for each node of T with the PMD-mapped and mTHP bytes of S there
 * (NODE -1: memory on no node of T, only when there is some). */
typedef void (*out_node_fn)(int node, uint64_t pmd, uint64_t mthp, void *ctx);
void out_folio_nodes(const struct thp_folio_stats *s, const struct thp_pfn_nodes *t, out_node_fn fn, void *ctx);

/* The folio_nodes array of S over T: {node, pmd, mthp} objects. */
struct json_object *out_folio_nodes_json(const struct thp_folio_stats *s, const struct thp_pfn_nodes *t);

/* Prints TEXT (escaped as out_escape() does for a terminal) prefixed by LABEL
 * (which may hold colour), wrapped at MAX columns, or at the terminal's width
 * when standard output is a narrower terminal, continuation lines indented. */
void out_wrap(const char *label, const char *text, int max);
/* An indented note ("  " and FMT's text) as out_wrap() prints it, at most
 * 100 columns wide. */
void out_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct thp_busy;
/* Prints that the host is busy (thp_busy_text) and that RESULT follows,
 * wrapped as out_wrap() does, then an empty line. */
void out_busy_warning(const struct thp_busy *b, const char *result);

struct modes;
/* Says on stderr, before anything is switched, which host-wide setting a
 * measurement under the modes M switches (now PRIOR), for how long (SPAN:
 * "for the 5 runs of the command under each mode"), and that it is put back. */
void out_modes_notice(const struct modes *m, const char *prior, const char *span);

/* Records ERR, the errno of a write to stdout that has just failed, for
 * thp_stdout_done (stdio forgets it). */
void thp_stdout_failed(int err);

/* Flushes stdout, remembering the first write error for thp_stdout_done.
 * Returns 0, or -1 when stdout cannot be written. */
int thp_flush(void);

/* The one check after every command: flushes and closes stdout; on a write
 * error (a full disk, a closed pipe) says "thp: write error: REASON" and
 * returns 1, else returns RC. */
int thp_stdout_done(int rc);

/* A count on standard error while long work runs on a terminal: nothing in
 * the first second, then "thp CMD: N UNIT" at most ten times a second, erased
 * by out_progress_end(). Off when standard error is not a terminal. */
struct out_progress {
	double start, last;
	bool tty, shown;
};
void out_progress_init(struct out_progress *p);
void out_progress(struct out_progress *p, const char *cmd, uint64_t n, const char *unit);
void out_progress_end(struct out_progress *p);

#endif
