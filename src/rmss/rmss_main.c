// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * memstat rmss's command line: the options, -c (the pool kept until -r), -p, -r, and the
 * driver's start (rmss.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "memstat_int.h"
#include "escape.h"
#include "outfile.h"
#include "rmss.h"
#include "testhooks.h"
#include "svg.h"

#define rerr ms_rmss_err


static const char rmss_usage[] =
	"Usage: memstat rmss -c MB | -p | -r\n"
	"       memstat rmss [-s START] [-f FINAL] [-d DELTA] [-n ITER] [-o FILE] [--cgroup]\n"
	"                    [--zram MB] [--json] [--plot FILE.svg|FILE.png] command [args...]\n"
	"AIX's rmss: simulate a machine with less memory (-c, -p, -r), or run a command over a\n"
	"range of memory sizes and report its page-ins and response time at each (the driver).\n"
	"Sizes are megabytes (MB = 2^20 bytes), decimal fractions allowed.\n"
	"\n"
	"  -c, --change MB        set the simulated memory size of the machine and exit\n"
	"  -p, --print            print the current simulated memory size\n"
	"  -r, --reset            reset to the real memory size\n"
	"  -s, --start MB         the first size (default: the real size)\n"
	"  -f, --final MB         the last size (default: the safe floor); below -s goes down\n"
	"  -d, --delta MB         the step between sizes (default 8)\n"
	"  -n, --iterations N     measured runs per size, after one warm-up run (default: enough\n"
	"                         runs to accumulate 10 seconds, timed once at the start)\n"
	"      --ok-status N,...  exit statuses of the command that are answers, not failures\n"
	"                         (grep's 1); any other ends rmss if the first run has it, and\n"
	"                         later leaves its size out of the knee\n"
	"  -o, --output FILE      write the report to FILE as well as stdout (default rmss.out),\n"
	"                         replaced at the end; - (or /dev/stdout): stdout only\n"
	"      --cgroup           limit only the command: a fresh memory cgroup per run of rmss,\n"
	"                         limited to each size (the machine keeps its memory)\n"
	"      --zram MB          swap on a zram device of MB for the run, removed afterwards\n"
	"  -j, --json             print one JSON object at the end instead of the report on\n"
	"                         stdout (the report still goes to FILE)\n"
	"      --plot FILE.svg    draw response time and page-in rate against memory size\n"
	"                         (FILE.png: rendered by rsvg-convert)\n"
	"  -h, --help             print this help\n"
	"\n"
	"Exit codes: 0 ok, 1 run-time failure, 2 bad input (usage, a size below the safe floor\n"
	"or above the real size), 4 missing privilege, 6 another memstat rmss is running,\n"
	"130 interrupted (SIGINT, SIGTERM or SIGHUP; the report so far is kept, the memory\n"
	"restored).\n"
	"See memstat-rmss(8).\n";

/* ---- small helpers ---- */

static int parse_mb(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(v) || v <= 0)
		return -1;
	*out = v;
	return 0;
}

/* "1" or "1,2,255": each status's flag set in ok[] */
static int parse_statuses(const char *arg, bool *ok)
{
	const char *p = arg;

	do {
		unsigned long long n;
		char num[8];
		size_t len = strcspn(p, ",");

		if (!len || len >= sizeof(num))
			return -1;
		memcpy(num, p, len);
		num[len] = 0;
		if (ms_parse_count(num, 1, 255, &n))
			return -1;
		ok[n] = true;
		p += len;
	} while (*p++ == ',');
	return 0;
}

/* ---- -c, -p, -r ---- */

