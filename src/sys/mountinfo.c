// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /proc/self/mountinfo, read for --by fs (groups.c), --by file/exec (files.c) and the memory
 * cgroup hierarchy (cgroup.c). The format is the kernel's show_mountinfo() (fs/proc_namespace.c):
 *
 *   id parent maj:min root point opts [optional...] - fstype source superopts
 *
 * one space between fields (an empty source, "mount -t tmpfs '' /x", is an empty field), the
 * optional fields ended by a lone "-", and space, tab, newline and backslash in a field escaped
 * as \ooo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

/* Decode the \ooo escapes in place. */
static void unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

static void entry_free(struct ms_mountinfo_entry *e)
{
	free(e->root);
	free(e->point);
	free(e->fstype);
	free(e->source);
	free(e->superopts);
}

void ms_mountinfo_free(struct ms_mountinfo *mi)
{
	for (size_t k = 0; k < mi->n; k++)
		entry_free(&mi->m[k]);
	free(mi->m);
	mi->m = NULL;
	mi->n = 0;
}

/* The next space-separated field of *p (NULL when none is left); *p moves past it. */
static char *field(char **p)
{
	char *f = *p, *sp;

	if (!f)
		return NULL;
	sp = strchr(f, ' ');
	if (sp) {
		*sp = '\0';
		*p = sp + 1;
	} else {
		*p = NULL;
	}
	return f;
}

/* A decimal number up to UINT_MAX, the whole of s */
static bool number(const char *s, const char *end, unsigned int *v)
{
	unsigned long n = 0;

	if (s == end)
		return false;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return false;
		n = n * 10 + (unsigned long)(*s - '0');
		if (n > UINT_MAX)
			return false;
	}
	*v = (unsigned int)n;
	return true;
}

/* One line (changed in place): 1 and *e filled, 0 (not of the format), or -ENOMEM. */
static int parse_line(char *line, struct ms_mountinfo_entry *e)
{
	char *p = line, *f[6], *colon, *fstype, *source, *superopts, *t;
	unsigned int id;

	memset(e, 0, sizeof(*e));
	line[strcspn(line, "\n")] = '\0';
	for (int i = 0; i < 6; i++)
		if (!(f[i] = field(&p)))
			return 0;
	colon = strchr(f[2], ':');
	if (!number(f[0], f[0] + strlen(f[0]), &id) || !number(f[1], f[1] + strlen(f[1]), &id) ||
	    !colon || !number(f[2], colon, &e->major) ||
	    !number(colon + 1, colon + strlen(colon), &e->minor) || !*f[3] || !*f[4])
		return 0;
	do {	/* the optional fields, up to the lone "-" */
		if (!(t = field(&p)))
			return 0;
	} while (strcmp(t, "-"));
	fstype = field(&p);
	if (!fstype || !*fstype)
		return 0;
	source = field(&p);
	superopts = field(&p);
	unescape(f[3]);
	unescape(f[4]);
	unescape(fstype);
	if (source)
		unescape(source);
	e->dev = MS_MKDEV(e->major, e->minor);
	e->root = strdup(f[3]);
	e->point = strdup(f[4]);
	e->fstype = strdup(fstype);
	e->source = strdup(source ? source : "");
	e->superopts = strdup(superopts ? superopts : "");
	if (!e->root || !e->point || !e->fstype || !e->source || !e->superopts) {
		entry_free(e);
		return -ENOMEM;
	}
	return 1;
}

int ms_mountinfo_load(const char *path, struct ms_mountinfo *out)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0, alloc = 0;
	int err = 0;

	ms_mountinfo_free(out);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		struct ms_mountinfo_entry e;
		int r = parse_line(line, &e);

		if (r < 0) {
			err = r;
			break;
		}
		if (!r)
			continue;
		if (out->n == alloc) {
			size_t ncap = alloc ? alloc * 2 : 32;
			struct ms_mountinfo_entry *m = realloc(out->m, ncap * sizeof(*m));

			if (!m) {
				entry_free(&e);
				err = -ENOMEM;
				break;
			}
			out->m = m;
			alloc = ncap;
		}
		out->m[out->n++] = e;
	}
	if (!err && ferror(f))
		err = -EIO;
	free(line);
	fclose(f);
	if (err)
		ms_mountinfo_free(out);
	return err;
}
