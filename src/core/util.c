// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names of the classes and sub-classes, errors, time. */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/prctl.h>
#include <errno.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>

#include "memstat_int.h"

const struct ms_class_info ms_classes[MS_NR_CLASSES] = {
	[MS_C_KERNEL] = { "kernel", "Kernel" },
	[MS_C_ANON] = { "anon", "Anon" },
	[MS_C_SHMEM] = { "shmem", "Shmem" },
	[MS_C_EXEC] = { "exec", "Exec and libs" },
	[MS_C_PAGE_CACHE] = { "page_cache", "Page cache" },
	[MS_C_HUGETLB] = { "hugetlb", "Hugetlb" },
	[MS_C_FREE] = { "free", "Free" },
	[MS_C_UNKNOWN] = { "unknown", "Unidentified" },
};

const struct ms_sub_info ms_subs[MS_NR_SUBS] = {
	[MS_KERNEL_SLAB] = { MS_C_KERNEL, "kernel_slab", "slab" },
	[MS_KERNEL_LARGE_KMALLOC] = { MS_C_KERNEL, "kernel_large_kmalloc", "large kmalloc" },
	[MS_KERNEL_PAGETABLE] = { MS_C_KERNEL, "kernel_pagetables", "page tables" },
	[MS_KERNEL_RESERVED] = { MS_C_KERNEL, "kernel_reserved", "reserved" },
	[MS_KERNEL_ZSMALLOC] = { MS_C_KERNEL, "kernel_zsmalloc", "zsmalloc" },
	[MS_KERNEL_OFFLINE] = { MS_C_KERNEL, "kernel_offline", "offline/balloon" },
	[MS_KERNEL_GUARD] = { MS_C_KERNEL, "kernel_guard", "guard" },
	[MS_KERNEL_PAGE_POOL] = { MS_C_KERNEL, "kernel_page_pool", "network page_pool" },
	[MS_KERNEL_USER_MAPPED] = { MS_C_KERNEL, "kernel_user_mapped", "user-mapped (drivers)" },
	[MS_KERNEL_COMPOUND] = { MS_C_KERNEL, "kernel_compound", "other compound" },
	[MS_KERNEL_OTHER] = { MS_C_KERNEL, "kernel_other", "other (vmalloc, ...)" },
	[MS_KERNEL_UNSTABLE] = { MS_C_KERNEL, "kernel_unstable", "changed while read" },
	[MS_ANON] = { MS_C_ANON, "anon_private", "private" },
	[MS_ANON_SWAPCACHE] = { MS_C_ANON, "anon_swapcache", "in swap cache" },
	[MS_ANON_KSM] = { MS_C_ANON, "anon_ksm", "KSM" },
	[MS_SHMEM] = { MS_C_SHMEM, "shmem", "shmem" },
	[MS_EXEC] = { MS_C_EXEC, "exec", "exec" },
	[MS_FILE] = { MS_C_PAGE_CACHE, "page_cache_file", "files" },
	[MS_FILE_BUFFERS] = { MS_C_PAGE_CACHE, "page_cache_buffers", "block devices" },
	[MS_FILE_SWAPCACHE] = { MS_C_PAGE_CACHE, "page_cache_swapcache", "swap cache" },
	[MS_HUGETLB] = { MS_C_HUGETLB, "hugetlb_used", "in use" },
	[MS_HUGETLB_FREE] = { MS_C_HUGETLB, "hugetlb_free", "free pool" },
	[MS_FREE_BUDDY] = { MS_C_FREE, "free_buddy", "buddy" },
	[MS_FREE_PCP] = { MS_C_FREE, "free_pcp", "per-cpu lists" },
	[MS_FREE_UNINIT] = { MS_C_FREE, "free_uninit", "uninitialised" },
	[MS_FREE_UNACCEPTED] = { MS_C_FREE, "free_unaccepted", "unaccepted" },
	[MS_UNKNOWN] = { MS_C_UNKNOWN, "unknown", "no flags" },
	[MS_KERNEL_SLAB_RECLAIM] = { MS_C_KERNEL, "kernel_slab_reclaimable", "slab, reclaimable" },
};

#define DETAIL_UNRECLAIMABLE (MS_KERNEL_SLAB + 1)

/* the sub-class whose pages detail key k gives */
static int detail_sub(int k)
{
	return k < DETAIL_UNRECLAIMABLE ? k : k == DETAIL_UNRECLAIMABLE ? MS_KERNEL_SLAB : k - 1;
}

const char *ms_detail_key(int k)
{
	return k == DETAIL_UNRECLAIMABLE ? "kernel_slab_unreclaimable" : ms_subs[detail_sub(k)].key;
}

enum ms_class ms_detail_class(int k)
{
	return ms_subs[detail_sub(k)].cls;
}

bool ms_detail_value(const __u64 *sub, bool slab_split, int k, __u64 *v)
{
	int i = detail_sub(k);

	if ((k == MS_KERNEL_SLAB && slab_split) ||
	    ((k == DETAIL_UNRECLAIMABLE || i == MS_KERNEL_SLAB_RECLAIM) && !slab_split))
		return false;
	*v = sub[i];
	return true;
}

const char *ms_sub_key(int i, bool slab_split)
{
	return i == MS_KERNEL_SLAB && slab_split ? "kernel_slab_unreclaimable" : ms_subs[i].key;
}

/*
 * The sub-class shown at position pos of a class's rows: enum order, except that reclaimable
 * slab (last in the enum, so that the others keep their numbers) follows slab.
 */
