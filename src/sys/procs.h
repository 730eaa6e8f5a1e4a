/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * memstat --by process (procs.c): the pages each process maps, read from its page tables
 * (/proc/PID/maps and /proc/PID/pagemap), by the class the walk gave each page. A page mapped by
 * several processes is in each one's RSS; its PSS share is 1/n of it, n its mapcount (as smaps
 * counts PSS).
 */
#ifndef MEMSTAT_PROCS_H
#define MEMSTAT_PROCS_H

#include <stdbool.h>
#include <stddef.h>

#include "memstat_int.h"

struct ms_proc {
	int pid;			/* --by command: the first process's */
	size_t nprocs;			/* processes in the row: 1, or --by command's count */
	char comm[64];			/* /proc/PID/comm, raw (escape it to print) */
	double pss[MS_NR_CLASSES];	/* pages, each page's share 1/n */
	__u64 rss[MS_NR_CLASSES];	/* pages mapped */
	double pss_total;
	__u64 rss_total;
	__u64 uss;			/* pages no other mapping shares */
	__u64 swap;			/* pages swapped out (their pagemap entries) */
	__u64 wss[MS_WSS_VERDICTS][MS_NR_CLASSES];	/* --wss: pages mapped, by verdict */
	__u64 *pfns;			/* while read: the pfns mapped, one per mapping */
	size_t npfns, cap;
};

struct ms_procs {
	struct ms_proc *p;		/* in the order read; after finish, [order] by PSS */
	size_t n, cap;
	size_t top;			/* rows shown; 0: all */
	bool by_command;		/* --by command: one row per name, its processes summed */
	size_t nread;			/* processes read (n: rows, fewer with by_command) */
	__u64 mapped_pages;		/* distinct pages the processes map (zero pages left out) */
	double min_pages;		/* --min: a process of less PSS goes to other */
	size_t *order, nshown;
	struct ms_proc other;		/* the processes past top, summed */
	size_t nother;
	struct ms_proc total;		/* all the processes read */
	size_t exited;			/* gone while read (left out) */
	size_t unreadable;		/* their maps or pagemap could not be read (left out) */
	int unreadable_pid, unreadable_err;	/* the first of them, and why (errno) */
	char unreadable_comm[64];
	size_t no_mm;			/* kernel threads and zombies: nothing mapped */
	size_t partial;			/* read in part: more address space than memstat reads
					 * without PAGEMAP_SCAN (procs.c MS_PROC_ENTRIES) */
	__u64 outside;			/* mappings of pfns outside present memory (device memory) */
	__u64 zero;			/* mappings of the shared zero pages (not counted) */
	bool scan;			/* present pages found by PAGEMAP_SCAN (>= 6.7) */
	double read_ms;			/* reading the processes (set by the caller) */
	bool kernel_mapcount;		/* PSS by the kernel's mapcounts, else by the mappings read */
	/* --wss: each mapped page's verdict in the window (enum ms_wss_verdict), from the walk
	 * after it (wss.h ms_wss_verdict_at()); NULL: none asked for */
	int (*verdict)(void *arg, __u64 pfn);
	void *verdict_arg;
	/* the runs of the walk, in pfn order (ms_procs_run()) */
	struct ms_run *runs;
	size_t nruns, runs_cap;
};

/* An ms_run_fn: the walk's runs, kept to class each mapped page (arg: struct ms_procs) */
int ms_procs_run(void *arg, __u64 pfn, __u64 npages, enum ms_sub sub);
/*
 * Read every process of /proc (proc: its path, NULL for /proc) and class its pages by the runs
 * kept; memstat itself is left out. kpageflags, kpagecount: /proc/kpageflags, /proc/kpagecount
 * (NULL: those), read only at the pages processes map. 0, or -errno when /proc cannot be read
 * or memory runs out.
 */
int ms_procs_read(struct ms_procs *ps, const struct ms_ranges *r, const char *proc,
		  const char *kpageflags, const char *kpagecount);
/*
 * allpages --pid: the pfns process pid maps, sorted, each once (*pfns malloc'd). 0, -ESRCH when
 * there is no such process (or it has gone), else -errno.
 */
int ms_proc_pfns(int pid, __u64 **pfns, size_t *n);
/* Before another walk (periodic sampling): the rows and runs dropped, the settings kept. */
void ms_procs_reset(struct ms_procs *ps);
void ms_procs_free(struct ms_procs *ps);

#endif /* MEMSTAT_PROCS_H */
