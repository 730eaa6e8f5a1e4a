// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* --wss's output (wss.h): the working-set table under the summary and the JSON member "wss". */
#include <stdio.h>

#include "memstat_int.h"
#include "json.h"
#include "wss.h"

static const char *const untracked_why =
	"on no LRU list: the mechanism cannot see its accesses";
static const char *const read_note =
	"page cache read through read() sets PG_referenced (folio_mark_accessed()): accessed "
	"when that flag was clear at the window's start, unseen or idle when it was set or the "
	"folio was in the oldest generation";
static const char *const idle_read_note =
	"page cache read through read() clears PG_idle (folio_mark_accessed(), MGLRU off): "
	"accessed";
static const char *const unseen_why =
	"in the oldest generation when the second aging merged it into the next (the kernel "
	"clears PG_referenced of those folios, and since 6.14 an aging only sets that flag on a "
	"folio it sees accessed for the first time): whether they were accessed cannot be told";

static __u64 class_sum(const __u64 *sub, int cls)
{
	__u64 n = 0;

	for (int s = 0; s < MS_NR_SUBS; s++)
		if ((int)ms_subs[s].cls == cls)
			n += sub[s];
	return n;
}

static void row(FILE *out, const char *label, const __u64 n[4])
{
	fprintf(out, "%-20s", label);
	for (int k = 0; k < 4; k++)
		fprintf(out, " %10llu %7.0f", (unsigned long long)n[k], ms_mb((double)n[k]));
	fputc('\n', out);
}

static void age_label(char *buf, size_t len, double lo, double hi)
{
	if (hi < 0)
		snprintf(buf, len, "  idle > %.0f s", lo);
	else
		snprintf(buf, len, "  idle %.0f-%.0f s", lo, hi);
}

/* the paging of the window (/proc/vmstat), each counter the kernel has, and its rate */
static void paging_line(FILE *out, const struct ms_wss *w)
{
	static const char *const what[MS_WSS_NPAGING] = { "major faults", "anon refaults",
							  "file refaults", "swap-ins",
							  "swap-outs", "pages migrated" };
	bool any = false;

	for (int k = 0; k < MS_WSS_NPAGING; k++) {
		long long n = ms_wss_paging(w, k);

		if (n < 0)
			continue;
		fprintf(out, "%s%lld %s (%.1f/s)", any ? ", " : "Paging in the window: ", n,
			what[k], w->measured_s > 0 ? (double)n / w->measured_s : 0.0);
		any = true;
	}
	if (any)
		fputs(" (/proc/vmstat).\n", out);
}

static const char *const damon_mglru_read_note =
	"page cache read through read() with MGLRU on moves its reference bits, not PG_idle "
	"(folio_mark_accessed()): DAMON's young filter sees it idle";
static const char *const damon_why =
	"DAMON counts the LRU folios of anonymous and of file-backed memory: shmem, exec and "
	"page cache are not told apart (file_backed)";

