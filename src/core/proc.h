/* SPDX-License-Identifier: GPL-2.0-or-later */
/* proc.h - the process model: what thp reads from /proc/PID (status, comm,
 * cmdline, cgroup, smaps_rollup, smaps) and the THP-disable ancestor walk */
#ifndef THP_PROC_H
#define THP_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "root.h"

/* The figures of struct thp_rollup, in its order. Each has its smaps name
 * in thp_rollup_name() and its source without smaps in thp_rollup_source(),
 * a switch without default: a figure added here and left out there does not
 * build. */
enum thp_rollup_field {
	THP_RF_RSS, THP_RF_ANON, THP_RF_ANON_HUGE, THP_RF_SHMEM_PMD, THP_RF_FILE_PMD,
	THP_RF_PRIVATE_HUGETLB, THP_RF_SHARED_HUGETLB, THP_RF_PRIVATE_DIRTY, THP_RF_SHARED_DIRTY,
	THP_RF_N
};

/* Memory fields of /proc/PID/smaps_rollup (or of one smaps VMA), in bytes. */
struct thp_rollup {
	uint64_t rss, anon, anon_huge, shmem_pmd, file_pmd, private_hugetlb, shared_hugetlb;
	uint64_t private_dirty, shared_dirty;
	unsigned unknown; /* bit 1 << THP_RF_* for each figure its source did not give
			   * (smaps and smaps_rollup give every one); such a figure is 0 */
};
_Static_assert(offsetof(struct thp_rollup, unknown) == THP_RF_N * sizeof(uint64_t),
	       "one enum thp_rollup_field per figure of struct thp_rollup");

/* The smaps name of figure F ("Rss", "AnonHugePages"). */
const char *thp_rollup_name(enum thp_rollup_field f);

/* Where a walk that reads no smaps (thp_proc_walk from PROCMAP_QUERY) finds
 * a figure: in the page walk of each mapping, in the process's
 * /proc/PID/status. */
enum { THP_RS_WALK = 1, THP_RS_STATUS = 2 };
/* The THP_RS_* bits of figure F; 0: smaps alone has it, and such a walk marks
 * it unknown. */
unsigned thp_rollup_source(enum thp_rollup_field f);
/* Figure F of R. */
uint64_t *thp_rollup_at(struct thp_rollup *r, enum thp_rollup_field f);
/* Whether R's source gave figure F. */
static inline bool thp_rollup_known(const struct thp_rollup *r, enum thp_rollup_field f)
{
	return !(r->unknown & (1u << f));
}
/* Private_Hugetlb + Shared_Hugetlb: known from every source (/proc/PID/status
 * gives the sum, HugetlbPages, which a walk without smaps keeps in
 * private_hugetlb while both figures are unknown). */
static inline uint64_t thp_rollup_hugetlb(const struct thp_rollup *r)
{
	return r->private_hugetlb + r->shared_hugetlb;
}

/* Parses smaps_rollup text. Returns 0, or -ENODATA when it holds no fields
 * (a kernel thread's rollup is empty). */
int thp_rollup_parse(const char *buf, struct thp_rollup *r);

/* Reads /proc/PID/smaps_rollup below ROOT. Returns 0, -ENOENT/-ESRCH when the
 * process is gone, -EACCES/-EPERM when it may not be read, -ENODATA for kernel threads. */
int thp_rollup_read(const struct thp_root *root, pid_t pid, struct thp_rollup *r);

/* A += B, figure by figure; a figure either does not know stays unknown. */
void thp_rollup_add(struct thp_rollup *a, const struct thp_rollup *b);

#define THP_COMM_MAX 64

/* thp_enabled of a process on a kernel built without THP: such a kernel
 * shows "THP_enabled: 0" for every process, although no prctl was called. */
#define THP_ENABLED_NO_KERNEL (-2)

/* Fields of /proc/PID/status that thp uses. */
struct thp_pstatus {
	pid_t pid, ppid;
	pid_t tgid;      /* the process a thread belongs to; 0 when absent */
	uid_t uid;       /* real user id; (uid_t)-1 when absent */
	int thp_enabled; /* 1 on, 0 off (PR_SET_THP_DISABLE), -1 not shown (before Linux 5.0),
			  * THP_ENABLED_NO_KERNEL (thp_pstatus_read()) */
	int kthread;     /* 1 kernel thread, 0 not, -1 not shown (before Linux 6.0) */
	bool except_advised; /* PR_THP_DISABLE_EXCEPT_ADVISED, inferred (why.h); false from status */
	bool has_pte;    /* VmPTE was shown (not for kernel threads and zombies) */
	char state;      /* scheduler state from State: ('R', 'S', 'Z', ...); 0 when absent */
	uint64_t pte;    /* VmPTE in bytes: page tables below the top level */
	uint64_t rss_shmem; /* RssShmem in bytes (Linux 4.5+; 0 when absent) */
	uint64_t rss, rss_anon; /* VmRSS and RssAnon in bytes: the kernel's counters (0 when absent) */
	uint64_t hugetlb;   /* HugetlbPages in bytes (Linux 4.4+; 0 when absent) */
	char cpus_allowed[128]; /* Cpus_allowed_list ("0-3,8"); "" when absent */
	char mems_allowed[128]; /* Mems_allowed_list: the NUMA nodes it may allocate on */
	char name[THP_COMM_MAX];
};

