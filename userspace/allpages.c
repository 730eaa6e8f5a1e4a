// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat allpages: one record per physical page, like Solaris `::walk allpages | ::page` or
 * `page-types -L`, from the same walk and classifier as the summary. Kernel addresses are printed
 * only with --raw-pointers (they reveal the KASLR offset).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "memstat_int.h"
#include "classify.h"

enum dump_format { DF_TEXT, DF_CSV, DF_JSONL };

struct dumper {
	enum dump_format fmt;
	bool raw;
	__u32 want;			/* bitmask of enum ms_sub to print */
	__u64 first, last;		/* --pfn, inclusive */
	const struct ms_features *feat;
	/* page-flag names by bit, from BTF; flags above nr_flags are node/zone/section bits */
	const char *flag_name[64];
	int nr_flags;
	__u64 last_flags;
	char flags_str[1024];
	struct ms_zone *zones;
	size_t nzones, zi;
	__u64 printed;
	__u64 sub[MS_NR_SUBS];		/* classes of the printed records */
	/* output buffer: one write(2) per 64 KiB */
	char out[1 << 16];
	size_t n;
	int err;
};

static const char usage_text[] =
	"Usage: memstat allpages [OPTIONS]\n"
	"Print one record per physical page.\n"
	"\n"
	"      --pfn START-END    only pages START to END, inclusive (hex 0x... or decimal)\n"
	"      --class LIST       only these classes or sub-classes, comma separated\n"
	"                         (kernel,anon,shmem,exec,page_cache,hugetlb,free or a detail key)\n"
	"  -f, --format FMT       text (default), csv or jsonl\n"
	"  -b, --backend NAME     auto (default: bpf, else kmod if loaded), bpf or kmod\n"
	"      --summary          print the class totals of the same walk at the end\n"
	"                         (on stdout for text, on stderr for csv and jsonl)\n"
	"      --raw-pointers     add the raw struct page words, mapping and memcg pointers:\n"
	"                         SENSITIVE, kernel addresses reveal the KASLR offset\n"
	"  -h, --help             print this help\n";

/* ---- output buffer ---- */

static void flush(struct dumper *d)
{
	size_t off = 0;

	while (!d->err && off < d->n) {
		ssize_t w = write(STDOUT_FILENO, d->out + off, d->n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			d->err = errno;
		else
			off += (size_t)w;
	}
	d->n = 0;
}

static void put(struct dumper *d, const char *s, size_t len)
{
	if (d->n + len > sizeof(d->out))
		flush(d);
	if (len > sizeof(d->out))
		len = sizeof(d->out);
	memcpy(d->out + d->n, s, len);
	d->n += len;
}

static void puts_(struct dumper *d, const char *s)
{
	put(d, s, strlen(s));
}

static void putc_(struct dumper *d, char c)
{
	if (d->n + 1 > sizeof(d->out))
		flush(d);
	d->out[d->n++] = c;
}




/* pad the text format's columns */
static void pad_to(struct dumper *d, size_t start, size_t width)
{
	while (d->n - start < width)
		putc_(d, ' ');
	putc_(d, ' ');
}

/* ---- page facts ---- */

static int load_flag_names(struct dumper *d)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *t;
	const struct btf_enum *e;
	__s32 id;
	int i;

	if (!btf)
		return -errno;
	id = btf__find_by_name_kind(btf, "pageflags", BTF_KIND_ENUM);
	if (id < 0) {
		btf__free(btf);
		return -ENOENT;
	}
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	d->nr_flags = 64;
	for (i = 0; i < btf_vlen(t); i++) {
		const char *name = btf__name_by_offset(btf, e[i].name_off);
		__s32 v = e[i].val;

		if (!strcmp(name, "__NR_PAGEFLAGS")) {
			d->nr_flags = v < 64 ? v : 64;
			continue;
		}
		if (v < 0 || v >= 64 || d->flag_name[v] || strncmp(name, "PG_", 3))
			continue;	/* later names are aliases of the first */
		d->flag_name[v] = strdup(name + 3);
	}
	btf__free(btf);
	return 0;
}