/* DAMON: totals of anonymous and file-backed memory, no sub-class, age, group or page */
static void damon_print(FILE *out, const struct ms_wss *w)
{
	static const char *const label[2] = { "Anon", "File-backed" };
	__u64 total[2] = {};

	fprintf(out, "%-20s %10s %7s %10s %7s\n", "Working Set (DAMON)", "Accessed", "MB", "Idle",
		"MB");
	fprintf(out, "%-20s %10s %7s %10s %7s\n", "--------------------", "----------", "-------",
		"----------", "-------");
	for (int t = 0; t <= 2; t++) {
		const __u64 *n = t < 2 ? w->damon[t] : total;

		fprintf(out, "%-20s %10llu %7.0f %10llu %7.0f\n", t < 2 ? label[t] : "Total",
			(unsigned long long)n[0], ms_mb((double)n[0]), (unsigned long long)n[1],
			ms_mb((double)n[1]));
		for (int k = 0; t < 2 && k < 2; k++)
			total[k] += n[k];
	}
	fprintf(out, "\nWindow %.1f s (DAMON: %s of memstat's whose stat schemes ran at its "
		"start, %.1f s after the %s began, and its end; stopped and removed since).\n",
		w->measured_s, w->damon_by == MS_WSS_DAMON_BY_NODE ? "kdamonds" : "a kdamond",
		w->aging_ms[0] / 1000.0, w->damon_by == MS_WSS_DAMON_BY_NODE ? "kdamonds" :
		"kdamond");
	paging_line(out, w);
	fputs("File-backed: shmem, exec and libs, and page cache, which DAMON does not tell apart.\n"
	      "Kernel, hugetlb and free pages are on no LRU list: not tracked.\n", out);
	if (w->damon_by == MS_WSS_DAMON_BY_NODE)
		fprintf(out, "Nodes: %zu, a kdamond each over the node's address ranges.\n",
			w->ndamon_g);
	if (w->damon_by == MS_WSS_DAMON_BY_CGROUP)
		fprintf(out, "Cgroups: %zu measured (the root and the largest others by their own "
			"pages, four schemes each), %zu others with pages not.\n", w->ndamon_g,
			w->damon_g_unmeasured);
}

void ms_wss_print(FILE *out, const struct ms_wss *w, bool verbose)
{
	const __u64 *cols[4] = { w->accessed, w->idle, w->unseen, w->untracked };
	__u64 total[4] = {};
	char label[64];

	if (w->mech == MS_WSS_DAMON) {
		damon_print(out, w);
		return;
	}

	fprintf(out, "%-20s %10s %7s %10s %7s %10s %7s %10s %7s\n", "Working Set", "Accessed",
		"MB", "Idle", "MB", "Unseen", "MB", "Untracked", "MB");
	fprintf(out, "%-20s %10s %7s %10s %7s %10s %7s %10s %7s\n", "--------------------",
		"----------", "-------", "----------", "-------", "----------", "-------",
		"----------", "-------");
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		__u64 n[4];

		if (!ms_wss_class_tracked(c))
			continue;
		for (int k = 0; k < 4; k++) {
			n[k] = class_sum(cols[k], c);
			total[k] += n[k];
		}
		row(out, ms_classes[c].label, n);
		for (int s = 0; verbose && s < MS_NR_SUBS; s++) {
			for (int k = 0; k < 4; k++)
				n[k] = cols[k][s];
			if ((int)ms_subs[s].cls != c || !(n[0] + n[1] + n[2] + n[3]))
				continue;
			snprintf(label, sizeof(label), "  %s", ms_subs[s].label);
			row(out, label, n);
		}
	}
	row(out, "Total", total);
	for (int k = 0; k < MS_WSS_AGES; k++) {
		__u64 n = 0;
		double lo, hi;

		for (int s = 0; s < MS_NR_SUBS; s++)
			n += w->idle_age[k][s];
		if (!ms_wss_age_range(w, k, &lo, &hi))
			continue;
		age_label(label, sizeof(label), lo, hi);
		fprintf(out, "%-20s %10s %7s %10llu %7.0f\n", label, "", "",
			(unsigned long long)n, ms_mb((double)n));
	}
	if (w->mech == MS_WSS_IDLE_BITMAP)
		fprintf(out, "\nWindow %.1f s (idle page bitmap: every page marked idle at its start, "
			"%.1f ms; read at its end, %.1f ms).\n", w->measured_s, w->aging_ms[0],
			w->aging_ms[1]);
	else
		fprintf(out, "\nWindow %.1f s (MGLRU: %zu lruvecs aged at its start and end, %.1f "
			"and %.1f ms).\n", w->measured_s, w->nlv, w->aging_ms[0], w->aging_ms[1]);
	paging_line(out, w);
	fputs("Kernel, hugetlb and free pages are on no LRU list: not tracked.\n"
	      "Untracked: unevictable, mlocked or isolated folios", out);
	if (w->mech == MS_WSS_IDLE_BITMAP)
		fputs(", and those on no LRU list", out);
	if (w->unattributed)
		fprintf(out, ", %llu pages of memcgs made during the window",
			(unsigned long long)w->unattributed);
	if (w->kernel_aged)
		fprintf(out, ", %llu pages of memcgs the kernel itself aged twice during it",
			(unsigned long long)w->kernel_aged);
	if (w->not_aged)
		fprintf(out, ", %llu pages of memcgs an aging left as they were",
			(unsigned long long)w->not_aged);
	fputs(".\n", out);
	if (total[2])
		fputs("Unseen: in the oldest generation, which the second aging merged; the kernel "
		      "then\nclears what would tell an access (since 6.14 an aging only marks a "
		      "folio seen once).\n", out);
}

