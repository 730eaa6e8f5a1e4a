// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat -a's output: the attributes table under the summary, the lines of the
 * reconciliation that cannot be reconciled, the JSON member "attributes", the sampling log's
 * CSV columns and the Prometheus series. What they show is counted by attrs.c.
 */
#include <stdio.h>
#include <unistd.h>

#include "memstat_int.h"
#include "attrs.h"
#include "attrs_int.h"
#include "json.h"

/* ---- output ---- */

/* the classes with state (free pages have none) */
static const enum ms_class table_cls[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
					   MS_C_PAGE_CACHE, MS_C_HUGETLB };
#define NT (sizeof(table_cls) / sizeof(table_cls[0]))

void ms_attrs_print(FILE *out, const struct ms_attrs *a)
{
	static const char *head[NT] = { "Kernel", "Anon", "Shmem", "Exec/libs", "Page cache",
					"Hugetlb" };
	size_t i;
	int k;

	fprintf(out, "%-16s", "Page Attributes");
	for (i = 0; i < NT; i++)
		fprintf(out, " %11s", head[i]);
	fprintf(out, " %12s %10s\n", "Total", "MB");
	fprintf(out, "%-16s", "---------------");
	for (i = 0; i < NT; i++)
		fprintf(out, " %11s", "-----------");
	fprintf(out, " %12s %10s\n", "------------", "----------");
	for (k = 0; k < MS_NR_ATTRS; k++) {
		__u64 t = ms_attrs_total(a, (enum ms_attr)k);

		fprintf(out, "%-16s", ms_attr_names[k].key);
		if (ms_attr_unknown(&a->f, (enum ms_attr)k)) {
			for (i = 0; i < NT; i++)
				fprintf(out, " %11s", "unknown");
			fprintf(out, " %12s %10s\n", "unknown", "-");
			continue;
		}
		for (i = 0; i < NT; i++)
			fprintf(out, " %11llu", (unsigned long long)a->cls[table_cls[i]][k]);
		fprintf(out, " %12llu %10.0f\n", (unsigned long long)t,
			(double)t * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0));
	}
	fputs("(pages; a page can have several attributes. LRU lists: only pages on one "
	      "(PG_lru) are\n active, inactive or unevictable; THP: folios of PMD order, "
	      "as meminfo's *HugePages)\n", out);
	if (!ms_attr_unknown(&a->f, MS_A_DIRTY) && a->acct_dirty != ms_attrs_total(a, MS_A_DIRTY))
		fprintf(out, "(dirty: every page marked dirty; meminfo's Dirty is only the page "
			"cache that writeback\n accounts, %llu pages here: shmem and anon stay "
			"dirty until swapped out)\n", (unsigned long long)a->acct_dirty);
	for (k = 0, i = 0; k < MS_NR_ATTRS; k++)
		if (ms_attr_unknown(&a->f, (enum ms_attr)k))
			fprintf(out, "%s%s", i++ ? ", " : "(unknown, for the kernel's BTF does not "
				"name a page flag they need: ", ms_attr_names[k].key);
	if (i)
		fputs(")\n", out);
	if (a->f.mglru)
		fputs("(MGLRU is enabled: its folios keep a generation, not PG_active, so active_* "
		      "counts only\n pages off its lists; active + inactive is the pages on the LRU "
		      "lists)\n", out);
	fprintf(out, "Folio order   ");
	for (k = 0; k < MS_ATTR_ORDERS; k++)
		if (a->orders[k])
			fprintf(out, " %d:%llu", k, (unsigned long long)a->orders[k]);
	fputs("  (pages of allocated folios, hugetlb pool included)\n", out);
}

static void json_attrs(struct ms_jw *w, const struct ms_attr_facts *f, const __u64 *v)
{
	int k;

	for (k = 0; k < MS_NR_ATTRS; k++)
		if (ms_attr_unknown(f, (enum ms_attr)k))
			ms_jw_null_field(w, ms_attr_names[k].key);
		else
			ms_jw_u64_field(w, ms_attr_names[k].key, v[k]);
}

