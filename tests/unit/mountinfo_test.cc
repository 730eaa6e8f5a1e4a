// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// /proc/self/mountinfo (src/sys/mountinfo.c): the one reader of it, for --by fs (groups.c),
// --by file/exec (files.c) and the memory cgroup hierarchy (cgroup.c).
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "mounts.h"

extern "C" {
#include "mountinfo.h"
}

using mstest::Mounts;

namespace {

const __u32 kDisk = 254u << 20 | 0;	// 254:0

const char *kMountinfo =
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	"30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw\n"
	"40 27 254:0 /srv/data /mnt/data\\040dir rw shared:1 - ext4 /dev/vda rw\n"
	"41 27 7:0 /sub /bind rw - ext4 /dev/loop0 rw\n"
	"42 27 7:0 /sub/deeper /deep rw - ext4 /dev/loop0 rw\n"
	"garbage line\n";

} // namespace

// (was FileMounts.ParsesMountinfoWithEscapes, when files.c had its own reader)
TEST(Mountinfo, ParsesMountinfoWithEscapes)
{
	Mounts m(kMountinfo);
	ASSERT_EQ(m.m.n, 5u) << "the garbage line is skipped";
	EXPECT_EQ(m.m.m[0].dev, kDisk);
	EXPECT_STREQ(m.m.m[0].root, "/");
	EXPECT_STREQ(m.m.m[0].fstype, "ext4");
	EXPECT_STREQ(m.m.m[2].root, "/srv/data");
	EXPECT_STREQ(m.m.m[2].point, "/mnt/data dir") << "\\040 is a space";
	EXPECT_EQ(m.m.m[3].dev, 7u << 20);
}

TEST(Mountinfo, EveryFieldTheCallersUse)
{
	Mounts m("35 31 259:3 /docker/abc /in/con\\011tainer rw,nosuid shared:7 master:2 - "
		 "cgroup my\\134src rw,memory,name=a\\054b\n");
	ASSERT_EQ(m.m.n, 1u);
	const ms_mountinfo_entry &e = m.m.m[0];
	EXPECT_EQ(e.major, 259u);
	EXPECT_EQ(e.minor, 3u);
	EXPECT_EQ(e.dev, 259u << 20 | 3) << "as s_dev";
	EXPECT_STREQ(e.root, "/docker/abc");
	EXPECT_STREQ(e.point, "/in/con\ttainer") << "\\011 is a tab";
	EXPECT_STREQ(e.fstype, "cgroup") << "after any number of optional fields";
	EXPECT_STREQ(e.source, "my\\src") << "\\134 is a backslash";
	EXPECT_STREQ(e.superopts, "rw,memory,name=a\\054b")
		<< "the super options stay escaped: an option's own comma never splits it";
}

TEST(Mountinfo, AnEmptySourceIsAnEmptyField)
{
	// mount -t tmpfs '' /x: two spaces between fstype and the options
	Mounts m("50 1 0:40 / /x rw - tmpfs  rw,size=4k\n"
		 "51 1 0:41 / /y rw - tmpfs\n");
	ASSERT_EQ(m.m.n, 2u);
	EXPECT_STREQ(m.m.m[0].source, "");
	EXPECT_STREQ(m.m.m[0].superopts, "rw,size=4k");
	EXPECT_STREQ(m.m.m[1].fstype, "tmpfs");
	EXPECT_STREQ(m.m.m[1].source, "") << "a line that ends at the file system type";
	EXPECT_STREQ(m.m.m[1].superopts, "");
}

TEST(Mountinfo, LinesNotOfTheFormatAreSkipped)
{
	Mounts m("\n"
		 "x 1 8:1 / /a rw - ext4 /dev/sda1 rw\n"		// id not a number
		 "1 1 8-1 / /b rw - ext4 /dev/sda1 rw\n"		// no maj:min
		 "1 1 8:1x / /c rw - ext4 /dev/sda1 rw\n"		// minor not a number
		 "1 1 8:1 / /d rw ext4 /dev/sda1 rw\n"			// no "-"
		 "1 1 8:1 / /e rw -\n"					// no fstype
		 "1 1 8:1 / /f\n"					// ends early
		 "1 1 99999999999:1 / /g rw - ext4 /dev/sda1 rw\n"	// major too large
		 "1 1 8:1 / /ok rw - ext4 /dev/sda1 rw");		// no newline at the end
	ASSERT_EQ(m.m.n, 1u);
	EXPECT_STREQ(m.m.m[0].point, "/ok");
	EXPECT_STREQ(m.m.m[0].superopts, "rw");
}

TEST(Mountinfo, OnlyOctalEscapesUpTo377AreDecoded)
{
	Mounts m("1 1 8:1 / /a\\400b\\08c\\\\d\\040 rw - ext4 s rw\n");
	ASSERT_EQ(m.m.n, 1u);
	EXPECT_STREQ(m.m.m[0].point, "/a\\400b\\08c\\\\d ");
}

TEST(Mountinfo, NoFileIsAnErrorAndLeavesNothing)
{
	struct ms_mountinfo m = {};
	{
		Mounts full(kMountinfo);
		m = full.m;
		full.m = {};	// taken over
	}
	ASSERT_EQ(m.n, 5u);
	EXPECT_EQ(ms_mountinfo_load("/nonexistent/mountinfo", &m), -ENOENT);
	EXPECT_EQ(m.n, 0u) << "what it held is freed";
	EXPECT_EQ(m.m, nullptr);
	ms_mountinfo_free(&m);
}