static const char *flags_string(struct dumper *d, __u64 flags)
{
	size_t n = 0;
	int b;

	if (d->nr_flags < 64)
		flags &= (1ULL << d->nr_flags) - 1;
	if (flags == d->last_flags && d->flags_str[0])
		return d->flags_str;
	d->last_flags = flags;
	d->flags_str[0] = '\0';
	for (b = 0; b < 64; b++) {
		if (!(flags & (1ULL << b)))
			continue;
		n += (size_t)snprintf(d->flags_str + n, sizeof(d->flags_str) - n, "%s%s",
				      n ? "|" : "", d->flag_name[b] ? d->flag_name[b] : "?");
		if (n >= sizeof(d->flags_str))
			break;
	}
	if (!n)
		snprintf(d->flags_str, sizeof(d->flags_str), "-");
	return d->flags_str;
}

/* Zones and nodes from /proc/zoneinfo (ranges.c). */
static int load_zones(struct dumper *d)
{
	return ms_zones_read("/proc/zoneinfo", &d->zones, &d->nzones);
}

static const struct ms_zone *zone_of(struct dumper *d, __u64 pfn)
{
	size_t k;

	if (d->zi < d->nzones && pfn >= d->zones[d->zi].start && pfn < d->zones[d->zi].end)
		return &d->zones[d->zi];
	for (k = 0; k < d->nzones; k++) {
		if (pfn >= d->zones[k].start && pfn < d->zones[k].end) {
			d->zi = k;
			return &d->zones[k];
		}
	}
	return NULL;
}

static const char *role_name(__u8 role)
{
	switch (role) {
	case MS_ROLE_HEAD:
		return "head";
	case MS_ROLE_TAIL:
		return "tail";
	case MS_ROLE_FREE_HEAD:
		return "free-head";
	case MS_ROLE_FREE_TAIL:
		return "free-tail";
	default:
		return "-";
	}
}

static const char *owner_kind(const struct ms_page_rec *r)
{
	if (r->ino)
		return "file";
	if (ms_subs[r->sub].cls == MS_C_ANON)
		return "anon";
	return "none";
}

/* ---- records ---- */

/*
 * The columns, in order: one table for the header and for the three formats. A column's
 * value is formatted once, as text; csv joins the texts, jsonl quotes those marked str, text
 * pads them to width (flags last, as the widest).
 */
enum col {
	C_PFN, C_CLASS, C_SUB, C_ROLE, C_ORDER, C_HEAD, C_REF, C_MAP, C_OWNER, C_DEV, C_INODE,
	C_OFFSET, C_CGROUP, C_NODE, C_ZONE, C_FLAGS, C_MAPPING, C_MEMCG, C_RAW, NCOLS,
};
#define NCOLS_PLAIN C_MAPPING	/* the columns printed without --raw-pointers */

static const struct column {
	const char *name;
	int width;		/* text format */
	bool str;		/* a JSON string */
	bool file_only;		/* jsonl: only for file pages */
} cols[NCOLS] = {
	[C_PFN] = { "pfn", 12, false, false },
	[C_CLASS] = { "class", 10, true, false },
	[C_SUB] = { "subclass", 20, true, false },
	[C_ROLE] = { "role", 10, true, false },
	[C_ORDER] = { "order", 5, false, false },
	[C_HEAD] = { "head_pfn", 12, false, false },
	[C_REF] = { "refcount", 8, false, false },
	[C_MAP] = { "mapcount", 8, false, false },
	[C_OWNER] = { "owner", 5, true, false },
	[C_DEV] = { "dev", 7, true, true },
	[C_INODE] = { "inode", 10, false, true },
	[C_OFFSET] = { "offset", 10, false, true },
	[C_CGROUP] = { "cgroup", 6, false, false },
	[C_NODE] = { "node", 4, false, false },
	[C_ZONE] = { "zone", 7, true, false },
	[C_FLAGS] = { "flags", 0, true, false },
	[C_MAPPING] = { "mapping", 0, true, false },
	[C_MEMCG] = { "memcg_data", 0, true, false },
	[C_RAW] = { "raw", 0, true, false },
};

struct field {
	char s[512];	/* the flags string is the longest */
	size_t n;
};

static void fstr(struct field *f, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(f->s))
		n = sizeof(f->s) - 1;
	memcpy(f->s, s, n);
	f->n = n;
}

