/* SPDX-License-Identifier: GPL-2.0-or-later */
/* switch.c - change the global THP policy for a measurement, and put it back */
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/parse.h"

#define ENABLED "sys/kernel/mm/transparent_hugepage/enabled"

/* Reads the choice list of 'enabled'. Returns 0 or -errno. */
static int read_enabled(const struct thp_root *root, struct thp_choice *c)
{
	char buf[256];
	ssize_t n = thp_read_buf(root, ENABLED, buf, sizeof(buf));

	if (n < 0)
		return (int)n;
	return thp_parse_choice(buf, c);
}

/* The prior policy recorded by an interrupted run, if its journal exists. */
static bool journal_prior(const struct thp_switch *s, char *out, size_t cap)
{
	char buf[512];
	const char *p;

	if (thp_read_buf(s->root, s->journal, buf, sizeof(buf)) <= 0)
		return false;
	for (p = buf; p; p = strchr(p, '\n')) {
		p += *p == '\n';
		if (strncmp(p, "enabled=", 8) == 0) {
			size_t n = strcspn(p + 8, " \t\n");
			if (!n || n >= cap)
				return false;
			memcpy(out, p + 8, n);
			out[n] = '\0';
			return true;
		}
	}
	return false;
}

/* Writes the journal in the KEY=VALUE form that 'thp restore FILE' reads. */
static int journal_write(const struct thp_switch *s)
{
	char text[256];
	int dir, err;

	snprintf(text, sizeof(text),
		 "# THP policy before thp switched it for a measurement; if thp was killed,\n"
		 "# 'thp restore /%s' puts it back\n"
		 "enabled=%s\n",
		 s->journal, s->prior);
	dir = thp_state_dir(s->root, true);
	if (dir < 0)
		return dir;
	err = thp_file_write(dir, THP_SWITCH_JOURNAL_NAME, text, 0600);
	close(dir);
	return err;
}

int thp_switch_begin(struct thp_switch *s, const struct thp_root *root,
		     const char *const *modes, const char **bad)
{
	struct thp_choice c;
	int err;

	memset(s, 0, sizeof(*s));
	s->root = root;
	snprintf(s->journal, sizeof(s->journal), "%s", THP_SWITCH_JOURNAL);
	*bad = NULL;
	err = read_enabled(root, &c);
	if (err)
		return err;
	for (int i = 0; modes[i]; i++) {
		if (thp_choice_find(&c, modes[i]) < 0) {
			*bad = modes[i];
			return -EINVAL;
		}
	}
	if (!journal_prior(s, s->prior, sizeof(s->prior)) || thp_choice_find(&c, s->prior) < 0)
		snprintf(s->prior, sizeof(s->prior), "%s", c.words[c.sel]);
	err = journal_write(s);
	if (err)
		return err;
	s->active = true;
	return 0;
}

int thp_switch_set(struct thp_switch *s, const char *mode)
{
	struct thp_choice c;
	int err = thp_write_file(s->root, ENABLED, mode);

	if (err)
		return err;
	err = read_enabled(s->root, &c);
	if (err)
		return err;
	return strcmp(c.words[c.sel], mode) ? -EIO : 0;
}

int thp_switch_end(struct thp_switch *s)
{
	int err;

	if (!s->active)
		return 0;
	err = thp_switch_set(s, s->prior);
	if (err)
		return err; /* the journal stays, for 'thp restore' */
	s->active = false;
	thp_root_unlink(s->root, s->journal);
	return 0;
}

void thp_switch_end_signal(struct thp_switch *s)
{
	int fd;

	if (!s->active)
		return;
	fd = thp_root_openat(s->root, ENABLED, O_WRONLY, 0);
	if (fd < 0)
		return;
	if (write(fd, s->prior, strlen(s->prior)) == (ssize_t)strlen(s->prior)) {
		s->active = false;
		thp_root_unlink(s->root, s->journal);
	}
	close(fd);
}
