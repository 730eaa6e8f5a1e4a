// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * kexec_crash KERNEL INITRD CMDLINE: load a capture kernel for kdump (the kexec_file_load
 * system call with KEXEC_FILE_ON_CRASH), as `kexec -p -s` does; the test VMs' initramfs
 * (tools/vm/init.sh) has no kexec-tools, whose binary needs a dozen shared libraries. The
 * kernel must have been booted with crashkernel=. Exit 0 when loaded; 1 with one line on
 * failure (the kernel's errno).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef KEXEC_FILE_ON_CRASH
#define KEXEC_FILE_ON_CRASH 0x00000002
#endif

int main(int argc, char **argv)
{
	int kfd, ifd;
	long r;

	if (argc != 4) {
		fprintf(stderr, "usage: kexec_crash KERNEL INITRD CMDLINE\n");
		return 2;
	}
	kfd = open(argv[1], O_RDONLY | O_CLOEXEC);
	ifd = open(argv[2], O_RDONLY | O_CLOEXEC);
	if (kfd < 0 || ifd < 0) {
		fprintf(stderr, "kexec_crash: cannot open %s: %s\n", kfd < 0 ? argv[1] : argv[2],
			strerror(errno));
		return 1;
	}
	/* the command line's length counts its terminating NUL */
	r = syscall(SYS_kexec_file_load, kfd, ifd, strlen(argv[3]) + 1, argv[3],
		    (unsigned long)KEXEC_FILE_ON_CRASH);
	if (r) {
		fprintf(stderr, "kexec_crash: kexec_file_load: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}
