/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state.c - saved states and journals: the file format, and what a file
 * below a root says (this boot or an earlier one, a change still running) */
#include "state.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "parse.h"

uint32_t thp_cksum(const char *buf, size_t len)
{
	uint32_t crc = 0;

	/* the length follows the data, least significant byte first, as many bytes as it needs */
	for (size_t i = 0, n = len;; i++) {
		unsigned char c;

		if (i < len)
			c = (unsigned char)buf[i];
		else if (n)
			c = (unsigned char)(n & 0xff), n >>= 8;
		else
			break;
		crc ^= (uint32_t)c << 24;
		for (int b = 0; b < 8; b++)
			crc = crc & 0x80000000u ? (crc << 1) ^ 0x04c11db7u : crc << 1;
	}
	return ~crc;
}

struct parse {
	const char *buf;
	struct thp_state *s;
	bool ended;
	char *why;
	size_t cap;
};

/* Fails line LINE of P with the reason FMT. Returns LINE. */
__attribute__((format(printf, 3, 4))) static int fail(struct parse *p, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->cap, fmt, ap);
	va_end(ap);
	return line;
}

/* A KEY=VALUE line (S, LEN trimmed). Returns 0 or LINE. */
static int setting_line(struct parse *p, const char *s, size_t len, int line)
{
	char key[THP_KEY_MAX], value[THP_VALUE_MAX];
	const char *v;
	size_t klen, vlen;
	const struct thp_kv *twice;
	struct thp_key k;

	if (!thp_split_kv(s, len, &s, &klen, &v, &vlen) || !klen || !vlen || klen >= sizeof(key) || vlen >= sizeof(value))
		return fail(p, line, "not KEY=VALUE of a THP setting");
	snprintf(key, sizeof(key), "%.*s", (int)klen, s);
	snprintf(value, sizeof(value), "%.*s", (int)vlen, v);
	if (thp_key_parse(key, &k) || (k.d->place == THP_PLACE_SIZE && !k.size))
		return fail(p, line, "not KEY=VALUE of a THP setting");
	thp_key_format(&k, key, sizeof(key));
	twice = thp_kv_get(&p->s->values, key);
	if (twice)
		return fail(p, line, "'%s' is given twice (lines %d and %d)", key, twice->line, line);
	return thp_kv_set(&p->s->values, key, value, line) ? fail(p, line, "too many settings") : 0;
}

/* The end line "end N CKSUM" at S (LEN bytes; the file's bytes before it
 * are P->buf up to S). Returns 0 or LINE. */
static int end_line(struct parse *p, const char *s, size_t len, int line)
{
	char text[64];
	int n;
	unsigned long sum;

	snprintf(text, sizeof(text), "%.*s", (int)(len < 63 ? len : 63), s);
	if (sscanf(text, "end %d %lu", &n, &sum) != 2)
		return fail(p, line, "a malformed end line");
	if (n != p->s->values.n)
		return fail(p, line, "the end line counts %d settings, the file holds %d", n,
			    p->s->values.n);
	if (sum != thp_cksum(p->buf, (size_t)(s - p->buf)))
		return fail(p, line, "the checksum does not match: the file was changed or damaged");
	p->ended = true;
	return 0;
}

/* What follows the first word of TEXT when that word is WORD, or NULL. */
static const char *after(const char *text, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(text, word, n) != 0 || (text[n] && text[n] != ' '))
		return NULL;
	return text + n + (text[n] == ' ');
}

/* A line of the header of a file with a version (boot, owner, command).
 * Returns 0, LINE on a malformed one, or -1 when it is no header line. */
static int header_line(struct parse *p, const char *s, size_t len, int line)
{
	struct thp_state *st = p->s;
	char text[320];
	const char *rest;
	int pid;

	snprintf(text, sizeof(text), "%.*s", (int)(len < sizeof(text) - 1 ? len : sizeof(text) - 1), s);
	if ((rest = after(text, "boot"))) {
		snprintf(st->boot, sizeof(st->boot), "%s", strcmp(rest, "unknown") ? rest : "");
	} else if ((rest = after(text, "owner"))) {
		if (sscanf(rest, "%d %llu", &pid, &st->owner_start) != 2 || pid <= 0)
			return fail(p, line, "a malformed owner line");
		st->owner = pid;
	} else if ((rest = after(text, "time"))) {
		struct tm tm = { 0 };
		char *end = strptime(rest, "%Y-%m-%dT%H:%M:%SZ", &tm);
		if (!end || *end)
			return fail(p, line, "a malformed time line");
		st->time = (long long)timegm(&tm);
	} else if ((rest = after(text, "command"))) {
		snprintf(st->command, sizeof(st->command), "%s", rest);
	} else {
		return -1;
	}
	return 0;
}

