/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_options.c - values users type: sizes ("2M"), setting keys
 * ("hugepages.64K.enabled"), severities (numbers: fuzz_arg.c) */
#include "core/doctor.h"
#include "core/keys.h"
#include "core/parse.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_str(data, size);
	uint64_t bytes;
	struct thp_key k;
	enum thp_severity sev;

	thp_parse_size(s, &bytes);
	thp_size_parse(s, strlen(s), &bytes);
	thp_key_parse(s, &k);
	thp_severity_parse(s, &sev);
	free(s);
	return 0;
}
