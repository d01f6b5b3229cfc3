/* SPDX-License-Identifier: GPL-2.0-or-later */
/* interrupts.c - the TLB shootdown row of /proc/interrupts */
#include "interrupts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Length of the token at *P (after skipping spaces), which is moved past it. */
static size_t token(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	*p = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	return (size_t)(s - *p);
}

/* Counts the "CPUn" names of header line [P, END). Returns the count, or
 * -EINVAL when a word is something else or there is none. */
static int header_cpus(const char *p, const char *end)
{
	int n = 0;
	size_t len;

	while ((len = token(&p, end)) > 0) {
		if (len < 4 || strncmp(p, "CPU", 3) != 0 || strspn(p + 3, "0123456789") < len - 3)
			return -EINVAL;
		p += len;
		if (++n > 1 << 20)
			return -EINVAL;
	}
	return n ? n : -EINVAL;
}

/* Sums the NCPUS counts that follow "TLB:" in line [P, END) into *SUM.
 * Returns 0, -EINVAL or -ERANGE. */
static int row_sum(const char *p, const char *end, int ncpus, uint64_t *sum)
{
	*sum = 0;
	for (int i = 0; i < ncpus; i++) {
		char num[24];
		uint64_t v;
		size_t len = token(&p, end);

		if (len == 0 || len >= sizeof(num) || strspn(p, "0123456789") < len)
			return -EINVAL;
		memcpy(num, p, len);
		num[len] = '\0';
		if (thp_parse_u64(num, &v))
			return -EINVAL;
		if (v > UINT64_MAX - *sum)
			return -ERANGE;
		*sum += v;
		p += len;
	}
	return 0;
}

/* thp_tlb_irqs_parse() without clearing T on failure. */
static int parse(const char *buf, struct thp_tlb_irqs *t)
{
	const char *nl = strchr(buf, '\n'), *end = nl ? nl : buf + strlen(buf);

	memset(t, 0, sizeof(*t));
	t->ncpus = header_cpus(buf, end);
	if (t->ncpus < 0)
		return t->ncpus;
	for (const char *s = nl ? nl + 1 : end; *s; s = *end ? end + 1 : end) {
		const char *p = s;
		size_t len;
		int err;

		end = strchr(s, '\n');
		if (!end)
			end = s + strlen(s);
		len = token(&p, end);
		if (len != 4 || strncmp(p, "TLB:", 4) != 0)
			continue;
		if (t->present)
			return -EINVAL;
		err = row_sum(p + 4, end, t->ncpus, &t->total);
		if (err)
			return err;
		t->present = true;
	}
	return 0;
}

int thp_tlb_irqs_parse(const char *buf, struct thp_tlb_irqs *t)
{
	int err = parse(buf, t);

	if (err)
		memset(t, 0, sizeof(*t));
	return err;
}

int thp_tlb_irqs_read(const struct thp_root *root, struct thp_tlb_irqs *t)
{
	char *buf;
	size_t len;
	int err = thp_read(root, "proc/interrupts", &buf, &len);

	memset(t, 0, sizeof(*t));
	if (err)
		return err;
	err = thp_tlb_irqs_parse(buf, t);
	free(buf);
	return err;
}
