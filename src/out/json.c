// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pieces of JSON every composer writes alike (the summary in report.c, --by in groups.c,
 * -a in attrs.c, the names in files.c): a string, escaped as escape.c says, and the members of
 * a walk's result that more than one document carries.
 */
#include <stdio.h>

#include "memstat_int.h"
#include "escape.h"

/* a JSON string, names escaped as escape.c says (s NULL: "") */
void ms_json_string(FILE *out, const char *s)
{
	fputc('"', out);
	ms_esc_fputs(out, s, MS_ESC_JSON);
	fputc('"', out);
}

void ms_json_moved_pages(FILE *out, const struct ms_result *r)
{
	if (r->moved_pages >= 0)
		fprintf(out, "\"moved_pages\":%lld", r->moved_pages);
	else
		fputs("\"moved_pages\":null", out);
}
