// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --by KEY, the output of the groups the engine (groups.c) made: the table, the JSON
 * document, a JSON-lines row's fields and the Prometheus series; and each key's own JSON
 * members and table columns (by_outs[], at the end).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "memstat_int.h"
#include "json.h"
#include "wss.h"
#include "report.h"
#include "escape.h"
#include "files.h"
#include "slabs.h"
#include "groups.h"
#include "groups_int.h"

/*
 * What each key shows of its groups besides their pages: its JSON members (node, zone, fs,
 * cgroup, file and exec) and its table columns (fs, file, exec). The keys themselves (which page
 * belongs to which group, the groups' names) are groups.c's and files.c's.
 */
struct by_out {
	/* the key's members of a group's JSON object */
	void (*json)(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp);
	void (*cols_head)(FILE *out);	/* extra table columns (before the name), or NULL */
	void (*cols)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
	/* labels of its Prometheus series besides by, group and key (",name=\"value\""...) */
	void (*prom_labels)(FILE *out, const struct ms_groups *g, const struct ms_group *grp);
};
static const struct by_out by_outs[MS_NR_BY];

static __u64 class_of(const struct ms_group *x, enum ms_class c)
{
	__u64 n = 0;

	for (int j = 0; j < MS_NR_SUBS; j++)
		if (ms_subs[j].cls == c)
			n += x->sub[j];
	return n;
}

/* the 7 classes of the table and the JSON (the kpageflags backend's unknown has no records) */
static const enum ms_class shown_classes[] = { MS_C_KERNEL, MS_C_ANON, MS_C_SHMEM, MS_C_EXEC,
					       MS_C_PAGE_CACHE, MS_C_HUGETLB, MS_C_FREE };
#define NSHOWN (sizeof(shown_classes) / sizeof(shown_classes[0]))

static const char *const col_label[] = { "Kernel", "Anon", "Shmem", "Exec", "Cache",
					 "Hugetlb", "Free" };

/*
 * -a: the attribute columns of the table (MB), after the classes: dirty, mlocked, THP (of
 * every class: anon_thp + shmem_thp + file_thp) and DMA-pinned; "-" for one the kernel's BTF
 * does not tell
 */
static const struct {
	const char *head;
	enum ms_attr a, b, c;	/* summed; MS_NR_ATTRS: none */
} attr_cols[] = {
	{ "Dirty", MS_A_DIRTY, MS_NR_ATTRS, MS_NR_ATTRS },
	{ "Mlocked", MS_A_MLOCKED, MS_NR_ATTRS, MS_NR_ATTRS },
	{ "THP", MS_A_ANON_THP, MS_A_SHMEM_THP, MS_A_FILE_THP },
	{ "Pinned", MS_A_DMA_PINNED, MS_NR_ATTRS, MS_NR_ATTRS },
};

static bool attr_known(const struct ms_groups *g, enum ms_attr k)
{
	return k == MS_NR_ATTRS || !ms_attrs_unknown(g->attrs, k);
}

static void attr_cells(FILE *out, const struct ms_groups *g, const struct ms_group *x)
{
	for (size_t i = 0; i < sizeof(attr_cols) / sizeof(attr_cols[0]); i++) {
		enum ms_attr k[3] = { attr_cols[i].a, attr_cols[i].b, attr_cols[i].c };
		__u64 n = 0;
		bool known = true;

		for (int j = 0; j < 3; j++) {
			known &= attr_known(g, k[j]);
			if (k[j] != MS_NR_ATTRS)
				n += x->attr[k[j]];
		}
		if (known)
			fprintf(out, " %8.0f", ms_mb(n));
		else
			fprintf(out, " %8s", "-");
	}
}

/* --wss on DAMON: each cgroup's counts are DAMON's, not the walk's verdicts */
static bool damon_groups(const struct ms_groups *g)
{
	return g->wss && g->wss->mech == MS_WSS_DAMON;
}

/* --by cgroup or pod --wss: whether x's row has its cgroup's paging (not (other)'s) */
static bool has_cgroup_paging(const struct ms_groups *g, const struct ms_group *x)
{
	return (g->by == MS_BY_CGROUP || g->by == MS_BY_POD) && g->wss->cgroup_paging &&
	       x != &g->other;
}

