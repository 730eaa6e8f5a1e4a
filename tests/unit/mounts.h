// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// For the unit tests of src/sys/mountinfo.c and of its callers (mountinfo_test.cc,
// files_test.cc): a mountinfo text in a temporary file, read back with ms_mountinfo_load().
#ifndef MEMSTAT_TEST_MOUNTS_H
#define MEMSTAT_TEST_MOUNTS_H

#include <stdlib.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

extern "C" {
#include "mountinfo.h"
}

namespace mstest {

struct Mounts {
	struct ms_mountinfo m = {};
	explicit Mounts(const std::string &text)
	{
		char path[] = "/tmp/memstat-mountinfo-XXXXXX";
		int fd = mkstemp(path);
		EXPECT_GE(fd, 0);
		EXPECT_EQ(write(fd, text.data(), text.size()), (ssize_t)text.size());
		close(fd);
		EXPECT_EQ(ms_mountinfo_load(path, &m), 0);
		unlink(path);
	}
	~Mounts() { ms_mountinfo_free(&m); }
};

} // namespace mstest

#endif /* MEMSTAT_TEST_MOUNTS_H */
