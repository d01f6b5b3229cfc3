/* SPDX-License-Identifier: GPL-2.0-or-later */
/* madvise.c - advice to memory: thp's own regions (madvise) and another
 * process's (process_madvise(MADV_COLLAPSE)) */
#include "control.h"

#include "../core/exp.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_process_madvise
#define SYS_process_madvise 440
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

int thp_pidfd_open(pid_t pid)
{
	long fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : (int)fd;
}

int thp_collapse_range(int pidfd, uint64_t start, uint64_t len)
{
	/* an address in the other process, never dereferenced here */
	struct iovec iov = { (void *)(uintptr_t)start, (size_t)len }; // NOLINT(performance-no-int-to-ptr)
	long n = syscall(SYS_process_madvise, pidfd, &iov, 1UL, MADV_COLLAPSE, 0U);

	if (n < 0)
		return -errno;
	return (uint64_t)n == len ? 0 : -EAGAIN;
}

int thp_region_advise(const struct thp_region *r, int advice)
{
	return madvise(r->addr, r->len, advice) ? -errno : 0;
}