static void table_row(FILE *out, const struct ms_groups *g, const struct ms_group *x)
{
	const struct cgroup_extra *e = g->by == MS_BY_CGROUP ? x->extra : NULL;
	struct ms_group t;
	int indent = 0;
	size_t c;

	if (e && e->tree) {	/* cgroup --tree: the subtree's pages, indented by depth */
		t = *x;
		memcpy(t.sub, e->sub, sizeof(t.sub));
		t.total = e->total;
		memcpy(t.attr, e->attr, sizeof(t.attr));
		memcpy(t.wss, e->wss, sizeof(t.wss));
		x = &t;
		indent = 2 * (int)e->depth;
	}

	fprintf(out, "%10.0f", ms_mb(x->total));
	for (c = 0; c < NSHOWN; c++) {
		__u64 n = class_of(x, shown_classes[c]);

		fprintf(out, " %8.0f %3.0f%%", ms_mb(n),
			x->total ? 100.0 * (double)n / (double)x->total : 0.0);
	}
	if (g->attrs)
		attr_cells(out, g, x);
	if (damon_groups(g)) {	/* DAMON: a cgroup not measured is "-"; sums measure the rest */
		bool none = x->k1 != NONE_KEY && x->damon_unmeasured;

		for (int v = 0; v < 2; v++)
			if (none)
				fprintf(out, " %8s", "-");
			else
				fprintf(out, " %8.0f", ms_mb(x->damon[0][v] + x->damon[1][v]));
		fprintf(out, " %8s", "-");
	} else {
		for (int v = 0; g->wss && v < MS_WSS_VERDICTS; v++)
			fprintf(out, " %8.0f", ms_mb(ms_wss_tracked_pages(x->wss[v])));
	}
	if (by_outs[g->by].cols)
		by_outs[g->by].cols(out, g, x);
	fprintf(out, "  %*s", indent, "");
	ms_esc_fputs(out, x->name, MS_ESC_TERM);
	fputc('\n', out);
}

void ms_groups_print(FILE *out, const struct ms_groups *g)
{
	static const char *const what[MS_NR_BY] = { "Cgroup", "Node", "Zone", "Mount", "File",
						     "File", "Slab cache",
						     "Pod/container" };
	struct ms_group total = { .name = (char *)"Total" };
	size_t i, c;

	for (i = 0; i < g->n; i++)
		ms_group_add(&total, &g->g[i]);
	fprintf(out, "%10s", "Total MB");
	for (c = 0; c < NSHOWN; c++)
		fprintf(out, " %8s %4s", col_label[c], "%");
	for (size_t k = 0; g->attrs && k < sizeof(attr_cols) / sizeof(attr_cols[0]); k++)
		fprintf(out, " %8s", attr_cols[k].head);
	if (g->wss)
		fprintf(out, " %8s %8s %8s", "Accessed", "Idle", "Unseen");
	if (by_outs[g->by].cols_head)
		by_outs[g->by].cols_head(out);
	fprintf(out, "  %s%s\n", what[g->by],
		g->tree && g->cgroups ? " (tree: each row is the cgroup and its descendants)" : "");
	for (i = 0; i < g->nshown; i++)
		table_row(out, g, &g->g[g->order[i]]);
	if (g->nother) {
		struct ms_group o = g->other;
		char name[64];

		snprintf(name, sizeof(name), "(other: %zu groups)", g->nother);
		o.name = name;
		o.k1 = NONE_KEY;
		table_row(out, g, &o);
	}
	total.k1 = NONE_KEY;
	table_row(out, g, &total);
	if (g->nremoved)
		fprintf(out, "(%zu removed cgroups of under 1 MB each are in (other): --min 0 shows "
			"them)\n", g->nremoved);
	fprintf(out, "(class columns in MB and %% of the row's total; Cache is page cache%s%s)\n",
		g->attrs ? "; Dirty, Mlocked, THP (anon, shmem and file) and Pinned (DMA): MB of "
		"the group's pages with these attributes of -a" : "",
		!g->wss ? "" : damon_groups(g) && g->by == MS_BY_NODE ? "; Accessed, Idle: MB of "
		"its anon and file-backed LRU pages in the window of --wss (DAMON: a kdamond per "
		"node)" : damon_groups(g) ? "; Accessed, Idle: MB of its anon and file-backed "
		"LRU pages in the window of --wss (DAMON: the root cgroup and the largest others; "
		"-: not measured)" : "; Accessed, Idle, Unseen: MB of its anon, shmem, exec and page "
		"cache in the window of --wss (the working set below)");
	if (damon_groups(g) && g->wss->damon_g_unmeasured)
		fprintf(out, "(DAMON measured %zu cgroups; %zu others with pages were not: their "
			"pages are in no row's Accessed or Idle)\n", g->wss->ndamon_g,
			g->wss->damon_g_unmeasured);
}