void ms_attrs_json(struct ms_jw *w, const struct ms_attrs *a)
{
	__u64 tot[MS_NR_ATTRS];
	char order[16];
	int c, k;

	for (k = 0; k < MS_NR_ATTRS; k++)
		tot[k] = ms_attrs_total(a, (enum ms_attr)k);
	ms_jw_object_field(w, "attributes");
	json_attrs(w, &a->f, tot);
	if (ms_attr_unknown(&a->f, MS_A_DIRTY))
		ms_jw_null_field(w, "dirty_file");
	else
		ms_jw_u64_field(w, "dirty_file", a->acct_dirty);
	ms_jw_bool_field(w, "mglru", a->f.mglru);
	ms_jw_u64_field(w, "thp_order", a->f.pmd_order);
	ms_jw_object_field(w, "by_class");
	for (c = 0; c < MS_NR_CLASSES; c++) {
		ms_jw_object_field(w, ms_classes[c].key);
		json_attrs(w, &a->f, a->cls[c]);
		ms_jw_end_object(w);
	}
	ms_jw_end_object(w);
	ms_jw_object_field(w, "folio_orders");
	for (k = 0; k < MS_ATTR_ORDERS; k++)
		if (a->orders[k]) {
			snprintf(order, sizeof(order), "%d", k);
			ms_jw_u64_field(w, order, a->orders[k]);
		}
	ms_jw_end_object(w);
	/* the attributes that are null, and why: only where some are */
	for (k = 0, c = 0; k < MS_NR_ATTRS; k++) {
		const char *why = ms_attr_unknown(&a->f, (enum ms_attr)k);

		if (!why)
			continue;
		if (!c++)
			ms_jw_object_field(w, "unknown");
		ms_jw_string_field(w, ms_attr_names[k].key, why);
	}
	if (c)
		ms_jw_end_object(w);
	ms_jw_end_object(w);
}

void ms_attrs_print_unreconciled(FILE *out, const struct ms_attrs *a)
{
	if (!a || !a->valid) {
		fprintf(out, "  %-36s %10s  need -a (the per-page record walk; bpf or kmod)\n",
			"Dirty ... FileHugePages", "-");
		return;
	}
	for (int k = 0; k < MS_NR_ATTRS; k++)
		if (ms_attr_unknown(&a->f, (enum ms_attr)k))
			fprintf(out, "  %-36s %10s  unknown: %s\n", ms_attr_names[k].key, "-",
				ms_attr_unknown(&a->f, (enum ms_attr)k));
	if (a->f.mglru)
		fprintf(out, "  %-36s %10s  MGLRU: meminfo's active are its two youngest "
			"generations, which no page flag shows\n", "Active/Inactive apart", "-");
	fprintf(out, "  %-36s %10llu  no counter: folio_maybe_dma_pinned() is all the kernel "
		"has\n", "DMA-pinned", (unsigned long long)ms_attrs_total(a, MS_A_DMA_PINNED));
}

/* ---- sampling: csv columns and Prometheus metric (-a) ---- */

void ms_attrs_csv_header(FILE *out)
{
	int c, k;

	for (k = 0; k < MS_NR_ATTRS; k++)
		fprintf(out, ",attr_%s", ms_attr_names[k].key);
	for (c = 0; c < MS_NR_CLASSES; c++)
		for (k = 0; k < MS_NR_ATTRS; k++)
			fprintf(out, ",attr_%s_%s", ms_classes[c].key, ms_attr_names[k].key);
}

void ms_attrs_csv_row(FILE *out, const struct ms_attrs *a)
{
	int c, k;

	/* an attribute that cannot be told is an empty field */
	for (k = 0; k < MS_NR_ATTRS; k++)
		if (ms_attr_unknown(&a->f, (enum ms_attr)k))
			fputc(',', out);
		else
			fprintf(out, ",%llu", (unsigned long long)ms_attrs_total(a, (enum ms_attr)k));
	for (c = 0; c < MS_NR_CLASSES; c++)
		for (k = 0; k < MS_NR_ATTRS; k++)
			if (ms_attr_unknown(&a->f, (enum ms_attr)k))
				fputc(',', out);
			else
				fprintf(out, ",%llu", (unsigned long long)a->cls[c][k]);
}

void ms_attrs_prom(FILE *out, const struct ms_attrs *a)
{
	int c, k;

	fputs("# HELP memstat_attribute_pages Pages of a class with an attribute (memstat -a).\n"
	      "# TYPE memstat_attribute_pages gauge\n", out);
	for (c = 0; c < MS_NR_CLASSES; c++)
		for (k = 0; k < MS_NR_ATTRS; k++)
			if (!ms_attr_unknown(&a->f, (enum ms_attr)k))	/* unknown: no series */
				fprintf(out, "memstat_attribute_pages{class=\"%s\",attribute=\"%s\"} %llu\n",
				ms_classes[c].key, ms_attr_names[k].key,
				(unsigned long long)a->cls[c][k]);
}
