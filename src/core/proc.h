/* proc.h - per-process memory figures from /proc/PID (smaps_rollup, status) */
#ifndef THP_PROC_H
#define THP_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "root.h"

/* Fields of /proc/PID/smaps_rollup, in bytes. */
struct thp_rollup {
	uint64_t rss, anon, anon_huge, shmem_pmd, file_pmd, private_hugetlb, shared_hugetlb;
};

/* Parses smaps_rollup text. Returns 0, or -ENODATA when it holds no fields
 * (a kernel thread's rollup is empty). */
int thp_rollup_parse(const char *buf, struct thp_rollup *r);

/* Reads /proc/PID/smaps_rollup below ROOT. Returns 0, -ENOENT/-ESRCH when the
 * process is gone, -EACCES/-EPERM when it may not be read, -ENODATA for kernel threads. */
int thp_rollup_read(const struct thp_root *root, pid_t pid, struct thp_rollup *r);

/* Calls FN for each numeric entry of ROOT/proc. Returns 0 or -errno of the listing. */
int thp_proc_each(const struct thp_root *root, int (*fn)(pid_t pid, void *ctx), void *ctx);

/* True when ERR means the process exited while it was being read. */
bool thp_proc_gone(int err);

#endif