static void class_counts(struct ms_jw *jw, const char *name, const __u64 *sub)
{
	ms_jw_object_field(jw, name);
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		if (ms_wss_class_tracked(c))
			ms_jw_u64_field(jw, ms_classes[c].key, class_sum(sub, c));
		else
			ms_jw_null_field(jw, ms_classes[c].key);
	}
	ms_jw_end_object(jw);
}

static void detail_counts(struct ms_jw *jw, const char *name, const __u64 *sub)
{
	ms_jw_object_field(jw, name);
	for (int s = 0; s < MS_NR_SUBS; s++)
		if (ms_wss_class_tracked(ms_subs[s].cls))
			ms_jw_u64_field(jw, ms_subs[s].key, sub[s]);
	ms_jw_end_object(jw);
}

/* the pages of a state of the file-backed classes (shmem, exec, page cache): DAMON's own count */
static __u64 file_backed(const struct ms_wss *w, int k)
{
	const __u64 *cols[2] = { w->accessed, w->idle };
	__u64 n = 0;

	if (w->mech == MS_WSS_DAMON)
		return w->damon[1][k];
	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (ms_wss_class_tracked(c) && c != MS_C_ANON)
			n += class_sum(cols[k], c);
	return n;
}

/* "file_backed": {"accessed", "idle"}: every mechanism's, DAMON's own count */
static void file_backed_json(struct ms_jw *jw, const struct ms_wss *w)
{
	ms_jw_object_field(jw, "file_backed");
	ms_jw_u64_field(jw, "accessed", file_backed(w, 0));
	ms_jw_u64_field(jw, "idle", file_backed(w, 1));
	ms_jw_end_object(jw);
}

/* DAMON: a state's pages per class: anon's, null for the others (k < 0: every class null) */
static void damon_counts(struct ms_jw *jw, const char *name, const struct ms_wss *w, int k)
{
	ms_jw_object_field(jw, name);
	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (c == MS_C_ANON && k >= 0)
			ms_jw_u64_field(jw, ms_classes[c].key, w->damon[0][k]);
		else
			ms_jw_null_field(jw, ms_classes[c].key);
	ms_jw_end_object(jw);
}

static void paging_json(struct ms_jw *jw, const struct ms_wss *w)
{
	ms_jw_object_field(jw, "paging");	/* /proc/vmstat's growth in the window */
	for (int k = 0; k < MS_WSS_NPAGING; k++) {
		if (ms_wss_paging(w, k) < 0)
			ms_jw_null_field(jw, ms_wss_paging_keys[k]);
		else
			ms_jw_u64_field(jw, ms_wss_paging_keys[k], (__u64)ms_wss_paging(w, k));
	}
	ms_jw_end_object(jw);
}

