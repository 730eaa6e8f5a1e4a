// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
// memstat --by file/exec names (src/sys/files.c): the path program's slot joined with a mount
// of /proc/self/mountinfo; allpages --inode parsing.
#include <stdlib.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mounts.h"

extern "C" {
#include "memstat_int.h"
#include "files.h"
#include "groups.h"
}

using mstest::Mounts;

namespace {

const __u32 kDisk = 254u << 20 | 0;	// 254:0
const __u32 kTmp = 0u << 20 | 27;	// 0:27
const __u32 kShm = 0u << 20 | 1;	// the internal shm mount: in no mountinfo

const char *kMountinfo =
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
	"30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw\n"
	"40 27 254:0 /srv/data /mnt/data\\040dir rw shared:1 - ext4 /dev/vda rw\n"
	"41 27 7:0 /sub /bind rw - ext4 /dev/loop0 rw\n"
	"42 27 7:0 /sub/deeper /deep rw - ext4 /dev/loop0 rw\n"
	"garbage line\n";

// a slot as the path program fills it: names leaf first
struct ms_path_slot slot(__u32 dev, std::vector<std::string> leaf_first, __u32 flags = 0,
			 __u32 nlink = 1, __u32 status = MS_PATH_OK)
{
	struct ms_path_slot s;
	memset(&s, 0, sizeof(s));
	s.dev = dev;
	s.status = status;
	s.flags = flags;
	s.nlink = nlink;
	s.magic = 0xef53;
	s.ncomp = leaf_first.size();
	for (size_t i = 0; i < leaf_first.size(); i++)
		strncpy(s.comp[i], leaf_first[i].c_str(), MS_PATH_NAME - 1);
	return s;
}

std::string compose(const struct ms_path_slot &s, const Mounts &m, struct ms_file_info *fi)
{
	char *p = ms_file_compose(&s, &m.m, fi);
	std::string out = p ? p : "(null)";
	free(p);
	return out;
}

} // namespace

TEST(FileNames, PathUnderTheWholeFileSystemMount)
{
	Mounts m(kMountinfo);
	struct ms_file_info fi;
	EXPECT_EQ(compose(slot(kDisk, { "libc.so.6", "lib", "usr" }), m, &fi), "/usr/lib/libc.so.6");
	EXPECT_EQ(fi.source, MS_PSRC_DENTRY);
	EXPECT_FALSE(fi.deleted);
	ASSERT_NE(fi.mount, nullptr);
	EXPECT_STREQ(fi.mount->point, "/") << "the mount of the whole file system, not the bind";
	EXPECT_EQ(compose(slot(kTmp, { "x" }), m, &fi), "/dev/shm/x");
	EXPECT_EQ(compose(slot(kTmp, {}), m, &fi), "/dev/shm") << "the root itself";
	EXPECT_EQ(compose(slot(kDisk, {}), m, &fi), "/");
}

TEST(FileNames, BindMountRootIsTakenOff)
{
	Mounts m(kMountinfo);
	struct ms_file_info fi;
	// 7:0 has no mount of its root: the bind mount whose root holds the path, the deepest
	EXPECT_EQ(compose(slot(7u << 20, { "f", "sub" }), m, &fi), "/bind/f");
	EXPECT_EQ(compose(slot(7u << 20, { "g", "deeper", "sub" }), m, &fi), "/deep/g");
	EXPECT_EQ(compose(slot(7u << 20, { "sub" }), m, &fi), "/bind");
	// /subway is not under /sub
	EXPECT_EQ(compose(slot(7u << 20, { "h", "subway" }), m, &fi), "(not mounted) /subway/h");
	EXPECT_EQ(fi.mount, nullptr);
}