static void fu64(struct field *f, __u64 v, bool hex)
{
	static const char hx[] = "0123456789abcdef";
	char b[24];
	int i = sizeof(b);

	do {
		b[--i] = hex ? hx[v & 15] : (char)('0' + v % 10);
		v = hex ? v >> 4 : v / 10;
	} while (v);
	if (hex) {
		b[--i] = 'x';
		b[--i] = '0';
	}
	f->n = sizeof(b) - i;
	memcpy(f->s, b + i, f->n);
}

static void fs64(struct field *f, long long v)
{
	if (v >= 0) {
		fu64(f, (__u64)v, false);
		return;
	}
	fu64(f, (__u64)-(v + 1) + 1, false);
	memmove(f->s + 1, f->s, f->n);
	f->s[0] = '-';
	f->n++;
}

static void header(struct dumper *d)
{
	int c, n = d->raw ? NCOLS : NCOLS_PLAIN;

	if (d->fmt == DF_JSONL)
		return;
	for (c = 0; c < n; c++) {
		char up[32];
		size_t i, start = d->n;

		if (d->fmt == DF_CSV) {
			if (c)
				putc_(d, ',');
			puts_(d, cols[c].name);
			continue;
		}
		for (i = 0; cols[c].name[i] && i < sizeof(up) - 1; i++)
			up[i] = (char)toupper((unsigned char)cols[c].name[i]);
		up[i] = '\0';
		puts_(d, up);
		if (c < n - 1)
			pad_to(d, start, (size_t)cols[c].width);
	}
	putc_(d, '\n');
}

static int on_page(void *arg, __u64 pfn, const struct ms_page_rec *r)
{
	struct dumper *d = arg;
	struct field f[NCOLS];
	const struct ms_zone *z;
	int c, n = d->raw ? NCOLS : NCOLS_PLAIN;
	bool file, typed;
	long long mapcount;
	char dev[24];

	if (pfn < d->first || pfn > d->last || !r->valid || r->sub >= MS_NR_SUBS)
		return 0;
	if (!(d->want & (1U << r->sub)))
		return 0;
	d->printed++;
	d->sub[r->sub]++;
	z = zone_of(d, pfn);
	file = r->ino != 0;
	typed = ms_ptype(d->feat, ms_page_type_word(r->w)) != MS_T_NONE;
	mapcount = typed ? 0 : (long long)(__s32)ms_page_type_word(r->w) + 1;
	if (file)
		snprintf(dev, sizeof(dev), "%u:%u", r->dev >> 20, r->dev & 0xfffff);

	fu64(&f[C_PFN], pfn, d->fmt != DF_JSONL);
	fstr(&f[C_CLASS], ms_classes[ms_subs[r->sub].cls].key);
	fstr(&f[C_SUB], ms_subs[r->sub].key);
	fstr(&f[C_ROLE], role_name(r->role));
	fu64(&f[C_ORDER], r->order, false);
	fu64(&f[C_HEAD], r->head_pfn, d->fmt != DF_JSONL);
	fs64(&f[C_REF], ms_refcount(r->w));
	fs64(&f[C_MAP], mapcount < 0 ? 0 : mapcount);
	fstr(&f[C_OWNER], owner_kind(r));
	fstr(&f[C_DEV], file ? dev : d->fmt == DF_TEXT ? "-" : "");
	if (file) {
		fu64(&f[C_INODE], r->ino, false);
		fu64(&f[C_OFFSET], r->offset, false);
	} else {
		fstr(&f[C_INODE], d->fmt == DF_TEXT ? "-" : "");
		fstr(&f[C_OFFSET], d->fmt == DF_TEXT ? "-" : "");
	}
	fu64(&f[C_CGROUP], r->cgroup, false);
	fs64(&f[C_NODE], z ? z->node : -1);
	fstr(&f[C_ZONE], z ? z->name : d->fmt == DF_TEXT ? "-" : "");
	/* a tail shows its folio's flags, as /proc/kpageflags does since 6.12 */
	fstr(&f[C_FLAGS], flags_string(d, r->role == MS_ROLE_TAIL ? r->head_flags : r->w[MS_W_FLAGS]));
	if (d->raw) {
		fu64(&f[C_MAPPING], r->w[MS_W_MAPPING], true);
		fu64(&f[C_MEMCG], r->w[MS_W_MEMCG], true);
		f[C_RAW].n = 0;
		for (c = 0; c < MS_PAGE_WORDS; c++) {
			struct field w;

			fu64(&w, r->w[c], true);
			if (c)
				f[C_RAW].s[f[C_RAW].n++] = ' ';
			memcpy(f[C_RAW].s + f[C_RAW].n, w.s, w.n);
			f[C_RAW].n += w.n;
		}
	}

	if (d->n + 1024 > sizeof(d->out))
		flush(d);
	if (d->fmt == DF_JSONL)
		putc_(d, '{');
	for (c = 0; c < n; c++) {
		size_t start = d->n;

		if (d->fmt == DF_JSONL) {
			if (cols[c].file_only && !file)
				continue;
			puts_(d, c ? ",\"" : "\"");
			puts_(d, cols[c].name);
			puts_(d, cols[c].str ? "\":\"" : "\":");
			put(d, f[c].s, f[c].n);	/* names, numbers: nothing to escape */
			if (cols[c].str)
				putc_(d, '"');
			continue;
		}
		if (c && d->fmt == DF_CSV)
			putc_(d, ',');
		put(d, f[c].s, f[c].n);	/* csv: no value holds a comma or a quote */
		if (d->fmt == DF_TEXT && c < n - 1)
			pad_to(d, start, (size_t)cols[c].width);
	}
	puts_(d, d->fmt == DF_JSONL ? "}\n" : "\n");
	return d->err ? -1 : 0;
}