static int change_main(struct rmss_opts *o)
{
	struct machine m;
	struct walker w;
	struct ms_result res;
	struct ms_rmss_state s;
	double floor_mb, pool_mb = 0;
	int lock_fd = -1, ret, err;

	if (ms_rmss_read_machine(&m)) {
		rerr("cannot read /proc/meminfo");
		return MS_EXIT_FAIL;
	}
	ret = ms_rmss_take_lock(&lock_fd);
	if (ret)
		return ret;
	if (!ms_rmss_state_read(&s) && ms_rmss_pool_alive(&s))
		pool_mb = s.stolen_mb;
	if (o->reset) {
		/* whatever the state records, as far as it still exists: idempotent */
		if (!ms_rmss_state_read(&s) && ms_rmss_undo(&s, false)) {
			ret = MS_EXIT_FAIL;
			goto out;
		}
		printf("Simulated memory size changed to %6.2f Mb.\n", m.real_mb);
		goto out;
	}
	if (o->change_mb > m.real_mb + 1e-9) {
		rerr("%.2f MB is above the real memory size, %.2f MB", o->change_mb, m.real_mb);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	ret = ms_rmss_walker_open(&w, 0);
	if (ret)
		goto out;
	ret = ms_rmss_safe_floor(&w, &m, pool_mb, &floor_mb, &res);
	ms_rmss_walker_close(&w);
	if (ret)
		goto out;
	if (o->change_mb < floor_mb - 1e-9) {
		rerr("%.2f MB is below the safe floor, %.2f MB (kernel + hugetlb + anon + shmem + "
		     "mlocked + margin)", o->change_mb, floor_mb);
		ret = MS_EXIT_USAGE;
		goto out;
	}
	if (!ms_rmss_state_read(&s)) {	/* resizing: replace the pool */
		err = ms_rmss_pool_stop(&s);
		if (err) {
			rerr("cannot end the pool process %d: %s", s.pid, strerror(-err));
			ret = MS_EXIT_FAIL;
			goto out;
		}
	} else {
		ms_rmss_state_init(&s);
	}
	s.pid = 0;
	s.starttime = 0;
	s.stolen_mb = 0;
	if (o->change_mb < m.real_mb) {
		s.real_mb = m.real_mb;
		s.simulated_mb = o->change_mb;
		/* recorded in the state before it takes memory; kept until -r */
		ret = ms_rmss_pool_start(m.real_mb - o->change_mb, &s, -1);
		if (ret)
			goto out;
	} else {
		ms_rmss_state_sync(&s);
	}
	printf("Simulated memory size changed to %6.2f Mb.\n", o->change_mb);
out:
	if (lock_fd >= 0)
		close(lock_fd);
	return ret;
}

static int print_main(void)
{
	struct machine m;
	struct ms_rmss_state s;

	if (ms_rmss_read_machine(&m)) {
		rerr("cannot read /proc/meminfo");
		return MS_EXIT_FAIL;
	}
	if (!ms_rmss_state_read(&s) && s.pid > 0 && !ms_rmss_pool_alive(&s))
		fprintf(stderr, "memstat rmss: the pool process %d is gone: the memory is back "
			"(memstat rmss -r removes the state)\n", s.pid);
	printf("Simulated memory size is %6.2f Mb.\n",
	       s.pid > 0 && ms_rmss_pool_alive(&s) ? s.simulated_mb : m.real_mb);
	return 0;
}

/* ---- options ---- */

static int parse(int argc, char **argv, struct rmss_opts *o)
{
	enum { OPT_CGROUP = 0x100, OPT_ZRAM, OPT_PLOT, OPT_OK_STATUS };
	static const struct option longopts[] = {
		{ "change", required_argument, NULL, 'c' },
		{ "print", no_argument, NULL, 'p' },
		{ "reset", no_argument, NULL, 'r' },
		{ "start", required_argument, NULL, 's' },
		{ "final", required_argument, NULL, 'f' },
		{ "delta", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "cgroup", no_argument, NULL, OPT_CGROUP },
		{ "zram", required_argument, NULL, OPT_ZRAM },
		{ "json", no_argument, NULL, 'j' },
		{ "plot", required_argument, NULL, OPT_PLOT },
		{ "ok-status", required_argument, NULL, OPT_OK_STATUS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, modes;

	memset(o, 0, sizeof(*o));
	o->output = "rmss.out";
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:c:prs:f:d:n:o:jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_mb(optarg, &o->change_mb))
				return ms_usage_error("rmss", "invalid size '%s': expected megabytes above 0, "
							"e.g. 12 or 12.25", optarg);
			o->change = true;
			break;
		case 'p':
			o->print = true;
			break;
		case 'r':
			o->reset = true;
			break;
		case 's':
		case 'f':
		case 'd': {
			double v;

			if (parse_mb(optarg, &v))
				return ms_usage_error("rmss", "invalid %s '%s': expected megabytes above 0",
							c == 's' ? "START (-s)" : c == 'f' ?
							"FINAL (-f)" : "DELTA (-d)", optarg);
			if (c == 's') {
				o->start = v;
				o->start_set = true;
			} else if (c == 'f') {
				o->final = v;
				o->final_set = true;
			} else {
				o->delta = v;
				o->delta_set = true;
			}
			break;
		}
		case 'n': {
			unsigned long long n;

			if (ms_parse_count(optarg, 1, 1000000, &n))
				return ms_usage_error("rmss", "invalid ITER (-n) '%s': expected a "
						      "whole number of runs above 0", optarg);
			o->iterations = (long)n;
			break;
		}
		case 'o':
			if (!*optarg)
				return ms_usage_error("rmss", "-o needs a file name");
			o->output = optarg;
			break;
		case OPT_CGROUP:
			o->cgroup = true;
			break;
		case OPT_OK_STATUS:
			if (parse_statuses(optarg, o->ok_status))
				return ms_usage_error("rmss", "invalid --ok-status '%s': expected exit "
						      "statuses from 1 to 255, comma separated", optarg);
			break;
		case OPT_ZRAM:
			if (parse_mb(optarg, &o->zram_mb))
				return ms_usage_error("rmss", "invalid --zram size '%s': expected megabytes "
							"above 0", optarg);
			break;
		case 'j':
			o->json = true;
			break;
		case OPT_PLOT:
			if (!*optarg)
				return ms_usage_error("rmss", "--plot needs a file name");
			o->plot = optarg;
			break;
		case 'h':
			fputs(rmss_usage, stdout);
			exit(MS_EXIT_OK);
		case ':':
			return ms_usage_error("rmss", "option '%s' needs an argument", argv[optind - 1]);
		default:
			return ms_usage_error("rmss", "unknown option '%s'", argv[optind - 1]);
		}
	}
	o->cmd = argv + optind;
	o->ncmd = argc - optind;
	modes = o->change + o->print + o->reset;
	if (modes > 1)
		return ms_usage_error("rmss", "-c, -p and -r are one at a time");
	o->ok_status[0] = true;
	if (modes) {
		if (o->ncmd || o->start_set || o->final_set || o->delta_set || o->iterations ||
		    memchr(o->ok_status + 1, 1, sizeof(o->ok_status) - 1) ||
		    o->cgroup || o->zram_mb > 0 || o->json || o->plot || strcmp(o->output, "rmss.out"))
			return ms_usage_error("rmss", "-c, -p and -r take no command and no driver options");
		return 0;
	}
	if (!o->ncmd)
		return ms_usage_error("rmss", "no command to measure (memstat rmss [options] command "
					"[args...]), or -c MB, -p or -r");
	if (o->plot && ms_out_fd_name(o->plot) < 0 && !strstr(o->plot, ".svg") &&
	    !strstr(o->plot, ".png"))
		return ms_usage_error("rmss", "--plot '%s': the plot is an SVG or PNG file (FILE.svg, "
				      "FILE.png)", o->plot);
	return 0;
}

int ms_rmss_main(int argc, char **argv)
{
	struct rmss_opts o;
	const char *cap;
	int ret;

	if (argc > 1 && !strncmp(argv[1], "--internal-", 11))
		return ms_rmss_internal_main(argc - 1, argv + 1);	/* rmss_guard.c */
	ret = parse(argc, argv, &o);
	if (ret)
		return ret;
	if (o.print)
		return print_main();
	cap = ms_missing_capability();
	if (cap || geteuid() != 0) {
		rerr("missing privilege (%s): rmss steals memory, sets cgroup limits and walks "
		     "page frames; run as root", cap ? cap : "not root");
		return MS_EXIT_PERM;
	}
	if (o.change || o.reset)
		return change_main(&o);
	return ms_rmss_driver_main(&o);
}