static void damon_json(struct ms_jw *jw, const struct ms_wss *w)
{
	damon_counts(jw, "accessed", w, 0);
	damon_counts(jw, "idle", w, 1);
	damon_counts(jw, "unseen", w, -1);
	damon_counts(jw, "untracked", w, -1);
	file_backed_json(jw, w);
	ms_jw_object_field(jw, "why_null");
	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (c != MS_C_ANON)
			ms_jw_string_field(jw, ms_classes[c].key,
					   ms_wss_class_tracked(c) ? damon_why : untracked_why);
	ms_jw_end_object(jw);
	ms_jw_array_field(jw, "idle_by_age");	/* DAMON's counts tell no age */
	ms_jw_end_array(jw);
	paging_json(jw, w);
	if (w->damon_by) {	/* --by cgroup or node: how many groups its schemes measured */
		ms_jw_object_field(jw, w->damon_by == MS_WSS_DAMON_BY_NODE ? "nodes" : "cgroups");
		ms_jw_u64_field(jw, "measured", w->ndamon_g);
		ms_jw_u64_field(jw, "unmeasured", w->damon_g_unmeasured);
		/* the pages of the cgroups not measured (and of removed ones) */
		ms_jw_object_field(jw, "unmeasured_pages");
		for (int t = 0; t < 2; t++) {
			ms_jw_object_field(jw, t ? "file_backed" : "anon");
			ms_jw_u64_field(jw, "accessed", w->damon_rest[t][0]);
			ms_jw_u64_field(jw, "idle", w->damon_rest[t][1]);
			ms_jw_end_object(jw);
		}
		ms_jw_end_object(jw);
		ms_jw_end_object(jw);
	}
	ms_jw_string_field(jw, "read_accesses", w->damon_mglru ? damon_mglru_read_note :
			   idle_read_note);
	ms_jw_end_object(jw);
}

void ms_wss_json(struct ms_jw *jw, const struct ms_wss *w)
{
	ms_jw_object_field(jw, "wss");
	ms_jw_string_field(jw, "mechanism", w->mech == MS_WSS_IDLE_BITMAP ? "idle_bitmap" :
			   w->mech == MS_WSS_DAMON ? "damon" : "mglru");
	ms_jw_double_field(jw, "window_s", "%.3f", w->window_s);
	ms_jw_double_field(jw, "measured_s", "%.3f", w->measured_s);
	ms_jw_array_field(jw, "aging_ms");
	ms_jw_double(jw, "%.3f", w->aging_ms[0]);
	ms_jw_double(jw, "%.3f", w->aging_ms[1]);
	ms_jw_end_array(jw);
	if (w->mech == MS_WSS_DAMON) {
		damon_json(jw, w);
		return;
	}
	ms_jw_u64_field(jw, "lruvecs", w->nlv);
	class_counts(jw, "accessed", w->accessed);
	class_counts(jw, "idle", w->idle);
	class_counts(jw, "unseen", w->unseen);
	class_counts(jw, "untracked", w->untracked);
	file_backed_json(jw, w);
	class_counts(jw, "accessed_referenced", w->referenced);
	ms_jw_string_field(jw, "why_unseen", unseen_why);
	ms_jw_bool_field(jw, "first_sight_rule", w->first_sight);
	ms_jw_object_field(jw, "why_null");
	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (!ms_wss_class_tracked(c))
			ms_jw_string_field(jw, ms_classes[c].key, untracked_why);
	ms_jw_end_object(jw);
	detail_counts(jw, "accessed_detail", w->accessed);
	detail_counts(jw, "idle_detail", w->idle);
	ms_jw_array_field(jw, "idle_by_age");
	for (int k = 0; k < MS_WSS_AGES; k++) {
		double lo, hi;

		if (!ms_wss_age_range(w, k, &lo, &hi))
			continue;
		ms_jw_start_object(jw);
		ms_jw_double_field(jw, "min_s", "%.3f", lo);
		if (hi < 0)
			ms_jw_null_field(jw, "max_s");
		else
			ms_jw_double_field(jw, "max_s", "%.3f", hi);
		class_counts(jw, "pages", w->idle_age[k]);
		ms_jw_end_object(jw);
	}
	ms_jw_end_array(jw);
	ms_jw_u64_field(jw, "unattributed", w->unattributed);
	ms_jw_u64_field(jw, "kernel_aged", w->kernel_aged);
	ms_jw_u64_field(jw, "not_aged", w->not_aged);
	paging_json(jw, w);
	ms_jw_string_field(jw, "read_accesses", w->mech == MS_WSS_IDLE_BITMAP ?
			   idle_read_note : read_note);
	ms_jw_end_object(jw);
}

