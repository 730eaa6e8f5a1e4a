// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat --by process: each process's mapped pages, by class (procs.h says what is counted).
 *
 * The walk's runs (ms_procs_run(), in pfn order) give each pfn its sub-class. Each process's
 * page tables give the pfns it maps: /proc/PID/maps for its areas, /proc/PID/pagemap for the
 * pfn of each page of an area. An area can be terabytes of address space with a few pages in it
 * (sanitizers' shadow, language runtimes' reservations): from 6.7 the PAGEMAP_SCAN ioctl of
 * pagemap says where the present and swapped pages are, and only those entries are read; before
 * it, every entry of the area is read. No pfn is ever printed.
 *
 * A page's PSS share is 1/n, n its mapcount as the kernel counts it (/proc/kpagecount, as smaps's
 * PSS), which also counts the mappings of processes memstat does not read (another PID
 * namespace's, or ones it may not read). A 16-bit count per page of present memory (saturating
 * at 65535) marks the pages mapped while the processes are read, counting their mappings; then
 * kpagecount is read at the marked pages only, in runs, and its counts replace those. Where
 * kpagecount cannot be read, the mappings counted stay (JSON "mapcount": "mappings_read").
 * The shared zero pages, which
 * every process reading untouched memory maps and smaps does not count, are found by their
 * kpageflags (KPF_ZERO_PAGE) among the kernel pages processes map, and left out.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "procs.h"
#include "testhooks.h"

/* The PAGEMAP_SCAN ioctl of linux/fs.h (v6.7, 52526ca7fdb9): Debian 12's headers lack it. */
struct pm_region {
	__u64 start, end, categories;
};
struct pm_scan {
	__u64 size, flags, start, end, walk_end, vec, vec_len, max_pages;
	__u64 category_inverted, category_mask, category_anyof_mask, return_mask;
};
#define PM_SCAN _IOWR('f', 16, struct pm_scan)
#define PM_IS_PRESENT (1ULL << 3)
#define PM_IS_SWAPPED (1ULL << 4)

#define PM_ENTRY_PRESENT (1ULL << 63)	/* Documentation/admin-guide/mm/pagemap.rst */
#define PM_ENTRY_SWAPPED (1ULL << 62)
#define PM_ENTRY_PFN ((1ULL << 55) - 1)
#define KPF_ZERO_PAGE 24
#define CHUNK 4096			/* pagemap entries read at once */

int ms_procs_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	struct ms_procs *ps = arg;

	/* the record walk (--wss) gives a page at a time: it extends the last run of its sub */
	if (ps->nruns && npages) {
		struct ms_run *last = &ps->runs[ps->nruns - 1];

		if (last->sub == sub && last->pfn + last->npages == pfn &&
		    last->npages + npages <= UINT32_MAX) {
			last->npages += (__u32)npages;
			return 0;
		}
	}
	/* a run's npages is 32 bits: a longer one (free memory) is split */
	while (npages) {
		__u32 n = npages > UINT32_MAX ? UINT32_MAX : (__u32)npages;

		if (ps->nruns == ps->runs_cap) {
			size_t cap = ps->runs_cap ? ps->runs_cap * 2 : 4096;
			struct ms_run *r = realloc(ps->runs, cap * sizeof(*r));

			if (!r)
				return -ENOMEM;
			ps->runs = r;
			ps->runs_cap = cap;
		}
		ps->runs[ps->nruns++] = (struct ms_run){ .pfn = pfn, .npages = n, .sub = sub };
		pfn += n;
		npages -= n;
	}
	return 0;
}

/* The mapping counts: one array per present range. */
struct counts {
	const struct ms_ranges *r;
	__u16 **c;
	size_t hint;
};

static __u16 *count_of(struct counts *k, __u64 pfn)
{
	const struct ms_range *x = k->r->n ? &k->r->r[k->hint] : NULL;
	size_t lo = 0, hi = k->r->n;

	if (x && pfn >= x->start && pfn < x->end)
		return &k->c[k->hint][pfn - x->start];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (pfn < k->r->r[mid].start)
			hi = mid;
		else if (pfn >= k->r->r[mid].end)
			lo = mid + 1;
		else {
			k->hint = mid;
			return &k->c[mid][pfn - k->r->r[mid].start];
		}
	}
	return NULL;
}