TEST(FileNames, DeletedPseudoTruncatedAndOthers)
{
	Mounts m(kMountinfo);
	struct ms_file_info fi;
	EXPECT_EQ(compose(slot(kDisk, { "log", "tmp" }, 0, 0), m, &fi), "/tmp/log (deleted)");
	EXPECT_TRUE(fi.deleted);
	EXPECT_EQ(compose(slot(kDisk, { "log", "tmp" }, MS_PATHF_UNHASHED, 1), m, &fi),
		  "/tmp/log (deleted)") << "an unhashed dentry is deleted too";
	// memfd: its own root, no link, never marked deleted
	EXPECT_EQ(compose(slot(kShm, { "memfd:cache" }, MS_PATHF_DETACHED | MS_PATHF_UNHASHED, 0),
			  m, &fi), "memfd:cache");
	EXPECT_TRUE(fi.pseudo);
	EXPECT_FALSE(fi.deleted);
	EXPECT_EQ(compose(slot(kShm, { "SYSV0000002a" }, MS_PATHF_DETACHED, 0), m, &fi),
		  "SYSV0000002a");
	EXPECT_EQ(compose(slot(kDisk, { "b", "a" }, MS_PATHF_DETACHED), m, &fi),
		  "(disconnected) /a/b");
	EXPECT_EQ(compose(slot(kDisk, { "leaf", "dir" }, MS_PATHF_TRUNCATED), m, &fi),
		  "/.../dir/leaf");
	EXPECT_TRUE(fi.truncated);
	EXPECT_EQ(compose(slot(99u << 20, { "f" }), m, &fi), "(not mounted) /f");
	EXPECT_EQ(compose(slot(kDisk, {}, 0, 1, MS_PATH_NO_DENTRY), m, &fi), "(no dentry)");
	EXPECT_EQ(fi.source, MS_PSRC_NO_DENTRY);
	EXPECT_EQ(compose(slot(kDisk, {}, 0, 0, MS_PATH_NO_DENTRY), m, &fi),
		  "(no dentry) (deleted)");
	EXPECT_EQ(compose(slot(kDisk, { "x" }, 0, 1, MS_PATH_UNKNOWN), m, &fi),
		  "(unknown: freed since the walk)");
	EXPECT_EQ(fi.source, MS_PSRC_UNKNOWN);
	EXPECT_EQ(fi.magic, 0u) << "nothing read from a pointer that was not trusted";
	struct ms_path_slot b = slot(3, {}, 0, 1);
	b.magic = 0x62646576;	// BDEVFS_MAGIC
	b.rdev = 4095u << 20 | 1048575;	// no such device: named by number
	EXPECT_EQ(compose(b, m, &fi), "(block device 4095:1048575)");
	EXPECT_EQ(fi.source, MS_PSRC_BDEV);
}

TEST(FileNames, LongestNamesFit)
{
	Mounts m(kMountinfo);
	struct ms_file_info fi;
	std::vector<std::string> names(MS_PATH_DEPTH, std::string(MS_PATH_NAME - 1, 'n'));
	std::string want;
	for (int i = 0; i < MS_PATH_DEPTH; i++)
		want += "/" + names[i];
	EXPECT_EQ(compose(slot(kDisk, names), m, &fi), want);
}

// memstat --core: the dump's slot filler and mounts, never this machine's /sys or mountinfo
static void dump_slot(void *ctx, struct ms_path_slot *s)
{
	const struct ms_path_slot *want = (const struct ms_path_slot *)ctx;
	__u64 mapping = s->mapping;

	*s = *want;
	s->mapping = mapping;
}

static std::string dump_name(const struct ms_path_slot &filled, const Mounts &m)
{
	struct ms_group grp;
	std::string out;

	memset(&grp, 0, sizeof(grp));
	grp.k1 = filled.dev;
	grp.mapping = 0x1000;
	ms_files_source(dump_slot, (void *)&filled, &m.m);
	EXPECT_EQ(ms_file_name(NULL, &grp), 0);
	ms_files_source(NULL, NULL, NULL);
	out = grp.name ? grp.name : "(null)";
	free(grp.name);
	free(grp.extra);
	return out;
}

TEST(FileNames, ADumpsFilesAreNamedFromItsSlotsAndMounts)
{
	Mounts m(kMountinfo);
	struct ms_path_slot b = slot(3, {}, 0, 1);

	EXPECT_EQ(dump_name(slot(kDisk, {"data.bin", "var"}), m), "/var/data.bin");
	EXPECT_EQ(dump_name(slot(kTmp, {"x"}, 0, 1, MS_PATH_UNKNOWN), m),
		  "(unknown: its inode is not in the dump)");
	// a block device of the dump: named by its number even where this machine has 8:0
	b.magic = 0x62646576;	// BDEVFS_MAGIC
	b.rdev = 8u << 20 | 0;
	EXPECT_EQ(dump_name(b, m), "(block device 8:0)");
}

TEST(FileInode, ParsesMajorMinorInode)
{
	__u32 dev;
	__u64 ino;
	ASSERT_EQ(ms_file_parse_inode("254:0:1234", &dev, &ino), 0);
	EXPECT_EQ(dev, kDisk);
	EXPECT_EQ(ino, 1234u);
	ASSERT_EQ(ms_file_parse_inode("4095:1048575:18446744073709551615", &dev, &ino), 0);
	EXPECT_EQ(dev, 4095u << 20 | 1048575);
	EXPECT_EQ(ino, ~0ULL);
	for (const char *bad : { "", "254", "254:0", "254:0:", ":0:1", "254::1", "254:0:x",
				 "254:0:1 ", " 254:0:1", "+1:0:1", "-1:0:1", "4096:0:1",
				 "0:1048576:1", "1:2:3:4", "0:0:18446744073709551616" })
		EXPECT_EQ(ms_file_parse_inode(bad, &dev, &ino), -EINVAL) << "'" << bad << "'";
}