/* Parses /proc/PID/status text. Returns 0, or -ENODATA without a Pid: line. */
int thp_pstatus_parse(const char *buf, struct thp_pstatus *s);

/* Reads /proc/PID/status; THP_enabled 0 on a root without a THP directory
 * gives THP_ENABLED_NO_KERNEL. Returns 0 or -errno (see thp_rollup_read). */
int thp_pstatus_read(const struct thp_root *root, pid_t pid, struct thp_pstatus *s);

/* True for a kernel thread: the Kthread: field, or, on kernels without it,
 * kthreadd (pid 2) and its children. */
bool thp_pstatus_kthread(const struct thp_pstatus *s);

/* Called for each ancestor in thp_origin_walk(); true when P shares the trait. */
typedef bool (*thp_origin_fn)(const struct thp_root *root, const struct thp_pstatus *p, void *ctx);

/* Walks up the parent chain of S while SAME holds for the parent, and stores
 * the topmost such process (S itself when its parent differs) in ORIGIN.
 * Stops at a parent that cannot be read. */
void thp_origin_walk(const struct thp_root *root, const struct thp_pstatus *s, thp_origin_fn same,
		     void *ctx, struct thp_pstatus *origin);

/* Finds who disabled THP for a process that has it off: the topmost process on
 * its parent chain that also has THP off (ORIGIN may equal S when the parent
 * has THP on). Stops at a parent that cannot be read. Returns 0, or -EINVAL
 * when S does not have THP off. */
int thp_thp_origin(const struct thp_root *root, const struct thp_pstatus *s,
		   struct thp_pstatus *origin);

/* Reads /proc/PID/comm without its newline into BUF. Returns 0 or -errno. */
int thp_comm_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap);

/* Reads /proc/PID/cmdline with its NUL separators turned into spaces (cut at
 * CAP-1). An empty result (kernel thread, zombie) is not an error. Returns 0 or -errno. */
int thp_cmdline_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap);

/* The text of a command line: the LEN bytes of ARGV (NUL-separated, as
 * /proc/PID/cmdline holds them) joined by spaces into BUF, cut at CAP-1, with
 * newlines made spaces too. ARGV and BUF may be the same. */
void thp_cmdline_text(const char *argv, size_t len, char *buf, size_t cap);

/* How thp_relaunch_build() could name a process's program and arguments. */
enum thp_relaunch {
	THP_RELAUNCH_ARGV,     /* the process's argv, the program as /proc/PID/exe names it */
	THP_RELAUNCH_RECORDED, /* argv as recorded: a capture has no /proc/PID/exe */
	THP_RELAUNCH_TITLE,    /* the process replaced its argv with a title: the program alone */
	THP_RELAUNCH_LONG,     /* the arguments do not fit: the program alone */
	THP_RELAUNCH_UNKNOWN,  /* no command line: the command name */
};

/* Appends S to BUF (after a space unless BUF is empty), quoted for a POSIX
 * shell when it holds anything but letters, digits and _@%+=:,./-. Returns
 * false, leaving BUF as it was, when it does not fit in CAP. */
bool thp_sh_quote_append(char *buf, size_t cap, const char *s);

/* Builds, shell-quoted into BUF, the command that starts a process's program
 * again, from ARGV (LEN bytes, NUL-separated as /proc/PID/cmdline holds it)
 * and EXE (the target of /proc/PID/exe; NULL when unknown or deleted). The
 * program is EXE when its base name is argv[0]'s (a multi-call binary or a
 * link chosen by name keeps argv[0]). A single argument with a space that is
 * not EXE is a title the process wrote over its argv ("redis-server *:6379");
 * the arguments are then unknown. COMM names the program when nothing else
 * does. Returns how the command was made. */
enum thp_relaunch thp_relaunch_build(const char *argv, size_t len, const char *exe, const char *comm,
				     char *buf, size_t cap);

/* thp_relaunch_build() for process PID below ROOT from its ARGV (LEN bytes
 * of its /proc/PID/cmdline), with /proc/PID/exe read on the live host only. */
enum thp_relaunch thp_relaunch_read(const struct thp_root *root, pid_t pid, const char *argv, size_t len,
				    const char *comm, char *buf, size_t cap);

/* Reads /proc/PID/cgroup text into BUF. Returns 0 or -errno. */
int thp_cgroup_read(const struct thp_root *root, pid_t pid, char *buf, size_t cap);

/* The cgroup path shown for a process, from /proc/PID/cgroup text: the v2
 * ("0::") path, or when that is "/" or absent, the v1 memory controller's path.
 * Writes "" when neither exists. */
void thp_cgroup_path(const char *buf, char *path, size_t cap);