/* "pages" (the classes and total) and "detail" (the sub-classes but unknown, which has none) */
static void json_pages(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *x)
{
	size_t c;

	ms_jw_object_field(w, "pages");
	for (c = 0; c < NSHOWN; c++)
		ms_jw_u64_field(w, ms_classes[shown_classes[c]].key, class_of(x, shown_classes[c]));
	ms_jw_u64_field(w, "total", x->total);
	ms_jw_end_object(w);
	/* all but unknown (kpageflags has no --by) */
	ms_json_detail(w, "detail", x->sub, g->res && g->res->slab_split, true);
}

/* -a: "dma_pinned" (as before) and "attributes": pages per attribute, null where unknown */
static void json_attrs(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *x)
{
	if (!g->attrs)
		return;
	ms_jw_u64_field(w, "dma_pinned", x->attr[MS_A_DMA_PINNED]);
	ms_jw_object_field(w, "attributes");
	for (int k = 0; k < MS_NR_ATTRS; k++)
		if (attr_known(g, (enum ms_attr)k))
			ms_jw_u64_field(w, ms_attr_names[k].key, x->attr[k]);
		else
			ms_jw_null_field(w, ms_attr_names[k].key);
	ms_jw_end_object(w);
}

/* --wss: "wss": pages accessed, idle and unseen per class (null: a class it cannot see) */
static void json_wss(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *x,
		     bool paging)
{
	if (!g->wss)
		return;
	ms_jw_object_field(w, "wss");
	if (damon_groups(g)) {	/* a group of cgroups (other): what DAMON measured of them */
		ms_wss_damon_verdicts_json(w, x->damon, x == &g->other || !x->damon_unmeasured,
					   shown_classes, NSHOWN);
		if (x == &g->other)
			ms_jw_u64_field(w, "unmeasured_groups", x->damon_unmeasured);
	} else {
		ms_wss_verdicts_json(w, x->wss, shown_classes, NSHOWN);
	}
	/* --by cgroup: what its memory.stat counted in the window (null: no such counter, or
	 * the cgroup was not there at both ends) */
	if (paging && has_cgroup_paging(g, x)) {
		ms_jw_object_field(w, "paging");
		for (int k = 0; k < MS_WSS_CG_NPAGING; k++) {
			long long n = ms_wss_cgroup_paging(g->wss, x->k1, k);

			if (n < 0)
				ms_jw_null_field(w, ms_wss_paging_keys[k]);
			else
				ms_jw_u64_field(w, ms_wss_paging_keys[k], (__u64)n);
		}
		ms_jw_end_object(w);
	}
	ms_jw_end_object(w);
}

void ms_groups_json_fields(struct ms_jw *w, const struct ms_groups *g)
{
	size_t i;

	ms_jw_string_field(w, "by", g->key->key_name);
	ms_jw_array_field(w, "groups");
	for (i = 0; i < g->nshown; i++) {
		const struct ms_group *x = &g->g[g->order[i]];

		ms_jw_start_object(w);
		ms_jw_string_field(w, "name", x->name);
		json_pages(w, g, x);
		json_attrs(w, g, x);
		json_wss(w, g, x, true);
		if (x->k1 != NONE_KEY || x->k2 != NONE_KEY)
			by_outs[g->by].json(w, g, x);
		ms_jw_end_object(w);
	}
	ms_jw_end_array(w);
	ms_jw_object_field(w, "other");
	ms_jw_u64_field(w, "groups", g->nother);
	ms_jw_u64_field(w, "removed_cgroups", g->nremoved);
	json_pages(w, g, &g->other);
	json_attrs(w, g, &g->other);
	json_wss(w, g, &g->other, true);
	ms_jw_end_object(w);
}

