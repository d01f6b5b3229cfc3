/* SPDX-License-Identifier: GPL-2.0-or-later */
/* color.c - colour of standard output (--color) and the terminal's width */
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

static bool color_on;

int out_color_parse(const char *word)
{
	static const char *const names[] = { [OUT_COLOR_AUTO] = "auto", [OUT_COLOR_ALWAYS] = "always",
					     [OUT_COLOR_NEVER] = "never" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (strcmp(word, names[i]) == 0)
			return i;
	return -1;
}

void out_color_init(enum out_color_mode mode)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (mode == OUT_COLOR_AUTO)
		color_on = isatty(STDOUT_FILENO) && !(no && *no) && !(term && strcmp(term, "dumb") == 0);
	else
		color_on = mode == OUT_COLOR_ALWAYS;
}

const char *out_color(enum out_hue h)
{
	static const char *const sgr[OUT_HUE_NHUES] = {
		[OUT_HUE_CRIT] = "\033[1;31m", /* bold red */
		[OUT_HUE_WARN] = "\033[1;33m", /* bold yellow */
		[OUT_HUE_INFO] = "\033[1;36m", /* bold cyan */
		[OUT_HUE_OFF] = "\033[33m",    /* yellow */
	};

	return color_on ? sgr[h] : "";
}

const char *out_color_end(void)
{
	return color_on ? "\033[0m" : "";
}

int out_term_width(int fallback, int max)
{
	struct winsize ws;
	int w = fallback;

	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		w = ws.ws_col;
	return w < max ? w : max;
}

int out_term_len(const char *s)
{
	int n = 0;

	while (*s) {
		if (*s == '\033' && s[1] == '[') {
			for (s += 2; *s && !(*s >= '@' && *s <= '~'); s++)
				;
			if (*s)
				s++;
			continue;
		}
		n += ((unsigned char)*s & 0xc0) != 0x80;
		s++;
	}
	return n;
}