/* True when some hierarchy (v1 or v2) of /proc/PID/cgroup text BUF places the
 * process in cgroup PATH or below it. */
bool thp_cgroup_in(const char *buf, const char *path);

#define THP_VMA_NAME_MAX 256

/* One mapping of /proc/PID/smaps. */
struct thp_vma {
	uint64_t start, end, offset;
	char perms[5];
	uint64_t inode;
	unsigned dev_major, dev_minor; /* the device of its file */
	uint64_t page_size;          /* KernelPageSize (the hugetlb page size); 0 when absent */
	char name[THP_VMA_NAME_MAX]; /* path, "[heap]", "[stack]", "[anon:NAME]"; "" when anonymous */
	struct thp_rollup m;         /* Rss, Anonymous, AnonHugePages, ... of this VMA */
	int eligible;                /* THPeligible: 1 or 0; -1 when the kernel does not show it */
	char vmflags[192];           /* VmFlags as shown ("rd wr mr mw me ac hg"); "" when absent */
};

/* True when two-letter FLAG appears in V's VmFlags. */
bool thp_vma_flag(const struct thp_vma *v, const char *flag);

/* Called for each VMA; return non-zero to stop the walk. */
typedef int (*thp_vma_fn)(const struct thp_vma *v, void *ctx);

/* Parses /proc/PID/smaps text and calls FN per VMA. Returns 0 or FN's non-zero value. */
int thp_smaps_parse(const char *buf, thp_vma_fn fn, void *ctx);

/* Streams /proc/PID/smaps (in 64 KiB reads, never the whole file at once) and
 * calls FN per VMA. Returns 0, FN's non-zero value, or -errno (see thp_rollup_read). */
int thp_smaps_read(const struct thp_root *root, pid_t pid, thp_vma_fn fn, void *ctx);

/* Calls FN for each VMA of process PID, asked of /proc/PID/maps with the
 * PROCMAP_QUERY ioctl (Linux 6.11+): no page of it is walked, so V->m is zero
 * and V->eligible -1; VmFlags holds "ht" for a hugetlb VMA (its page size is
 * not PAGE_SIZE). Returns 0, FN's non-zero value, -ENOTTY when the kernel (or
 * a recorded file) does not answer, -ESRCH when the process has no VMA left,
 * or -errno. */
int thp_maps_query(const struct thp_root *root, pid_t pid, uint64_t page_size, thp_vma_fn fn, void *ctx);

/* Calls FN for each numeric entry of ROOT/proc until FN returns non-zero, which
 * stops the walk: FN keeps why in CTX. Returns 0 (also when FN stopped it) or
 * -errno of the listing: of opening /proc, or of a read of it that failed part
 * way (FN has then seen only the processes listed before). */
int thp_proc_each(const struct thp_root *root, int (*fn)(pid_t pid, void *ctx), void *ctx);

/* True when ERR means the process exited while it was being read. */
bool thp_proc_gone(int err);

/* True when ERR means the process may not be read by this user. */
bool thp_proc_denied(int err);

#define THP_DENIED_NAMED 3
/* Processes that could not be read: how many, and the first few with why. */
struct thp_denied {
	int n;
	pid_t pid[THP_DENIED_NAMED];
	int err[THP_DENIED_NAMED]; /* -errno */
};

/* Counts PID in D when ERR says it may not be read (thp_proc_denied); returns
 * whether it did. */
bool thp_denied_add(struct thp_denied *d, pid_t pid, int err);

/* Finds variable NAME in environment block BUF of LEN bytes (NUL-separated
 * "NAME=value" strings, as in /proc/PID/environ) and copies its value into OUT
 * (cut at CAP-1). Returns 0, or -ENOENT when NAME is not set. */
int thp_environ_find(const char *buf, size_t len, const char *name, char *out, size_t cap);

/* The environment variables thp reads (jemalloc's options, which can override
 * the host's THP policy for a heap), NULL-terminated: the only ones it ever
 * looks up, and the only ones 'thp capture' records. */
extern const char *const thp_environ_names[];

/* Where a recorded tree keeps those variables of process PID: proc/PID/ and
 * this name, in the format of /proc/PID/environ. */
#define THP_ENVIRON_FILE "thp-environ"

/* Reads the variables of thp_environ_names that process PID has, as an
 * environment block (malloc'd *BUF of *LEN bytes): from /proc/PID/environ
 * (readable by its owner and root) on the live host, from THP_ENVIRON_FILE in
 * a recorded tree; nothing else of the environment is kept. Returns 0 or
 * -errno of the read (see thp_rollup_read). */
int thp_environ_load(const struct thp_root *root, pid_t pid, char **buf, size_t *len);

/* Reads variable NAME (one of thp_environ_names) of process PID's initial
 * environment through thp_environ_load(). Returns 0, -ENOENT when unset,
 * -EINVAL for a name not in the list, or -errno of the read. */
int thp_environ_read(const struct thp_root *root, pid_t pid, const char *name, char *out,
		     size_t cap);

#endif
