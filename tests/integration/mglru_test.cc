// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// The MGLRU generation of each folio (src/core/mglru_bits.c): on every kernel of the VM matrix
// that has MGLRU, the one 3-bit window of the flags that the pages say holds it is found, and
// its counts of each generation are the kernel's own (lru_gen_full). The first step of --wss.
// Run as root; in the VMs (tools/vm/init.sh sets MEMSTAT_IN_TEST_VM=1) MGLRU is switched on for
// the test where the kernel builds it off (Debian's 6.1), and back off after.
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "helpers.h"

extern "C" {
#include "attrs.h"
#include "backend.h"
#include "mglru.h"
#include "mglru_bits.h"
}

using namespace mstest;

namespace {

bool in_test_vm()
{
	const char *v = getenv("MEMSTAT_IN_TEST_VM");
	return v && !strcmp(v, "1");
}

// MGLRU on for the test's span (in a test VM only), as it was after
struct MglruOn {
	bool switched = false;
	MglruOn()
	{
		if (ms_mglru_enabled(MS_MGLRU_ENABLED) == 0 && in_test_vm())
			switched = write_sysfs("y");
	}
	~MglruOn()
	{
		if (switched)
			write_sysfs("n");
	}
	static bool write_sysfs(const char *v)
	{
		int fd = open(MS_MGLRU_ENABLED, O_WRONLY | O_CLOEXEC);
		bool ok = fd >= 0 && write(fd, v, 1) == 1;

		if (fd >= 0)
			close(fd);
		return ok;
	}
};

TEST(Mglru, GenerationBitsMatchTheKernelsCounts)
{
	MglruOn on;
	int state = ms_mglru_enabled(MS_MGLRU_ENABLED);
	if (state < 0)
		GTEST_SKIP() << "this kernel has no MGLRU (" << MS_MGLRU_ENABLED << " is absent)";
	if (state == 0)
		GTEST_SKIP() << "MGLRU is off on this machine, and the test switches it on only in "
				"a test VM (MEMSTAT_IN_TEST_VM=1)";
	if (access(MS_MGLRU_FULL, R_OK))
		GTEST_SKIP() << MS_MGLRU_FULL << " cannot be read (no debugfs mounted)";
	struct ms_ranges r = {};
	ASSERT_EQ(ms_ranges_from_iomem("/proc/iomem", &r), 0);
	struct ms_backend be = {};
	char why[512] = "";
	ASSERT_EQ(ms_backend_open(MS_BE_AUTO, MS_BPF_ALLPAGES, false, &be, why, sizeof(why),
				  nullptr, 0), 0) << why;
	// twice: the same window both times, on a machine that keeps moving its pages
	int first = ms_mglru_locate(&be, &r, why, sizeof(why));
	EXPECT_GE(first, 0) << why << "\n" << MS_MGLRU_FULL << " begins:\n"
			    << read_file(MS_MGLRU_FULL).substr(0, 3000);
	int second = ms_mglru_locate(&be, &r, why, sizeof(why));
	EXPECT_EQ(second, first) << why;
	// above the page flags (the search starts there) and below the zone field at the top
	if (first >= 0) {
		ms_attr_facts facts;
		ASSERT_EQ(ms_attr_facts_load(&facts), 0);
		ASSERT_GT(facts.nr_pageflags, 0u);
		EXPECT_GE((unsigned)first, facts.nr_pageflags);
		EXPECT_LE(first, 64 - 3 - 2);	/* at least a zone field above it */
	}
	// and memstat --features says so
	RunResult f = run_memstat({"--features"});
	ASSERT_EQ(f.status, 0);
	EXPECT_NE(f.out.find("MGLRU generation:    flags bits " + std::to_string(first) + "-"),
		  std::string::npos) << f.out;
	ms_backend_close(&be);
	ms_ranges_free(&r);
}

} // namespace