void ms_groups_json(FILE *out, const struct ms_groups *g, const struct ms_result *r)
{
	struct ms_jw w;

	ms_jw_init(&w, out);
	ms_jw_start_object(&w);
	ms_json_walk_head(&w, r);
	ms_json_moved_pages(&w, r);
	ms_groups_json_fields(&w, g);
	if (g->wss)	/* --wss: the window's summary, as without --by */
		ms_wss_json(&w, g->wss);
	ms_jw_end_object(&w);
	fputc('\n', out);
}

/*
 * The group's key as text, unique among the groups (names need not be: two file systems may
 * both be "(not mounted)"): node "0", zone "0/Normal", fs "8:1", cgroup the id, file and exec
 * "8:1:INODE"; "" for "(none)" and "(other)".
 */
static void key_text(const struct ms_groups *g, const struct ms_group *x, char *buf, size_t len)
{
	buf[0] = '\0';
	if (!x || (x->k1 == NONE_KEY && x->k2 == NONE_KEY))
		return;
	switch (g->by) {
	case MS_BY_POD:
		if (x->k1 == MS_POD_NONE_KEY)
			break;
		__attribute__((fallthrough));	/* the cgroup's id */
	case MS_BY_NODE:
	case MS_BY_CGROUP:
		snprintf(buf, len, "%llu", (unsigned long long)x->k1);
		break;
	case MS_BY_ZONE:
		snprintf(buf, len, "%d/%s", g->zones[x->k1].node, g->zones[x->k1].name);
		break;
	case MS_BY_FS:
		snprintf(buf, len, "%u:%u", MS_DEV_MAJOR(x->k1), MS_DEV_MINOR(x->k1));
		break;
	case MS_BY_SLAB:	/* k1 is a kernel pointer: the cache's name is its key */
		break;
	default:
		snprintf(buf, len, "%u:%u:%llu", MS_DEV_MAJOR(x->k1), MS_DEV_MINOR(x->k1),
			 (unsigned long long)x->k2);
	}
}

/* x NULL: "(other)" */
static void prom_group(FILE *out, const struct ms_groups *g, const char *name,
		       const struct ms_group *x)
{
	char key[96];
	size_t c;

	key_text(g, x, key, sizeof(key));
	if (!x)
		x = &g->other;
	for (c = 0; c <= NSHOWN; c++) {
		fprintf(out, "memstat_group_pages{by=\"%s\",group=\"", g->key->key_name);
		ms_esc_fputs(out, name, MS_ESC_PROM);
		fprintf(out, "\",key=\"%s\"", key);
		if (by_outs[g->by].prom_labels)
			by_outs[g->by].prom_labels(out, g, x);
		fprintf(out, ",class=\"%s\"} %llu\n",
			c < NSHOWN ? ms_classes[shown_classes[c]].key : "total",
			(unsigned long long)(c < NSHOWN ? class_of(x, shown_classes[c]) : x->total));
	}
}