int ms_sub_display(int pos)
{
	if (pos <= MS_KERNEL_SLAB)
		return pos;
	if (pos == MS_KERNEL_SLAB + 1)
		return MS_KERNEL_SLAB_RECLAIM;
	return pos - 1;
}

__u64 ms_class_pages(const struct ms_result *r, enum ms_class c)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < MS_NR_SUBS; i++)
		if (ms_subs[i].cls == c)
			n += r->sub[i];
	return n;
}

/* The last message ms_err() printed: the reason a --json error object carries. */
static char last_error[1024];

void ms_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	fprintf(stderr, "memstat: %s\n", last_error);
}

int ms_usage_error(const char *verb, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "memstat%s%s: ", verb ? " " : "", verb ? verb : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'memstat%s%s --help' for more information.\n", verb ? " " : "",
		verb ? verb : "");
	return MS_EXIT_USAGE;
}

int ms_parse_count(const char *arg, unsigned long long lo, unsigned long long hi,
		   unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!isdigit((unsigned char)*arg))
		return -1;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (*end || errno || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

const char *ms_last_error(void)
{
	return last_error;
}

void ms_clear_last_error(void)
{
	last_error[0] = '\0';
}

/*
 * MEMSTAT_DEBUG: 1 libbpf's warnings (and what the CO-RE types cache did), 2 all its messages,
 * 3 the verifier's statistics per program, 4 also a worker's every verified instruction
 * (bpf_backend.c)
 */
int ms_debug_level(void)
{
	const char *v = getenv("MEMSTAT_DEBUG");

	return v ? (atoi(v) > 0 ? atoi(v) : 1) : 0;
}

int ms_drop_root(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};
	uid_t r, e, s;

	if (getresuid(&r, &e, &s) || !r || !e || !s) {
		if (setgroups(0, NULL) || setgid(MS_NOBODY) || setuid(MS_NOBODY))
			return -errno;
		if (setuid(0) != -1 || getuid() != MS_NOBODY || geteuid() != MS_NOBODY)
			return -EPERM;	/* root could come back */
	}
	/* a user other than root may still hold capabilities (a unit's AmbientCapabilities=,
	 * setcap): none is kept, in any set */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	if (syscall(SYS_capget, &h, d) || d[0].permitted || d[1].permitted || d[0].effective ||
	    d[1].effective)
		return -EPERM;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

int ms_write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

long ms_read_long(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%li", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

double ms_mb(double pages)
{
	return pages * (double)sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

double ms_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Which of the capabilities memstat needs does this process lack? NULL: none. */
/*
 * The BPF task iterator walks the tasks of the reader's PID namespace only, so inside a
 * container the exec set misses the libraries that only processes outside it map. The initial
 * PID namespace has a fixed inode number, PROC_PID_INIT_INO (include/linux/proc_ns.h).
 */
int ms_pid_ns_initial(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st))
		return -1;
	return st.st_ino == 0xEFFFFFFCu;
}

int ms_lockdown(const char *path)
{
	char buf[128];
	FILE *f = fopen(path ? path : "/sys/kernel/security/lockdown", "re");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "none integrity [confidentiality]": the selected mode is in brackets */
	if (strstr(buf, "[confidentiality]"))
		return 2;
	if (strstr(buf, "[integrity]"))
		return 1;
	return strstr(buf, "[none]") ? 0 : -1;
}

const char *ms_missing_capability(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data))
		return geteuid() ? "CAP_SYS_ADMIN" : NULL;
	if (!(data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN)))
		return "CAP_SYS_ADMIN";
	return NULL;
}

char *ms_strdupf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

int ms_present_memory(struct ms_ranges *ranges)
{
	const char *cap = ms_missing_capability();
	int err;

	if (cap) {
		ms_err("missing capability %s (needed to read page frame numbers); run as root", cap);
		return MS_EXIT_PERM;
	}
	err = ms_ranges_from_iomem("/proc/iomem", ranges);
	if (err) {
		ms_err("failed to read present memory from /proc/iomem: %s", strerror(-err));
		return err == -EPERM ? MS_EXIT_PERM : MS_EXIT_FAIL;
	}
	return MS_EXIT_OK;
}


int ms_merge_run(struct ms_run_merger *m, __u64 pfn, __u64 npages, enum ms_sub sub)
{
	int err = 0;

	if (m->npages && m->sub == sub && m->pfn + m->npages == pfn) {
		m->npages += npages;
		return 0;
	}
	if (m->npages)
		err = m->fn(m->arg, m->pfn, m->npages, m->sub);
	m->pfn = pfn;
	m->npages = npages;
	m->sub = sub;
	return err;
}

int ms_merge_flush(struct ms_run_merger *m)
{
	int err = m->npages ? m->fn(m->arg, m->pfn, m->npages, m->sub) : 0;

	m->npages = 0;
	return err;
}

/* split a CSV line in place (RFC 4180 quotes); returns the number of fields, at most max */
size_t ms_csv_split(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *r = line, *w = line;

	line[strcspn(line, "\r\n")] = 0;
	while (n < max) {
		f[n++] = w;
		if (*r == '"') {
			r++;
			for (;;) {
				if (!*r)
					break;
				if (*r == '"' && r[1] == '"') {
					*w++ = '"';
					r += 2;
				} else if (*r == '"') {
					r++;
					break;
				} else {
					*w++ = *r++;
				}
			}
		}
		while (*r && *r != ',')
			*w++ = *r++;
		if (!*r) {
			*w = 0;
			break;
		}
		r++;
		*w++ = 0;
	}
	return n;
}