static int parse_line(const char *s, size_t len, int line, void *ctx)
{
	struct parse *p = ctx;
	int rc;

	if (p->ended)
		return fail(p, line, "text after the end line");
	if (line == 1 && strncmp(s, "thp-state ", 10) == 0) {
		if (sscanf(s + 10, "%d", &p->s->version) != 1 || p->s->version < 1)
			return fail(p, line, "a malformed version line");
		if (p->s->version > THP_STATE_VERSION)
			return fail(p, line, "format version %d, newer than this thp reads (%d)",
				    p->s->version, THP_STATE_VERSION);
		return 0;
	}
	thp_trim(&s, &len);
	if (len == 0 || *s == '#')
		return 0;
	if (p->s->version && len > 4 && strncmp(s, "end ", 4) == 0)
		return end_line(p, s, len, line);
	if (p->s->version && (rc = header_line(p, s, len, line)) >= 0)
		return rc;
	return setting_line(p, s, len, line);
}

int thp_state_parse(const char *buf, size_t len, struct thp_state *s, int *line, char *why,
		    size_t cap)
{
	struct parse p = { NULL, s, false, why, cap };

	memset(s, 0, sizeof(*s));
	why[0] = '\0';
	*line = 0;
	if (memchr(buf, '\0', len)) {
		snprintf(why, cap, "it holds a NUL byte: not a text file");
		return -EINVAL;
	}
	p.buf = strndup(buf, len);
	if (!p.buf) {
		snprintf(why, cap, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	*line = thp_each_line(p.buf, parse_line, &p);
	free((char *)p.buf);
	if (*line)
		return -EINVAL;
	if (s->version && !p.ended)
		snprintf(why, cap, "it has no end line: the file is cut short");
	else if (s->values.n == 0)
		snprintf(why, cap, "it holds no setting");
	return why[0] ? -EINVAL : 0;
}

#define CUT_MARK "..." /* ends a command cut to fit */

void thp_state_command(struct thp_state *s, const char *cmdline, size_t len)
{
	size_t n = 0, end = sizeof(s->command) - sizeof(CUT_MARK);

	s->command[0] = '\0';
	for (size_t i = 0; i < len; i += strnlen(cmdline + i, len - i) + 1) {
		const char *arg = cmdline + i, *slash = i ? NULL : memrchr(arg, '/', strnlen(arg, len));
		thp_put(s->command, sizeof(s->command), &n, "%s%.*s", i ? " " : "",
		    (int)strnlen(slash ? slash + 1 : arg, len - i), slash ? slash + 1 : arg);
	}
	if (n < sizeof(s->command))
		return;
	/* cut before the character at END: back over at most 3 UTF-8 continuation bytes */
	for (int k = 0; k < 3 && ((unsigned char)s->command[end] & 0xC0) == 0x80; k++)
		end--;
	memcpy(s->command + end, CUT_MARK, sizeof(CUT_MARK));
}

char *thp_state_format(const struct thp_state *s, const char *comment)
{
	size_t cap = 1024 + 2 * strlen(comment) + (size_t)s->values.n * (THP_KEY_MAX + THP_VALUE_MAX + 2);
	char *buf = malloc(cap), command[sizeof(s->command)];
	size_t len = 0;

	if (!buf)
		return NULL;
	snprintf(command, sizeof(command), "%s", s->command);
	for (char *c = command; *c; c++)
		if (iscntrl((unsigned char)*c))
			*c = '?'; /* one line */
	thp_put(buf, cap, &len, "thp-state %d\nboot %s\n", THP_STATE_VERSION, s->boot[0] ? s->boot : "unknown");
	if (s->time) {
		time_t t = (time_t)s->time;
		struct tm tm;
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
		thp_put(buf, cap, &len, "time %s\n", when);
	}
	if (s->owner)
		thp_put(buf, cap, &len, "owner %d %llu\n", (int)s->owner, s->owner_start);
	thp_put(buf, cap, &len, "command %s\n", command);
	for (const char *p = comment; *p;) {
		size_t n = strcspn(p, "\n");
		thp_put(buf, cap, &len, "# %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
	for (int i = 0; i < s->values.n; i++)
		thp_put(buf, cap, &len, "%s=%s\n", s->values.v[i].key, s->values.v[i].value);
	if (len < cap)
		thp_put(buf, cap, &len, "end %d %u\n", s->values.n, thp_cksum(buf, len));
	if (len >= cap) {
		free(buf);
		return NULL;
	}
	return buf;
}

void thp_boot_id(const struct thp_root *root, char *buf, size_t cap)
{
	char id[THP_BOOT_ID_MAX + 8];
	ssize_t n = thp_read_buf(root, "proc/sys/kernel/random/boot_id", id, sizeof(id));
	size_t len = n > 0 ? strcspn(id, "\n") : 0;

	snprintf(buf, cap, "%.*s", (int)(len < THP_BOOT_ID_MAX ? len : 0), id);
}

int thp_stat_start_parse(const char *buf, unsigned long long *start)
{
	const char *p = strrchr(buf, ')'); /* the command name may hold anything */

	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p && sscanf(p + 1, "%llu", start) == 1 ? 0 : -EINVAL;
}

bool thp_lock_holder_read(const struct thp_root *root, struct thp_lock_holder *h)
{
	int fd = thp_root_openat(root, THP_LOCK, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0), pid;
	char buf[sizeof(h->command) + 32];
	ssize_t n;
	bool locked;

	memset(h, 0, sizeof(*h));
	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (sscanf(buf, "%d %255[^\n]", &pid, h->command) >= 1 && pid > 0)
		h->pid = pid;
	/* a shared lock is refused while a writer holds the lock (this one too) */
	locked = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd);
	if (!locked)
		memset(h, 0, sizeof(*h));
	return locked;
}

/* Parses BUF (LEN bytes) into F and judges it against the system below ROOT:
 * a journal is a change running now when its owner holds the writers' lock
 * (under --root too: a thp working on a tree is no process of the tree's proc/). */
static void judge(const struct thp_root *root, const char *buf, size_t len, struct thp_state_file *f)
{
	struct thp_lock_holder h;

	if (thp_state_parse(buf, len, &f->s, &f->line, f->why, sizeof(f->why)) != 0) {
		f->status = THP_STATE_DAMAGED;
		return;
	}
	thp_boot_id(root, f->boot_now, sizeof(f->boot_now));
	if (f->s.boot[0] && f->boot_now[0] && strcmp(f->s.boot, f->boot_now) != 0)
		f->status = THP_STATE_OTHER_BOOT;
	else if (f->s.owner && thp_lock_holder_read(root, &h) && h.pid == f->s.owner &&
		 h.pid != getpid())
		f->status = THP_STATE_RUNNING;
	else
		f->status = THP_STATE_CURRENT;
}

/* Fills F for a file read into BUF (LEN bytes) with result ERR. */
static void loaded(const struct thp_root *root, int err, char *buf, size_t len, struct thp_state_file *f)
{
	memset(f, 0, sizeof(*f));
	if (err == -ENOENT) {
		f->status = THP_STATE_ABSENT;
	} else if (err) {
		f->status = THP_STATE_DAMAGED;
		f->err = err;
		snprintf(f->why, sizeof(f->why), "%s", thp_read_strerror(err));
	} else {
		judge(root, buf, len, f);
	}
	free(buf);
}

void thp_state_load(const struct thp_root *root, const char *rel, struct thp_state_file *f)
{
	char *buf = NULL;
	size_t len = 0;
	int err = thp_read(root, rel, &buf, &len);

	loaded(root, err, buf, len, f);
}

void thp_state_load_user(const struct thp_root *root, const char *path, struct thp_state_file *f)
{
	char *buf = NULL;
	size_t len = 0;
	int err = thp_read_user(path, &buf, &len);

	loaded(root, err, buf, len, f);
}
