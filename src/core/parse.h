/* SPDX-License-Identifier: GPL-2.0-or-later */
/* parse.h - parsers of kernel text; each takes a NUL-terminated buffer, never a file */
#ifndef THP_PARSE_H
#define THP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define THP_CHOICES_MAX 16
#define THP_WORD_MAX 24

/* A sysfs choice list such as "always [madvise] never". */
struct thp_choice {
	int n;   /* number of words */
	int sel; /* index of the bracketed word */
	char words[THP_CHOICES_MAX][THP_WORD_MAX];
};

/* Parses a choice list with exactly one bracketed word.
 * Returns 0, or -EINVAL when brackets are missing, doubled or unbalanced,
 * or -E2BIG when there are too many words or a word is too long. */
int thp_parse_choice(const char *buf, struct thp_choice *c);

/* Index of WORD in C, or -1. */
int thp_choice_find(const struct thp_choice *c, const char *word);

/* Parses one unsigned decimal integer with optional surrounding whitespace.
 * Returns 0, -EINVAL (empty, negative, garbage) or -ERANGE (past 2^64-1). */
int thp_parse_u64(const char *buf, uint64_t *v);

/* Parses one hexadecimal number (up to 16 digits, an optional 0x) at *P and
 * advances *P past it. Returns 0 or -EINVAL. */
int thp_parse_hex(const char **p, uint64_t *v);

/* Called for each "key value" pair; return non-zero to stop. */
typedef int (*thp_kv_fn)(const char *key, size_t klen, uint64_t val, void *ctx);

/* Parses /proc/vmstat style "name value" lines. Lines that do not parse are
 * skipped. Returns 0, or what FN returned when it stopped the walk. */
int thp_parse_vmstat(const char *buf, thp_kv_fn fn, void *ctx);

/* Parses /proc/meminfo and smaps_rollup style "Name:   value [kB]" lines;
 * values with a kB unit are passed on in bytes. Other lines are skipped. */
int thp_parse_meminfo(const char *buf, thp_kv_fn fn, void *ctx);

/* Called for each kernel command-line parameter; VAL is NULL for a flag. */
typedef int (*thp_param_fn)(const char *key, size_t klen, const char *val, size_t vlen,
			    void *ctx);

/* Splits /proc/cmdline into parameters (double quotes group spaces) and stops
 * at a lone "--", after which the arguments belong to init. */
int thp_parse_cmdline(const char *buf, thp_param_fn fn, void *ctx);

/* Parses "major.minor[.patch][-extra]" of a kernel release. Returns 0 or -EINVAL. */
int thp_parse_release(const char *buf, int *major, int *minor);

/* Parses the "hugepages-<N>kB" directory name. Returns N or 0 when it does not match. */
uint64_t thp_parse_size_dir(const char *name);

/* Parses a size a user typed: bytes, or a number with a binary unit K, M, G, T
 * (also written KB/KiB/kB, case-insensitive): "2M", "64K", "1G", "2048kB".
 * Returns 0, -EINVAL (empty, garbage, unknown unit) or -ERANGE. */
int thp_parse_size(const char *buf, uint64_t *bytes);

/* Writes B in the largest binary unit that divides it ("2 MiB", "64 KiB",
 * "4095 B") into BUF; returns BUF. */
const char *thp_size_words(uint64_t b, char *buf, size_t cap);

/* Splits [P, END) at blanks into at most MAX fields (start F[i], length
 * LEN[i]). Returns the number of fields found. */
int thp_split_fields(const char *p, const char *end, const char **f, size_t *len, int max);

/* Copies N bytes of S into DST (cut at CAP-1), turning the octal escapes the
 * kernel writes in mount paths ("\040" for a space) back into bytes. */
void thp_unescape_octal(char *dst, size_t cap, const char *s, size_t n);

/* Finds option KEY ("pagesize", "huge") in a comma-separated mount option list
 * OPTS and copies its value into VAL (cut at CAP-1). Returns 0, or -ENOENT. */
int thp_mount_option(const char *opts, const char *key, char *val, size_t cap);

/* Appends printf output of FMT to BUF (CAP bytes) at *LEN and adds its length
 * to *LEN; once *LEN reaches CAP the text was cut and later calls add nothing. */
__attribute__((format(printf, 4, 5))) void thp_put(char *buf, size_t cap, size_t *len, const char *fmt, ...);

/* Trims spaces at both ends of [*S, *S+*LEN). */
void thp_trim(const char **s, size_t *len);

/* Splits the line S (LEN bytes) at its first '=' into a name *K (*KN bytes)
 * and a value *V (*VN bytes), both trimmed. False when it has no '='. */
bool thp_split_kv(const char *s, size_t len, const char **k, size_t *kn, const char **v, size_t *vn);

/* Calls FN for each line of the NUL-terminated BUF with its 1-based number
 * (without the newline); stops at, and returns, a non-zero return of FN. */
int thp_each_line(const char *buf, int (*fn)(const char *s, size_t len, int line, void *ctx),
		  void *ctx);

#endif
