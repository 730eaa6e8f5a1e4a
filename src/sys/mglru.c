// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The multi-gen LRU's state and generations (mglru.h), read from sysfs and debugfs. Nothing
 * here writes but ms_mglru_age(), the aging of a working-set window (--wss, wss.c).
 *
 * lru_gen_full's format (mm/vmscan.c lru_gen_seq_show(), 6.1 to 7.x; see
 * Documentation/admin-guide/mm/multigen_lru.rst): per memory cgroup "memcg ID PATH", per node
 * " node N", then per generation from the oldest " SEQ AGE_MS ANON[x] FILE[x]" (x: that type's
 * generation is already evicted; SEQ right-aligned in 10 columns after one space), each followed
 * in the full file by one line per tier and one of statistics, whose counts and marks differ
 * between versions (6.1: six statistics, marked with letters or blanks; later four) but which
 * start further right (12 and 22 blanks before their first field's 10 columns).
 */
#define _GNU_SOURCE	/* qsort_r */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mglru.h"

int ms_mglru_enabled(const char *path)
{
	FILE *f = fopen(path, "re");
	long v;
	int ret;

	if (!f)
		return -errno;
	ret = fscanf(f, "%li", &v) == 1 ? (int)(v & 1) : -EINVAL;
	fclose(f);
	return ret;
}

/* a count as printed: digits, then at most one mark (`marks` lists those allowed) */
static bool count_of(const char *tok, const char *marks, __u64 *v)
{
	char *end;

	if (*tok < '0' || *tok > '9')
		return false;
	errno = 0;
	*v = strtoull(tok, &end, 10);
	if (errno)
		return false;
	return !*end || (!end[1] && strchr(marks, *end));
}

/* Split line into at most n blank-separated tokens; the count of them, or n + 1 for more. */
static int tokens(char *line, char **tok, int n)
{
	int k = 0;
	char *save = NULL, *t;

	for (t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
		if (k == n)
			return n + 1;
		tok[k++] = t;
	}
	return k;
}

/* qsort_r's: no global for the lruvecs, as two threads may read lru_gen at once (--wss's ager) */
static int cmp_key(const void *a, const void *b, void *ctx)
{
	const struct ms_mglru *m = ctx;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	const struct ms_mglru_lruvec *x = &m->v[i], *y = &m->v[j];

	if (x->memcg_id != y->memcg_id)
		return x->memcg_id < y->memcg_id ? -1 : 1;
	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return i < j ? -1 : i > j;
}

/* m->by_key: 0, or -ENOMEM (m freed) */
static int index_keys(struct ms_mglru *m)
{
	m->by_key = malloc(m->n * sizeof(*m->by_key));
	if (!m->by_key) {
		ms_mglru_free(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->n; i++)
		m->by_key[i] = i;
	qsort_r(m->by_key, m->n, sizeof(*m->by_key), cmp_key, m);
	return 0;
}

const struct ms_mglru_lruvec *ms_mglru_find(const struct ms_mglru *m, __u64 memcg_id, int node)
{
	size_t lo = 0, hi = m->by_key ? m->n : 0;

	while (lo < hi) {	/* the first key not below (memcg_id, node) */
		size_t mid = lo + (hi - lo) / 2;
		const struct ms_mglru_lruvec *v = &m->v[m->by_key[mid]];

		if (v->memcg_id < memcg_id || (v->memcg_id == memcg_id && v->node < node))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < m->n && m->by_key && m->v[m->by_key[lo]].memcg_id == memcg_id &&
	    m->v[m->by_key[lo]].node == node)
		return &m->v[m->by_key[lo]];
	return NULL;
}

int ms_mglru_parse(FILE *f, struct ms_mglru *m)
{
	char line[4096], *tok[8];
	struct ms_mglru_lruvec *cur = NULL;
	__u64 memcg = 0;
	char *path = NULL;
	bool have_memcg = false;
	size_t cap = 0;

	memset(m, 0, sizeof(*m));
	while (fgets(line, sizeof(line), f)) {
		size_t lead = strspn(line, " "), len = strlen(line);
		int k, c;
		__u64 v[4];

		/* a line longer than the buffer (a memcg's path near PATH_MAX): its start only */
		if (len && line[len - 1] != '\n')
			while ((c = fgetc(f)) != EOF && c != '\n')
				;
		if (!strncmp(line + lead, "memcg ", 6)) {
			/* "memcg ID PATH": the path is the rest of the line, blanks and all */
			char *p = line + lead + 6, *id;

			p += strspn(p, " ");
			id = p;
			p += strcspn(p, " \n");
			if (*p == ' ')
				*p++ = '\0';
			else
				*p = '\0';
			p[strcspn(p, "\n")] = '\0';
			if (!count_of(id, "", &memcg))
				goto bad;
			free(path);
			path = strdup(p);
			if (!path) {
				ms_mglru_free(m);
				return -ENOMEM;
			}
			have_memcg = true;
			cur = NULL;
			continue;
		}
		k = tokens(line, tok, 7);

		if (k == 2 && !strcmp(tok[0], "node")) {
			__u64 node;

			if (!have_memcg || !count_of(tok[1], "", &node) || node > INT32_MAX)
				goto bad;
			if (m->n == cap) {
				size_t ncap = cap ? 2 * cap : 16;
				void *p = realloc(m->v, ncap * sizeof(*m->v));

				if (!p) {
					free(path);
					ms_mglru_free(m);
					return -ENOMEM;
				}
				m->v = p;
				cap = ncap;
			}
			cur = &m->v[m->n];
			memset(cur, 0, sizeof(*cur));
			cur->path = strdup(path);
			if (!cur->path) {
				free(path);
				ms_mglru_free(m);
				return -ENOMEM;
			}
			m->n++;
			cur->memcg_id = memcg;
			cur->node = (int)node;
		} else if (lead <= 10 && k == 4 && count_of(tok[0], "", &v[0]) &&
			   count_of(tok[1], "", &v[1]) && count_of(tok[2], "x", &v[2]) &&
			   count_of(tok[3], "x", &v[3])) {
			struct ms_mglru_gen *g;

			if (!cur || cur->ngens == MS_MGLRU_GENS)
				goto bad;
			g = &cur->gen[cur->ngens++];
			g->seq = v[0];
			g->age_ms = v[1];
			g->anon = v[2];
			g->file = v[3];
			g->anon_gone = strchr(tok[2], 'x') != NULL;
			g->file_gone = strchr(tok[3], 'x') != NULL;
		} else if (k == 0 || (cur && lead > 10)) {
			continue;	/* a tier's line or the statistics', further right */
		} else {
			goto bad;
		}
	}
	free(path);
	if (ferror(f) || !m->n)
		goto bad_freed;
	return index_keys(m);
bad:
	free(path);
bad_freed:
	ms_mglru_free(m);
	return -EINVAL;
}

int ms_mglru_read(const char *path, struct ms_mglru *m)
{
	FILE *f = fopen(path, "re");
	int ret;

	memset(m, 0, sizeof(*m));
	if (!f)
		return -errno;
	ret = ms_mglru_parse(f, m);
	fclose(f);
	return ret;
}

void ms_mglru_by_gen(const struct ms_mglru *m, __u64 pages[MS_MGLRU_GENS])
{
	size_t i;
	int g;

	memset(pages, 0, MS_MGLRU_GENS * sizeof(pages[0]));
	for (i = 0; i < m->n; i++)
		for (g = 0; g < m->v[i].ngens; g++)
			pages[m->v[i].gen[g].seq % MS_MGLRU_GENS] += m->v[i].gen[g].anon +
								       m->v[i].gen[g].file;
}

int ms_mglru_age(const char *ctl, __u64 memcg_id, int node, __u64 seq)
{
	char cmd[96];
	int fd = open(ctl, O_WRONLY | O_CLOEXEC), n, err = 0;

	if (fd < 0)
		return -errno;
	/* swappiness 100: anon too (6.1 reads it as can_swap); force_scan 1 */
	n = snprintf(cmd, sizeof(cmd), "+ %llu %d %llu 100 1\n", (unsigned long long)memcg_id,
		     node, (unsigned long long)seq);
	if (write(fd, cmd, (size_t)n) != n)
		err = errno ? -errno : -EIO;
	close(fd);
	return err;
}

void ms_mglru_free(struct ms_mglru *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].path);
	free(m->v);
	free(m->by_key);
	m->v = NULL;
	m->by_key = NULL;
	m->n = 0;
}