/* ---- options ---- */

static int usage_error(const char *msg, const char *arg)
{
	fputs("memstat: ", stderr);
	fprintf(stderr, msg, arg);
	fputs("\nTry 'memstat allpages --help' for more information.\n", stderr);
	return MS_EXIT_USAGE;
}

/* A pfn: digits, hex with 0x; strtoull() alone would also take " -1" (as 2^64 - 1) or "+1". */
static int parse_pfn(const char *s, __u64 *v, char **end)
{
	errno = 0;
	*v = strtoull(s, end, 0);
	return *end == s || errno || !isdigit((unsigned char)*s) ? -1 : 0;
}

static int parse_class_list(const char *arg, __u32 *want)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int c, i, found;

	*want = 0;
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		found = 0;
		for (c = 0; c < MS_NR_CLASSES; c++) {
			if (strcmp(tok, ms_classes[c].key))
				continue;
			for (i = 0; i < MS_NR_SUBS; i++)
				if (ms_subs[i].cls == (enum ms_class)c)
					*want |= 1U << i;
			found = 1;
		}
		for (i = 0; i < MS_NR_SUBS; i++) {
			if (!strcmp(tok, ms_subs[i].key)) {
				*want |= 1U << i;
				found = 1;
			}
		}
		if (!found) {
			int ret = usage_error("unknown class '%s' (expected kernel, anon, shmem, exec, "
					      "page_cache, hugetlb, free or a detail key such as "
					      "kernel_slab)", tok);

			free(copy);
			return ret;
		}
	}
	free(copy);
	return *want ? 0 : usage_error("%s", "--class needs at least one class");
}

/* Restrict the present ranges to [first, last]; none left is an error. */
static int clip_ranges(const struct ms_ranges *all, __u64 first, __u64 last, struct ms_ranges *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->r = calloc(all->n ? all->n : 1, sizeof(*out->r));
	if (!out->r)
		return -ENOMEM;
	for (i = 0; i < all->n; i++) {
		__u64 s = all->r[i].start > first ? all->r[i].start : first;
		__u64 e = last == ~0ULL || all->r[i].end <= last ? all->r[i].end : last + 1;

		if (s >= e)
			continue;
		out->r[out->n].start = s;
		out->r[out->n].end = e;
		out->pages += e - s;
		out->n++;
	}
	return out->n ? 0 : -ERANGE;
}