const char *const ms_wss_verdict_names[MS_WSS_VERDICTS] = { "accessed", "idle", "unseen" };

void ms_wss_verdicts_json(struct ms_jw *jw, const __u64 v[MS_WSS_VERDICTS][MS_NR_CLASSES],
			  const enum ms_class *cls, size_t ncls)
{
	for (int k = 0; k < MS_WSS_VERDICTS; k++) {
		ms_jw_object_field(jw, ms_wss_verdict_names[k]);
		for (size_t i = 0; i < ncls; i++) {
			int c = cls ? (int)cls[i] : (int)i;

			if (ms_wss_class_tracked(c))
				ms_jw_u64_field(jw, ms_classes[c].key, v[k][c]);
			else
				ms_jw_null_field(jw, ms_classes[c].key);
		}
		ms_jw_end_object(jw);
	}
}

void ms_wss_damon_verdicts_json(struct ms_jw *jw, const __u64 n[2][2], bool measured,
				const enum ms_class *cls, size_t ncls)
{
	for (int k = 0; k < MS_WSS_VERDICTS; k++) {
		ms_jw_object_field(jw, ms_wss_verdict_names[k]);
		for (size_t i = 0; i < ncls; i++) {
			int c = cls ? (int)cls[i] : (int)i;

			if (c == MS_C_ANON && measured && (k == MS_WSS_ACCESSED || k == MS_WSS_IDLE))
				ms_jw_u64_field(jw, ms_classes[c].key,
						n[0][k == MS_WSS_ACCESSED ? 0 : 1]);
			else
				ms_jw_null_field(jw, ms_classes[c].key);
		}
		ms_jw_end_object(jw);
	}
	if (!measured) {
		ms_jw_null_field(jw, "file_backed");
		return;
	}
	ms_jw_object_field(jw, "file_backed");
	ms_jw_u64_field(jw, "accessed", n[1][0]);
	ms_jw_u64_field(jw, "idle", n[1][1]);
	ms_jw_end_object(jw);
}

__u64 ms_wss_tracked_pages(const __u64 per_class[MS_NR_CLASSES])
{
	__u64 n = 0;

	for (int c = 0; c < MS_NR_CLASSES; c++)
		if (ms_wss_class_tracked(c))
			n += per_class[c];
	return n;
}

/*
 * Sampling with --wss: the CSV columns (wss_window_s, wss_measured_s, then wss_<state>_<class>
 * for each state and each class the window tracks, then wss_accessed_file_backed and
 * wss_idle_file_backed, in pages) and a sample's values. DAMON tells anon from file-backed only:
 * its other classes' fields are empty, never 0.
 */
static const char *const csv_states[4] = { "accessed", "idle", "unseen", "untracked" };

void ms_wss_csv_header(FILE *out)
{
	fputs(",wss_window_s,wss_measured_s", out);
	for (int k = 0; k < 4; k++)
		for (int c = 0; c < MS_NR_CLASSES; c++)
			if (ms_wss_class_tracked(c))
				fprintf(out, ",wss_%s_%s", csv_states[k], ms_classes[c].key);
	fputs(",wss_accessed_file_backed,wss_idle_file_backed", out);
	for (int k = 0; k < MS_WSS_NPAGING; k++)
		fprintf(out, ",wss_%s", ms_wss_paging_keys[k]);
}