/* --wss: the group's pages of each class the window tracks, by verdict (x NULL: "(other)") */
static void prom_wss(FILE *out, const struct ms_groups *g, const char *name,
		     const struct ms_group *x, bool paging)
{
	char key[96];

	key_text(g, x, key, sizeof(key));
	if (!x)
		x = &g->other;
	/* DAMON: anon and file_backed, accessed and idle, of a cgroup measured (no series of one
	 * that was not: absent, never 0) */
	for (int t = 0; !paging && damon_groups(g) && !(x != &g->other && x->damon_unmeasured) &&
	     t < 4; t++) {
		fprintf(out, "memstat_group_wss_pages{by=\"%s\",group=\"", g->key->key_name);
		ms_esc_fputs(out, name, MS_ESC_PROM);
		fprintf(out, "\",key=\"%s\"", key);
		if (by_outs[g->by].prom_labels)
			by_outs[g->by].prom_labels(out, g, x);
		fprintf(out, ",class=\"%s\",state=\"%s\"} %llu\n", t / 2 ? "file_backed" : "anon",
			ms_wss_verdict_names[t % 2], (unsigned long long)x->damon[t / 2][t % 2]);
	}
	for (int v = 0; !paging && !damon_groups(g) && v < MS_WSS_VERDICTS; v++)
		for (int c = 0; c < MS_NR_CLASSES; c++) {
			if (!ms_wss_class_tracked(c))
				continue;
			fprintf(out, "memstat_group_wss_pages{by=\"%s\",group=\"", g->key->key_name);
			ms_esc_fputs(out, name, MS_ESC_PROM);
			fprintf(out, "\",key=\"%s\"", key);
			if (by_outs[g->by].prom_labels)
				by_outs[g->by].prom_labels(out, g, x);
			fprintf(out, ",class=\"%s\",state=\"%s\"} %llu\n", ms_classes[c].key,
				ms_wss_verdict_names[v], (unsigned long long)x->wss[v][c]);
		}
	for (int k = 0; paging && has_cgroup_paging(g, x) && k < MS_WSS_CG_NPAGING; k++) {
		long long n = ms_wss_cgroup_paging(g->wss, x->k1, k);

		if (n < 0)
			continue;	/* absent, never 0 */
		fprintf(out, "memstat_group_wss_paging_events{by=\"%s\",group=\"", g->key->key_name);
		ms_esc_fputs(out, name, MS_ESC_PROM);
		fprintf(out, "\",key=\"%s\",counter=\"%s\"} %lld\n", key, ms_wss_paging_keys[k], n);
	}
}

/* -a: the group's DMA-pinned pages, or (all) its pages of each attribute (x NULL: "(other)") */
static void prom_attrs(FILE *out, const struct ms_groups *g, const char *name,
		       const struct ms_group *x, bool all)
{
	char key[96];

	key_text(g, x, key, sizeof(key));
	if (!x)
		x = &g->other;
	for (int k = all ? 0 : MS_A_DMA_PINNED; k < (all ? MS_NR_ATTRS : MS_A_DMA_PINNED + 1); k++) {
		if (!attr_known(g, (enum ms_attr)k))
			continue;	/* absent, never 0 */
		fprintf(out, "memstat_group_%s_pages{by=\"%s\",group=\"",
			all ? "attribute" : "dma_pinned", g->key->key_name);
		ms_esc_fputs(out, name, MS_ESC_PROM);
		fprintf(out, "\",key=\"%s\"", key);
		if (by_outs[g->by].prom_labels)
			by_outs[g->by].prom_labels(out, g, x);
		if (all)
			fprintf(out, ",attribute=\"%s\"", ms_attr_names[k].key);
		fprintf(out, "} %llu\n", (unsigned long long)x->attr[k]);
	}
}