int ms_allpages_main(int argc, char **argv, const struct ms_ranges *present)
{
	enum { OPT_PFN = 0x100, OPT_CLASS, OPT_SUMMARY, OPT_RAW };
	static const struct option longopts[] = {
		{ "pfn", required_argument, NULL, OPT_PFN },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "format", required_argument, NULL, 'f' },
		{ "backend", required_argument, NULL, 'b' },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "raw-pointers", no_argument, NULL, OPT_RAW },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dumper *d = calloc(1, sizeof(*d));
	struct ms_report_opts ro = {};
	struct ms_ranges ranges = {};
	struct ms_result res;
	enum ms_backend_choice backend = MS_BE_AUTO;
	struct ms_backend be = {};
	bool summary = false;
	char why[512];
	int c, ret = MS_EXIT_USAGE;

	if (!d) {
		ms_err("out of memory");
		return MS_EXIT_FAIL;
	}
	d->want = (1U << MS_NR_SUBS) - 1;
	d->first = 0;
	d->last = ~0ULL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:b:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case OPT_PFN:
			if (parse_pfn(optarg, &d->first, &end) || *end != '-' ||
			    parse_pfn(end + 1, &d->last, &end) || *end || d->first > d->last) {
				ret = usage_error("invalid pfn range '%s': expected START-END, e.g. "
						  "0x100000-0x1fffff", optarg);
				goto out;
			}
			break;
		case OPT_CLASS:
			ret = parse_class_list(optarg, &d->want);
			if (ret)
				goto out;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				d->fmt = DF_TEXT;
			else if (!strcmp(optarg, "csv"))
				d->fmt = DF_CSV;
			else if (!strcmp(optarg, "jsonl"))
				d->fmt = DF_JSONL;
			else {
				ret = usage_error("unknown format '%s' (expected text, csv or jsonl)",
						  optarg);
				goto out;
			}
			break;
		case 'b':
			if (ms_backend_parse(optarg, &backend) || backend == MS_BE_KPF) {
				ret = usage_error("unknown backend '%s' (allpages: auto, bpf or kmod)",
						  optarg);
				goto out;
			}
			break;
		case OPT_SUMMARY:
			summary = true;
			break;
		case OPT_RAW:
			d->raw = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			ret = MS_EXIT_OK;
			goto out;
		case ':':
			ret = usage_error("option '%s' needs an argument", argv[optind - 1]);
			goto out;
		default:
			ret = usage_error("unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	if (optind < argc) {
		ret = usage_error("unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (clip_ranges(present, d->first, d->last, &ranges)) {
		char msg[160];

		snprintf(msg, sizeof(msg), "%#llx-%#llx",
			 (unsigned long long)d->first, (unsigned long long)d->last);
		fputs("memstat: ", stderr);
		fprintf(stderr, "pfn range %s holds no present memory (present pfns end at %#llx)\n",
			msg, (unsigned long long)(present->n ? present->r[present->n - 1].end - 1 : 0));
		ret = MS_EXIT_USAGE;
		goto out;
	}

	ret = ms_backend_open(backend, MS_BPF_ALLPAGES, false, &be, why, sizeof(why), NULL, 0);
	if (ret) {
		ms_err("%s (allpages needs the bpf or the kmod backend)", why);
		goto out;
	}
	d->feat = be.bpf ? ms_bpf_features(be.bpf) : ms_kmod_features(be.kmod);
	if (be.kmod)
		ms_kmod_set_raw_pointers(be.kmod, d->raw);
	if (load_flag_names(d))
		ms_err("kernel BTF has no enum pageflags: flags are printed as '?'");
	load_zones(d);

	header(d);
	ret = be.bpf ? ms_bpf_dump(be.bpf, &ranges, &res, on_page, d) :
		       ms_kmod_walk(be.kmod, &ranges, &res, NULL, on_page, d);
	if (!d->err)
		flush(d);
	if (d->err == EPIPE) {	/* memstat allpages | head: a normal end */
		ret = MS_EXIT_OK;
		goto out;
	}
	if (d->err) {
		ms_err("failed to write output: %s", strerror(d->err));
		ret = MS_EXIT_FAIL;
		goto out;
	}
	if (ret)
		goto out;
	if (summary) {
		FILE *out = d->fmt == DF_TEXT ? stdout : stderr;

		if (d->fmt == DF_TEXT)
			fputc('\n', stdout);
		ms_print_summary(out, &res, &ro);
		if (fflush(out) && errno != EPIPE) {
			ms_err("failed to write output: %s", strerror(errno));
			ret = MS_EXIT_FAIL;
		}
	}
out:
	ms_backend_close(&be);
	ms_ranges_free(&ranges);
	for (c = 0; c < 64; c++)
		free((void *)d->flag_name[c]);
	free(d->zones);
	free(d);
	return ret;
}