void ms_wss_csv_row(FILE *out, const struct ms_wss *w)
{
	const __u64 *cols[4] = { w->accessed, w->idle, w->unseen, w->untracked };

	fprintf(out, ",%.3f,%.3f", w->window_s, w->measured_s);
	for (int k = 0; k < 4; k++)
		for (int c = 0; c < MS_NR_CLASSES; c++) {
			if (!ms_wss_class_tracked(c))
				continue;
			if (w->mech != MS_WSS_DAMON)
				fprintf(out, ",%llu", (unsigned long long)class_sum(cols[k], c));
			else if (c == MS_C_ANON && k < 2)
				fprintf(out, ",%llu", (unsigned long long)w->damon[0][k]);
			else
				fputc(',', out);	/* DAMON cannot tell */
		}
	fprintf(out, ",%llu,%llu", (unsigned long long)file_backed(w, 0),
		(unsigned long long)file_backed(w, 1));
	for (int k = 0; k < MS_WSS_NPAGING; k++) {	/* empty: the kernel has no such counter */
		if (ms_wss_paging(w, k) < 0)
			fputc(',', out);
		else
			fprintf(out, ",%lld", ms_wss_paging(w, k));
	}
}

/* the terminal rows' columns: MB accessed and idle over the classes the window tracks */
void ms_wss_row_header(FILE *out, int line)
{
	fputs(line ? "  Accessed     Idle" : " ----working set---", out);
}

void ms_wss_row(FILE *out, const struct ms_wss *w)
{
	__u64 a = 0, i = 0;

	if (w->mech == MS_WSS_DAMON) {	/* its totals: anon and file-backed */
		fprintf(out, " %9.0f %8.0f", ms_mb((double)(w->damon[0][0] + w->damon[1][0])),
			ms_mb((double)(w->damon[0][1] + w->damon[1][1])));
		return;
	}

	for (int c = 0; c < MS_NR_CLASSES; c++) {
		if (!ms_wss_class_tracked(c))
			continue;
		a += class_sum(w->accessed, c);
		i += class_sum(w->idle, c);
	}
	fprintf(out, " %9.0f %8.0f", ms_mb((double)a), ms_mb((double)i));
}

void ms_wss_prom(FILE *out, const struct ms_wss *w)
{
	const __u64 *cols[4] = { w->accessed, w->idle, w->unseen, w->untracked };

	fprintf(out, "# HELP memstat_wss_window_seconds The window of --wss the sample measured.\n"
		"# TYPE memstat_wss_window_seconds gauge\n"
		"memstat_wss_window_seconds %.3f\n", w->measured_s);
	fputs("# HELP memstat_wss_pages Pages of each class the window tracks, by state in the "
	      "window: accessed, idle, unseen (whether accessed cannot be told), untracked (on no "
	      "LRU list).\n# TYPE memstat_wss_pages gauge\n", out);
	if (w->mech == MS_WSS_DAMON) {	/* its totals: anon and file-backed (shmem, exec, cache) */
		for (int t = 0; t < 4; t++)
			fprintf(out, "memstat_wss_pages{class=\"%s\",state=\"%s\"} %llu\n",
				t / 2 ? "file_backed" : "anon", csv_states[t % 2],
				(unsigned long long)w->damon[t / 2][t % 2]);
	}
	for (int k = 0; w->mech != MS_WSS_DAMON && k < 4; k++)
		for (int c = 0; c < MS_NR_CLASSES; c++)
			if (ms_wss_class_tracked(c))
				fprintf(out, "memstat_wss_pages{class=\"%s\",state=\"%s\"} %llu\n",
					ms_classes[c].key, csv_states[k],
					(unsigned long long)class_sum(cols[k], c));
	fputs("# HELP memstat_wss_paging_events What /proc/vmstat counted during the window "
	      "(pgmajfault, workingset_refault_anon and _file, pswpin, pswpout, "
	      "pgmigrate_success).\n"
	      "# TYPE memstat_wss_paging_events gauge\n", out);
	for (int k = 0; k < MS_WSS_NPAGING; k++)
		if (ms_wss_paging(w, k) >= 0)
			fprintf(out, "memstat_wss_paging_events{counter=\"%s\"} %lld\n",
				ms_wss_paging_keys[k], ms_wss_paging(w, k));
}
