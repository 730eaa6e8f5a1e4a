/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* memstat --by process: its table and JSON document (procs_out.c) of what procs.c read. */
#ifndef MEMSTAT_PROCS_OUT_H
#define MEMSTAT_PROCS_OUT_H

#include <stdio.h>

#include "memstat_int.h"
#include "procs.h"

void ms_procs_print(FILE *out, const struct ms_procs *ps);
struct ms_wss;
/* wss: --wss's window, its summary beside the processes (NULL: none) */
void ms_procs_json(FILE *out, const struct ms_procs *ps, const struct ms_result *r,
		   const struct ms_wss *wss);
/* a JSON-lines row's fields ("by", the rows, "other", "all", "left_out"), without braces */
struct ms_jw;
void ms_procs_json_fields(struct ms_jw *w, const struct ms_procs *ps);
/* the Prometheus series of the rows shown and (other) */
void ms_procs_prom(FILE *out, const struct ms_procs *ps);

#endif /* MEMSTAT_PROCS_OUT_H */