void ms_groups_prom(FILE *out, struct ms_groups *const *gs, size_t n)
{
	size_t i, k;

	fputs("# HELP memstat_group_pages Physical pages by class of each group of --by (the top "
	      "N groups, (none) and (other)); key tells groups of one name apart.\n# TYPE memstat_group_pages gauge\n", out);
	for (k = 0; k < n; k++) {
		const struct ms_groups *g = gs[k];

		for (i = 0; i < g->nshown; i++)
			prom_group(out, g, g->g[g->order[i]].name, &g->g[g->order[i]]);
		prom_group(out, g, "(other)", NULL);
	}
	if (n && gs[0]->wss) {	/* --wss: every key's verdicts */
		for (int paging = 0; paging < 1 + gs[0]->wss->cgroup_paging; paging++) {
			fputs(paging ? "# HELP memstat_group_wss_paging_events What each cgroup's "
			      "memory.stat counted in the window of --wss (--by cgroup or pod: a pod's "
			      "container's cgroup).\n"
			      "# TYPE memstat_group_wss_paging_events gauge\n" :
			      "# HELP memstat_group_wss_pages Pages of each group of --by in the window "
			      "of --wss, by class and state (the groups of memstat_group_pages).\n"
			      "# TYPE memstat_group_wss_pages gauge\n", out);
			for (k = 0; k < n; k++) {
				for (i = 0; i < gs[k]->nshown; i++)
					prom_wss(out, gs[k], gs[k]->g[gs[k]->order[i]].name,
						 &gs[k]->g[gs[k]->order[i]], paging);
				prom_wss(out, gs[k], "(other)", NULL, paging);
			}
		}
	}
	if (!n || !gs[0]->attrs)	/* -a: every key's attributes, or none's */
		return;
	for (int all = 0; all < 2; all++) {
		fputs(all ? "# HELP memstat_group_attribute_pages Pages of each group of --by with "
			    "each attribute of -a (the groups of memstat_group_pages).\n"
			    "# TYPE memstat_group_attribute_pages gauge\n" :
			    "# HELP memstat_group_dma_pinned_pages DMA-pinned pages of each group of "
			    "--by, as dma_pinned of -a (the groups of memstat_group_pages).\n"
			    "# TYPE memstat_group_dma_pinned_pages gauge\n", out);
		for (k = 0; k < n; k++) {
			const struct ms_groups *g = gs[k];

			for (i = 0; i < g->nshown; i++)
				prom_attrs(out, g, g->g[g->order[i]].name, &g->g[g->order[i]], all);
			prom_attrs(out, g, "(other)", NULL, all);
		}
	}
}

/* ---- each key's own members and columns ---- */

static void json_node(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	__u64 s, e;

	ms_groups_node_span(g, (int)grp->k1, &s, &e);
	ms_jw_u64_field(w, "node", grp->k1);
	ms_jw_u64_field(w, "start_pfn", s);
	ms_jw_u64_field(w, "end_pfn", e);
}

static void json_zone(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_zone *z = &g->zones[grp->k1];

	ms_jw_i64_field(w, "node", z->node);
	ms_jw_string_field(w, "zone", z->name);
	ms_jw_u64_field(w, "start_pfn", z->start);
	ms_jw_u64_field(w, "end_pfn", z->end);
}

static void json_fs(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_mountinfo_entry *m = ms_groups_mount_of(g, grp->k1);

	ms_jw_name(w, "dev");
	ms_jw_stringf(w, "%u:%u", MS_DEV_MAJOR(grp->k1), MS_DEV_MINOR(grp->k1));
	ms_jw_string_field(w, "fstype", m ? m->fstype : NULL);
	ms_jw_string_field(w, "mount", m ? m->point : NULL);
}

static void cols_head_fs(FILE *out)
{
	fprintf(out, "  %-9s %-10s", "Dev", "Type");
}

static void cols_fs(FILE *out, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_mountinfo_entry *m =
		grp->k1 == NONE_KEY ? NULL : ms_groups_mount_of(g, grp->k1);
	char dev[24] = "-", *type = ms_esc_str(m ? m->fstype : "-", MS_ESC_TERM);

	if (grp->k1 != NONE_KEY && grp->name && strcmp(grp->name, "(other)"))
		snprintf(dev, sizeof(dev), "%u:%u", MS_DEV_MAJOR(grp->k1), MS_DEV_MINOR(grp->k1));
	/* a FUSE file system's type names its subtype, which its user chose */
	fprintf(out, "  %-9s %-10s", dev, type ? type : "?");
	free(type);
}

static void json_cgroup(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct cgroup_extra *e = grp->extra;

	ms_jw_u64_field(w, "id", grp->k1);
	if (!e)
		return;
	ms_jw_bool_field(w, "removed", e->removed);
	ms_jw_bool_field(w, "outside_view", e->elsewhere);
	if (e->known && e->depth)
		ms_jw_u64_field(w, "parent_id", e->parent);
	else
		ms_jw_null_field(w, "parent_id");
	if (e->known)
		ms_jw_u64_field(w, "depth", e->depth);
	else
		ms_jw_null_field(w, "depth");
	if (e->tree) {
		struct ms_group t = { .total = e->total };

		memcpy(t.sub, e->sub, sizeof(t.sub));
		memcpy(t.attr, e->attr, sizeof(t.attr));
		memcpy(t.wss, e->wss, sizeof(t.wss));
		ms_jw_object_field(w, "tree");
		json_pages(w, g, &t);
		json_attrs(w, g, &t);
		json_wss(w, g, &t, false);	/* the paging: the cgroup's own wss */
		ms_jw_end_object(w);
	}
}