/* The sub-class of pfn by the walk's runs (MS_NR_SUBS: in none); *hint: the last run found */
static enum ms_sub sub_of(const struct ms_procs *ps, __u64 pfn, size_t *hint)
{
	size_t lo = 0, hi = ps->nruns;

	if (*hint < ps->nruns && pfn >= ps->runs[*hint].pfn &&
	    pfn < ps->runs[*hint].pfn + ps->runs[*hint].npages)
		return (enum ms_sub)ps->runs[*hint].sub;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct ms_run *x = &ps->runs[mid];

		if (pfn < x->pfn)
			hi = mid;
		else if (pfn >= x->pfn + x->npages)
			lo = mid + 1;
		else {
			*hint = mid;
			return (enum ms_sub)x->sub;
		}
	}
	return MS_NR_SUBS;
}

static int add_pfn(struct ms_proc *p, __u64 pfn)
{
	if (p->npfns == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		__u64 *n = realloc(p->pfns, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->pfns = n;
		p->cap = cap;
	}
	p->pfns[p->npfns++] = pfn;
	return 0;
}

/* The error of a failed open or read of /proc/PID/...: -ESRCH when the process went away. */
static int gone_or(int err)
{
	return err == ENOENT || err == ESRCH ? -ESRCH : -err;
}

/*
 * The entries of pages [first, first + n) of the address space: each present page's pfn kept
 * and counted, each swapped one counted. -ESRCH when the process has gone.
 */
static int read_entries(struct ms_procs *ps, struct counts *k, struct ms_proc *p, int fd,
			__u64 first, __u64 n, __u64 *buf)
{
	while (n) {
		size_t want = n > CHUNK ? CHUNK : (size_t)n;
		ssize_t got = pread(fd, buf, want * 8, (off_t)(first * 8));

		if (got < 0)
			return errno == EIO ? -ESRCH : gone_or(errno);
		if (got == 0)
			return -ESRCH;	/* its address space is gone */
		for (size_t i = 0; i < (size_t)got / 8; i++) {
			__u64 e = buf[i], pfn = e & PM_ENTRY_PFN;
			__u16 *c;

			if (e & PM_ENTRY_SWAPPED) {
				p->swap++;
				continue;
			}
			if (!(e & PM_ENTRY_PRESENT))
				continue;
			c = pfn && k ? count_of(k, pfn) : NULL;
			if (k && !c) {
				ps->outside++;
				continue;
			}
			if (c && *c < UINT16_MAX)
				(*c)++;
			if (add_pfn(p, pfn))
				return -ENOMEM;
		}
		first += (size_t)got / 8;
		n -= (size_t)got / 8;
	}
	return 0;
}

/*
 * Without PAGEMAP_SCAN every entry of an area is read: a process's areas may span any address
 * space (a reservation of terabytes costs nothing to map). At most MS_PROC_ENTRIES of them are
 * read per process (1 TiB of address space, 2 GiB of entries, about a second); a process with
 * more is read only so far, and counted apart (1: stop reading it).
 */
#define MS_PROC_ENTRIES (1ULL << 28)
static int read_all(struct ms_procs *ps, struct counts *k, struct ms_proc *p, int fd,
		    __u64 first, __u64 n, __u64 *buf, __u64 *budget)
{
	int ret;

	if (n > *budget) {
		ret = read_entries(ps, k, p, fd, first, *budget, buf);
		*budget = 0;
		return ret ? ret : 1;
	}
	*budget -= n;
	return read_entries(ps, k, p, fd, first, n, buf);
}

/* One area [start, end) (bytes): with PAGEMAP_SCAN only its present and swapped pages */
static int read_area(struct ms_procs *ps, struct counts *k, struct ms_proc *p, int fd,
		     __u64 start, __u64 end, __u64 psize, __u64 *buf, bool *scan, __u64 *budget)
{
	struct pm_region v[256];
	struct pm_scan a;
	int ret;

	if (!*scan)
		return read_all(ps, k, p, fd, start / psize, (end - start) / psize, buf, budget);
	while (start < end) {
		long n;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.start = start;
		a.end = end;
		a.vec = (__u64)(uintptr_t)v;
		a.vec_len = sizeof(v) / sizeof(v[0]);
		a.category_anyof_mask = PM_IS_PRESENT | PM_IS_SWAPPED;
		a.return_mask = PM_IS_PRESENT | PM_IS_SWAPPED;
		n = ioctl(fd, PM_SCAN, &a);
		if (n < 0) {
			if (errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP) {
				*scan = false;	/* before 6.7: read every entry */
				return read_all(ps, k, p, fd, start / psize,
						(end - start) / psize, buf, budget);
			}
			return gone_or(errno);
		}
		for (long i = 0; i < n; i++) {
			ret = read_entries(ps, k, p, fd, v[i].start / psize,
					   (v[i].end - v[i].start) / psize, buf);
			if (ret)
				return ret;
		}
		if (a.walk_end <= start)
			break;
		start = a.walk_end;
	}
	return 0;
}

/* The whole of an open file (malloc'd, NUL-terminated), or NULL with errno set. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap), *nb;
	ssize_t got;

	while (b && (got = read(fd, b + n, cap - n - 1)) > 0) {
		n += (size_t)got;
		if (cap - n - 1 == 0) {
			nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				errno = ENOMEM;
				return NULL;
			}
			b = nb;
			cap *= 2;
		}
	}
	if (b && got < 0) {
		int e = errno;

		free(b);
		errno = e;
		return NULL;
	}
	if (b) {
		b[n] = '\0';
		*len = n;
	}
	return b;
}

/*
 * Read process pid: 0; 1 when it has no address space (a kernel thread, a zombie); -ESRCH when
 * it went away; else -errno (-EACCES: memstat may not read its page tables).
 */
static int read_proc(struct ms_procs *ps, struct counts *k, int procfd, int pid,
		     struct ms_proc *p, __u64 *buf)
{
	__u64 budget = MS_PROC_ENTRIES;
	char name[32], *maps = NULL, *line, *save = NULL;
	const __u64 psize = (__u64)sysconf(_SC_PAGESIZE);
	int dir, fd = -1, ret = -ESRCH;
	size_t len;
	ssize_t n;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->nprocs = 1;
	snprintf(name, sizeof(name), "%d", pid);
	dir = openat(procfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return -ESRCH;
	fd = openat(dir, "comm", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = gone_or(errno);
		goto out;
	}
	n = read(fd, p->comm, sizeof(p->comm) - 1);
	ret = n < 0 ? gone_or(errno) : -ESRCH;
	close(fd);
	fd = -1;
	if (n <= 0)
		goto out;
	p->comm[n] = '\0';
	p->comm[strcspn(p->comm, "\n")] = '\0';
	fd = openat(dir, "maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = gone_or(errno);
		goto out;
	}
	maps = slurp(fd, &len);
	ret = maps ? 1 : gone_or(errno);
	close(fd);
	fd = -1;
	if (!maps || !len)	/* a kernel thread or a zombie */
		goto out;
	fd = openat(dir, "pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = gone_or(errno);
		goto out;
	}
	ret = 0;
	for (line = strtok_r(maps, "\n", &save); line && !ret; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long s, e;

		if (sscanf(line, "%llx-%llx", &s, &e) != 2 || e <= s || strstr(line, "[vsyscall]"))
			continue;
		ret = read_area(ps, k, p, fd, s, e, psize, buf, &ps->scan, &budget);
	}
	if (ret == 1) {	/* read in part: kept, and said */
		ps->partial++;
		ret = 0;
	}
out:
	if (fd >= 0)
		close(fd);
	close(dir);
	free(maps);
	return ret;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * The zero pages among the kernel pages mapped: kernel is the sorted, unique pfns of kernel
 * class that processes map; on return the first *nzero of it are the zero pages, sorted.
 */
static void zero_pages(const char *kpageflags, __u64 *kernel, size_t n, size_t *nzero)
{
	int fd = open(kpageflags ? kpageflags : "/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	size_t i = 0, z = 0;
	__u64 f[64];

	*nzero = 0;
	if (fd < 0)
		return;	/* then nothing is left out: said by the zero count staying 0 */
	while (i < n) {
		size_t run = 1;
		ssize_t got;

		while (i + run < n && run < 64 && kernel[i + run] == kernel[i] + run)
			run++;
		got = pread(fd, f, run * 8, (off_t)(kernel[i] * 8));
		for (size_t j = 0; got > 0 && j < (size_t)got / 8; j++)
			if (f[j] & (1ULL << KPF_ZERO_PAGE))
				kernel[z++] = kernel[i + j];
		i += run;
	}
	close(fd);
	*nzero = z;
}

/*
 * The kernel's mapcounts of the marked pages, into the counts: one read per run of marked pages
 * (runs less than GAP pages apart read as one). false when kpagecount cannot be read.
 */
#define GAP 256
static bool kernel_mapcounts(struct counts *k, const char *path)
{
	int fd = open(path ? path : "/proc/kpagecount", O_RDONLY | O_CLOEXEC);
	__u64 *buf;

	if (fd < 0)
		return false;
	buf = malloc(CHUNK * 8);
	if (!buf) {
		close(fd);
		return false;
	}
	for (size_t i = 0; i < k->r->n; i++) {
		__u64 len = k->r->r[i].end - k->r->r[i].start, at = 0;
		__u16 *c = k->c[i];

		while (at < len) {
			__u64 s, e, last;
			ssize_t got;

			while (at < len && !c[at])
				at++;
			if (at == len)
				break;
			s = at;
			last = at;
			for (e = at; e < len && e - s < CHUNK && e - last <= GAP; e++)
				if (c[e])
					last = e;
			e = last + 1;
			got = pread(fd, buf, (e - s) * 8, (off_t)((k->r->r[i].start + s) * 8));
			if (got < (ssize_t)((e - s) * 8)) {
				free(buf);
				close(fd);
				return false;	/* the counts are partly the kernel's: both say so */
			}
			/* the kernel's count, but never under the mappings memstat read (a page
			 * unmapped since, or a large folio's average mapcount from 6.15): a
			 * page's shares never add up to more than the page */
			for (__u64 j = s; j < e; j++)
				if (c[j] && buf[j - s] > c[j])
					c[j] = buf[j - s] > UINT16_MAX ? UINT16_MAX : (__u16)buf[j - s];
			at = e;
		}
	}
	free(buf);
	close(fd);
	return true;
}

/* Each process's pages by class, PSS, USS, from the counts; the pfn lists freed. */
static int account(struct ms_procs *ps, struct counts *k, const char *kpageflags)
{
	__u64 *kernel = NULL;
	size_t nk = 0, capk = 0, nzero = 0, hint = 0;

	for (size_t i = 0; i < ps->n; i++)
		for (size_t j = 0; j < ps->p[i].npfns; j++) {
			enum ms_sub s = sub_of(ps, ps->p[i].pfns[j], &hint);

			if (s == MS_NR_SUBS || ms_subs[s].cls != MS_C_KERNEL)
				continue;
			if (nk == capk) {
				__u64 *nb = realloc(kernel, (capk = capk ? capk * 2 : 256) *
						    sizeof(*nb));
				if (!nb) {
					free(kernel);
					return -ENOMEM;
				}
				kernel = nb;
			}
			kernel[nk++] = ps->p[i].pfns[j];
		}
	if (nk) {
		size_t u = 0;

		qsort(kernel, nk, sizeof(*kernel), cmp_u64);
		for (size_t i = 0; i < nk; i++)
			if (!u || kernel[u - 1] != kernel[i])
				kernel[u++] = kernel[i];
		zero_pages(kpageflags, kernel, u, &nzero);
		ps->mapped_pages -= nzero < ps->mapped_pages ? nzero : ps->mapped_pages;
	}
	for (size_t i = 0; i < ps->n; i++) {
		struct ms_proc *p = &ps->p[i];

		for (size_t j = 0; j < p->npfns; j++) {
			__u64 pfn = p->pfns[j];
			enum ms_sub s = sub_of(ps, pfn, &hint);
			enum ms_class c = s == MS_NR_SUBS ? MS_C_UNKNOWN : ms_subs[s].cls;
			__u16 n = *count_of(k, pfn) ? *count_of(k, pfn) : 1;

			if (c == MS_C_KERNEL && nzero &&
			    bsearch(&pfn, kernel, nzero, sizeof(*kernel), cmp_u64)) {
				ps->zero++;
				continue;
			}
			p->rss[c]++;
			p->rss_total++;
			if (ps->verdict) {	/* --wss: the page's verdict in the window */
				int v = ps->verdict(ps->verdict_arg, pfn);

				if (v >= 0 && v < MS_WSS_VERDICTS)
					p->wss[v][c]++;
			}
			p->pss[c] += 1.0 / n;
			p->pss_total += 1.0 / n;
			p->uss += n == 1;
		}
		free(p->pfns);
		p->pfns = NULL;
		p->npfns = p->cap = 0;
	}
	free(kernel);
	return 0;
}

static void add_to(struct ms_proc *to, const struct ms_proc *p)
{
	for (int c = 0; c < MS_NR_CLASSES; c++) {
		to->pss[c] += p->pss[c];
		to->rss[c] += p->rss[c];
		for (int v = 0; v < MS_WSS_VERDICTS; v++)
			to->wss[v][c] += p->wss[v][c];
	}
	to->pss_total += p->pss_total;
	to->rss_total += p->rss_total;
	to->uss += p->uss;
	to->swap += p->swap;
	to->nprocs += p->nprocs;
}

static int by_comm(const void *a, const void *b)
{
	const struct ms_proc *x = a, *y = b;
	int c = strcmp(x->comm, y->comm);

	return c ? c : x->pid - y->pid;
}

/* --by command: the processes of one name summed into one row (the first PID kept) */
static void merge_commands(struct ms_procs *ps)
{
	size_t out = 0;

	if (ps->n)
		qsort(ps->p, ps->n, sizeof(*ps->p), by_comm);
	for (size_t i = 0; i < ps->n; i++) {
		if (out && !strcmp(ps->p[out - 1].comm, ps->p[i].comm)) {
			add_to(&ps->p[out - 1], &ps->p[i]);
			continue;
		}
		if (out != i)
			ps->p[out] = ps->p[i];
		out++;
	}
	ps->n = out;
}

static const struct ms_procs *sort_ps;

static int by_pss(const void *a, const void *b)
{
	const struct ms_proc *x = &sort_ps->p[*(const size_t *)a];
	const struct ms_proc *y = &sort_ps->p[*(const size_t *)b];

	if (x->pss_total != y->pss_total)
		return x->pss_total < y->pss_total ? 1 : -1;
	return x->pid - y->pid;
}

/* The rows: by PSS, the first top shown, the rest summed in other. */
static int finish(struct ms_procs *ps)
{
	ps->nread = ps->n;
	if (ps->by_command)
		merge_commands(ps);
	ps->order = malloc((ps->n ? ps->n : 1) * sizeof(*ps->order));
	if (!ps->order)
		return -ENOMEM;
	for (size_t i = 0; i < ps->n; i++)
		ps->order[i] = i;
	sort_ps = ps;
	qsort(ps->order, ps->n, sizeof(*ps->order), by_pss);
	ps->nshown = ps->top && ps->top < ps->n ? ps->top : ps->n;
	while (ps->nshown && ps->p[ps->order[ps->nshown - 1]].pss_total < ps->min_pages)
		ps->nshown--;
	for (size_t i = 0; i < ps->n; i++) {
		add_to(&ps->total, &ps->p[ps->order[i]]);
		if (i >= ps->nshown) {
			add_to(&ps->other, &ps->p[ps->order[i]]);
			ps->nother++;
		}
	}
	return 0;
}

int ms_procs_read(struct ms_procs *ps, const struct ms_ranges *r, const char *proc,
		  const char *kpageflags, const char *kpagecount)
{
	struct counts k = { .r = r };
	int procfd, ret = 0;
	struct dirent *d;
	__u64 *buf;
	DIR *dir;

	ps->scan = !ms_test_hook(MS_TEST_NO_PAGEMAP_SCAN);
	k.c = calloc(r->n ? r->n : 1, sizeof(*k.c));
	buf = malloc(CHUNK * 8);
	if (!k.c || !buf) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < r->n; i++) {
		k.c[i] = calloc(r->r[i].end - r->r[i].start, sizeof(**k.c));
		if (!k.c[i]) {
			ret = -ENOMEM;
			goto out;
		}
	}
	procfd = open(proc ? proc : "/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = procfd < 0 ? NULL : fdopendir(procfd);
	if (!dir) {
		ret = -errno;
		if (procfd >= 0)
			close(procfd);
		goto out;
	}
	while (!ret && (d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		int err;

		if (*end || pid <= 0)
			continue;
		if (ps->n == ps->cap) {
			size_t cap = ps->cap ? ps->cap * 2 : 256;
			struct ms_proc *np = realloc(ps->p, cap * sizeof(*np));

			if (!np) {
				ret = -ENOMEM;
				break;
			}
			ps->p = np;
			ps->cap = cap;
		}
		if (pid == getpid())
			continue;	/* memstat itself: its own arrays are no answer */
		err = read_proc(ps, &k, procfd, (int)pid, &ps->p[ps->n], buf);
		if (!err) {
			ps->n++;
			continue;
		}
		/* left out: so are its mappings from the counts */
		for (size_t j = 0; j < ps->p[ps->n].npfns; j++)
			if (*count_of(&k, ps->p[ps->n].pfns[j]) != UINT16_MAX)	/* not counted */
				(*count_of(&k, ps->p[ps->n].pfns[j]))--;
		free(ps->p[ps->n].pfns);
		if (err == -ENOMEM)
			ret = err;
		else if (err == -ESRCH)
			ps->exited++;
		else if (err == 1)
			ps->no_mm++;
		else if (!ps->unreadable++) {
			ps->unreadable_pid = (int)pid;
			ps->unreadable_err = -err;
			memcpy(ps->unreadable_comm, ps->p[ps->n].comm, sizeof(ps->unreadable_comm));
		}
	}
	closedir(dir);
	for (size_t i = 0; !ret && i < r->n; i++)	/* distinct pages mapped */
		for (__u64 j = 0; j < r->r[i].end - r->r[i].start; j++)
			ps->mapped_pages += k.c[i][j] != 0;
	if (!ret)
		ps->kernel_mapcount = kernel_mapcounts(&k, kpagecount);
	if (!ret)
		ret = account(ps, &k, kpageflags);
	if (!ret)
		ret = finish(ps);
out:
	for (size_t i = 0; k.c && i < r->n; i++)
		free(k.c[i]);
	free(k.c);
	free(buf);
	return ret;
}

int ms_proc_pfns(int pid, __u64 **pfns, size_t *n)
{
	struct ms_procs ps = { .scan = !ms_test_hook(MS_TEST_NO_PAGEMAP_SCAN) };
	struct ms_proc p;
	__u64 *buf = malloc(CHUNK * 8);
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err;
	size_t u = 0;

	*pfns = NULL;
	*n = 0;
	if (!buf || procfd < 0) {
		err = !buf ? -ENOMEM : -errno;
		free(buf);
		if (procfd >= 0)
			close(procfd);
		return err;
	}
	err = read_proc(&ps, NULL, procfd, pid, &p, buf);
	free(buf);
	close(procfd);
	if (err < 0) {
		free(p.pfns);
		return err;
	}
	if (p.npfns)
		qsort(p.pfns, p.npfns, sizeof(*p.pfns), cmp_u64);
	for (size_t i = 0; i < p.npfns; i++)
		if (p.pfns[i] && (!u || p.pfns[u - 1] != p.pfns[i]))
			p.pfns[u++] = p.pfns[i];
	*pfns = p.pfns;
	*n = u;
	return 0;
}

void ms_procs_reset(struct ms_procs *ps)
{
	struct ms_procs keep = { .top = ps->top, .min_pages = ps->min_pages, .partial = 0,
				 .by_command = ps->by_command, .runs = ps->runs,
				 .runs_cap = ps->runs_cap, .verdict = ps->verdict,
				 .verdict_arg = ps->verdict_arg };

	for (size_t i = 0; i < ps->n; i++)
		free(ps->p[i].pfns);
	free(ps->p);
	free(ps->order);
	*ps = keep;
}

void ms_procs_free(struct ms_procs *ps)
{
	ms_procs_reset(ps);	/* the rows; the runs, which reset keeps, then */
	free(ps->runs);
	memset(ps, 0, sizeof(*ps));
}