static const char *const source_name[] = {
	[MS_PSRC_DENTRY] = "dentry",
	[MS_PSRC_NO_DENTRY] = "no_dentry",
	[MS_PSRC_BDEV] = "block_device",
	[MS_PSRC_UNKNOWN] = "unknown",
	[MS_PSRC_KMOD] = "unavailable",
};

static void json_file(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_file_info *fi = grp->extra;
	bool mounted = fi && fi->mount;

	ms_jw_name(w, "dev");
	ms_jw_stringf(w, "%u:%u", MS_DEV_MAJOR(grp->k1), MS_DEV_MINOR(grp->k1));
	ms_jw_u64_field(w, "inode", grp->k2);
	ms_jw_string_field(w, "path", grp->name ? grp->name : "");
	ms_jw_string_field(w, "path_source", fi ? source_name[fi->source] : "unknown");
	ms_jw_bool_field(w, "deleted", fi && fi->deleted);
	ms_jw_bool_field(w, "pseudo", fi && fi->pseudo);
	ms_jw_string_field(w, "mount", mounted ? fi->mount->point : NULL);
	ms_jw_string_field(w, "fstype", mounted ? fi->mount->fstype : NULL);
	if (fi && fi->magic) {
		ms_jw_name(w, "fs_magic");
		ms_jw_stringf(w, "%#llx", (unsigned long long)fi->magic);
	} else {
		ms_jw_null_field(w, "fs_magic");
	}
	ms_jw_u64_field(w, "cached_pages", grp->total);
	ms_jw_u64_field(w, "exec_pages", grp->sub[MS_EXEC]);
	ms_jw_bool_field(w, "mapped_exec", grp->sub[MS_EXEC] != 0);
}

static void cols_head_file(FILE *out)
{
	fprintf(out, "  %-9s %10s %9s %9s %1s", "Dev", "Inode", "Pages", "ExecPages", "X");
}

static void cols_file(FILE *out, const struct ms_groups *g, const struct ms_group *grp)
{
	char dev[24];

	if (grp->k1 == NONE_KEY || !grp->extra) {
		fprintf(out, "  %-9s %10s %9s %9s %1s", "-", "-", "-", "-", "-");
		return;
	}
	snprintf(dev, sizeof(dev), "%u:%u", MS_DEV_MAJOR(grp->k1), MS_DEV_MINOR(grp->k1));
	fprintf(out, "  %-9s %10llu %9llu %9llu %1s", dev, (unsigned long long)grp->k2,
		(unsigned long long)grp->total, (unsigned long long)grp->sub[MS_EXEC],
		grp->sub[MS_EXEC] ? "x" : "-");
}

/* slab: the cache's object sizes and /proc/slabinfo's pages beside the walk's */
static void json_slab(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_slab_info *si = grp->extra;

	(void)g;
	ms_jw_bool_field(w, "cache", si && si->cache);
	if (si && si->named) {
		ms_jw_u64_field(w, "object_size", si->object_size);
		ms_jw_u64_field(w, "slot_size", si->size);
	} else {
		ms_jw_null_field(w, "object_size");
		ms_jw_null_field(w, "slot_size");
	}
	if (si && si->slabinfo_pages >= 0)
		ms_jw_i64_field(w, "slabinfo_pages", si->slabinfo_pages);
	else
		ms_jw_null_field(w, "slabinfo_pages");
}

static void cols_head_slab(FILE *out)
{
	fprintf(out, "  %7s %7s %11s", "ObjSize", "Slot", "Slabinfo MB");
}

static void cols_slab(FILE *out, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct ms_slab_info *si = grp->extra;

	(void)g;
	if (si && si->named)
		fprintf(out, "  %7u %7u", si->object_size, si->size);
	else
		fprintf(out, "  %7s %7s", "-", "-");
	if (si && si->slabinfo_pages >= 0)
		fprintf(out, " %11.0f", ms_mb((__u64)si->slabinfo_pages));
	else
		fprintf(out, " %11s", "-");
}

/*
 * pod: the QoS class, the pod's UID, the container's id and runtime, and the names the bundles
 * gave (null, or "" in a label, where unknown)
 */
static const struct pod_extra *pod_of(const struct ms_group *grp)
{
	const struct pod_extra *e = grp ? grp->extra : NULL;

	return e && e->in_pod ? e : NULL;
}

static void json_pod(struct ms_jw *w, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct pod_extra *e = grp->extra, *p = pod_of(grp);

	(void)g;
	if (grp->k1 != MS_POD_NONE_KEY)
		ms_jw_u64_field(w, "cgroup_id", grp->k1);
	else
		ms_jw_null_field(w, "cgroup_id");
	ms_jw_bool_field(w, "in_pod", p != NULL);
	ms_jw_bool_field(w, "removed", e && e->removed);
	ms_jw_bool_field(w, "outside_view", e && e->elsewhere);
	ms_jw_string_field(w, "cgroup", p ? p->cgroup : NULL);
	ms_jw_string_field(w, "qos", p ? ms_pod_qos_names[p->path.qos] : NULL);
	ms_jw_string_field(w, "pod_uid", p ? p->path.uid : NULL);
	ms_jw_string_field(w, "container_id", p && p->path.container[0] ? p->path.container : NULL);
	ms_jw_string_field(w, "runtime", p && p->path.runtime[0] ? p->path.runtime : NULL);
	ms_jw_string_field(w, "namespace", p && p->names.found ? p->names.namespace_ : NULL);
	ms_jw_string_field(w, "pod", p && p->names.found ? p->names.pod : NULL);
	ms_jw_string_field(w, "container", p && p->names.found && p->path.container[0] ?
					   p->names.container : NULL);
}

static void cols_head_pod(FILE *out)
{
	fprintf(out, "  %-10s %-12s", "QoS", "Container");
}

static void cols_pod(FILE *out, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct pod_extra *p = pod_of(grp);

	(void)g;
	fprintf(out, "  %-10s %-12.12s", p ? ms_pod_qos_names[p->path.qos] : "-",
		p && p->path.container[0] ? p->path.container : "-");
}

static void prom_label(FILE *out, const char *name, const char *v)
{
	fprintf(out, ",%s=\"", name);
	ms_esc_fputs(out, v ? v : "", MS_ESC_PROM);
	fputc('"', out);
}

static void prom_pod(FILE *out, const struct ms_groups *g, const struct ms_group *grp)
{
	const struct pod_extra *p = pod_of(grp);
	bool named = p && p->names.found;

	(void)g;
	prom_label(out, "qos", p ? ms_pod_qos_names[p->path.qos] : NULL);
	prom_label(out, "pod_uid", p ? p->path.uid : NULL);
	prom_label(out, "container_id", p ? p->path.container : NULL);
	prom_label(out, "namespace", named ? p->names.namespace_ : NULL);
	prom_label(out, "pod", named ? p->names.pod : NULL);
	prom_label(out, "container", named && p->path.container[0] ? p->names.container : NULL);
}

static const struct by_out by_outs[MS_NR_BY] = {
	[MS_BY_CGROUP] = { json_cgroup, NULL, NULL, NULL },
	[MS_BY_NODE] = { json_node, NULL, NULL, NULL },
	[MS_BY_ZONE] = { json_zone, NULL, NULL, NULL },
	[MS_BY_FS] = { json_fs, cols_head_fs, cols_fs, NULL },
	[MS_BY_FILE] = { json_file, cols_head_file, cols_file, NULL },
	[MS_BY_EXEC] = { json_file, cols_head_file, cols_file, NULL },
	[MS_BY_SLAB] = { json_slab, cols_head_slab, cols_slab, NULL },
	[MS_BY_POD] = { json_pod, cols_head_pod, cols_pod, prom_pod },
};
