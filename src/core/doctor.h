/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.h - findings about a host: a table of pure rules over the host model */
#ifndef THP_DOCTOR_H
#define THP_DOCTOR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "buddyinfo.h"
#include "hugetlb.h"
#include "numa.h"
#include "proc.h"
#include "psi.h"
#include "status.h"

enum thp_severity { THP_SEV_INFO, THP_SEV_WARN, THP_SEV_CRIT };

/* How an evidence value is expressed; the output layer formats each kind. */
enum thp_ev_kind {
	THP_EV_TEXT,    /* text */
	THP_EV_COUNT,   /* num */
	THP_EV_BYTES,   /* num */
	THP_EV_RATIO,   /* num of whole */
	THP_EV_RATE,    /* x per second */
	THP_EV_SECONDS, /* x seconds */
};

#define THP_EV_MAX 10
#define THP_FIX_MAX 5
#define THP_FINDINGS_MAX 64

/* One fact a finding rests on: a value and the file it comes from. */
struct thp_evidence {
	char name[64];
	enum thp_ev_kind kind;
	uint64_t num, whole;
	double x;
	char text[160];
	char source[96]; /* "/proc/vmstat"; empty when derived */
};

struct thp_finding {
	const char *id;   /* stable identifier, e.g. "defrag-always-stalls" */
	enum thp_severity sev;
	char title[200];  /* one sentence */
	const char *why;  /* why it matters */
	pid_t pid;        /* the process concerned, 0 for the host */
	int nev;
	struct thp_evidence ev[THP_EV_MAX];
	int nfix;
	char fix[THP_FIX_MAX][512]; /* exact commands or configuration lines */
};

#define THP_UNCHECKED_MAX 4

/* A part of the host the rules could not look at: no finding there means nothing. */
struct thp_unchecked {
	const char *what; /* the rules left out: "the rules that depend on the THP policy" */
	char path[96];    /* the file that could not be read: "/proc/vmstat" */
	int err;          /* why, a negative errno: -ENOENT absent, -EINVAL malformed, ... */
};

struct thp_findings {
	int n;
	int dropped; /* findings beyond THP_FINDINGS_MAX */
	struct thp_finding v[THP_FINDINGS_MAX];
	int nunchecked;
	struct thp_unchecked unchecked[THP_UNCHECKED_MAX];
};

/* What the rules about programs read of a process: its command line, how to
 * start it again and its allocator's options. Read only for the first process
 * of a family (thp_host_family_head), the one whose program they judge. */
struct thp_host_program {
	const char *cmdline;        /* arguments joined by spaces, cut at 511 bytes */
	const char *relaunch;       /* the command that starts it again, shell-quoted */
	enum thp_relaunch relaunch_how;
	const char *malloc_conf;    /* MALLOC_CONF or _RJEM_MALLOC_CONF; "" when unset or unreadable */
	char text[];                /* the three strings */
};

/* What the rules read of a process's status. */
struct thp_host_status {
	pid_t pid, ppid;
	int thp_enabled;            /* as in struct thp_pstatus */
	bool has_pte;               /* VmPTE was shown */
	uint64_t pte, rss_shmem;    /* VmPTE, RssShmem in bytes */
};

/* What the rules read of a process's smaps_rollup. */
struct thp_host_rollup {
	uint64_t rss, anon_huge, shmem_pmd;
	uint64_t hugetlb;           /* Private_Hugetlb + Shared_Hugetlb */
};

/* One user-space process as the rules see it, kept small: a host holds one
 * per process. */
struct thp_host_proc {
	struct thp_host_status ps;
	bool has_rollup;            /* R could be read */
	struct thp_host_rollup r;
	char comm[THP_COMM_MAX];
	const struct thp_host_program *prog; /* NULL when not read (not the head of its family) */
	const char *cpus_allowed;   /* Cpus_allowed_list, kept only where numa_maps is read
				       (static huge pages, more than one node); else NULL */
	struct {                    /* with THP off: who turned it off (may be PS itself) */
		pid_t pid;
		const char *name;   /* NULL with THP on */
	} origin;
	uint64_t hugetlb_numa;      /* static huge pages per numa_maps (more than one node only) */
	uint64_t hugetlb_remote;    /* ... of them on nodes none of its allowed CPUs belong to */
	int hugetlb_node;           /* the node holding most of them; -1: unknown */
};

#define THP_DIFFS_MAX 16

/* A THP setting whose running value differs from another: what boot applies
 * (drift), or what the state 'thp set' saved holds (a change since). */
struct thp_host_diff {
	char key[48];
	char other[48];     /* the persisted or saved value */
	char running[48];   /* "" when the kernel has no such setting */
	char source[160];   /* "/etc/tmpfiles.d/thp.conf:3" */
	char refused[160];  /* why boot cannot apply the persisted value; "" when it can */
	bool tuned;         /* the persisted value is tuned's (rule persist-tuned has it) */
	bool by_set;        /* a change since the saved state: RUNNING is what the 'thp set'
			       that saved it wrote (its command names KEY) */
};

/* A setting that tuned's active profile writes at boot, differing from what
 * another source persists for it or from the running value. */
struct thp_host_tuned {
	char key[48];
	char value[48];     /* what tuned writes */
	char source[160];   /* "/etc/tuned/NAME/tuned.conf:6" */
	char option[96];    /* "[vm] transparent_hugepages" */
	char over[48];      /* the persisted value it overwrites; "" when it overwrites none */
	char over_source[160];
	char running[48];   /* the running value when it differs; "" when it does not */
};

/* Persistence of the THP settings, as 'thp persist --check' sees it. */
struct thp_host_persist {
	bool known;         /* the check ran (THP sysfs present) */
	int npersisted;     /* settings persisted by any source (tmpfiles.d, units, cmdline) */
	int ndrift;
	struct thp_host_diff drift[THP_DIFFS_MAX];
	char tuned[128];    /* tuned's active profiles that boot applies; "" when none */
	int ntuned;
	struct thp_host_tuned tuned_writes[THP_DIFFS_MAX];
	bool saved;         /* 'thp set' saved a state since boot (/run/thp/saved.state) */
	int nchanged;       /* settings that differ from that saved state */
	struct thp_host_diff changed[THP_DIFFS_MAX];
};

/* The journal of a change of THP settings (run/thp/journal), or of the
 * pools of a 'thp hugetlb set' (run/thp/pools.journal: no boot is recorded,
 * so never THP_STATE_OTHER_BOOT), if one is there. */
struct thp_host_journal {
	int status;         /* enum thp_state_status; THP_STATE_ABSENT: none */
	char command[256];  /* what wrote it */
	int pid;
	char boot[40];      /* the boot it was written in, and this one ("" when unknown) */
	char boot_now[40];
	int line;           /* DAMAGED: where, 0: the file as a whole */
	char why[192];      /* DAMAGED: what is wrong */
	int nchanged;       /* settings whose running value differs from the journaled one */
	struct thp_host_diff changed[THP_DIFFS_MAX];
};

/* Everything the rules look at. Rules only read it. */
struct thp_host {
	const struct thp_status *st;     /* the host now */
	const struct thp_status *before; /* an earlier sample, or NULL */
	double sample_secs;              /* seconds between BEFORE and ST */
	double uptime;                   /* seconds since boot; 0 when unknown */
	char virt[128];                  /* how a hypervisor was detected; empty: none found */
	int buddy_err;                   /* 0, or -errno of /proc/buddyinfo */
	struct thp_buddyinfo *buddy;
	int psi_err;                     /* 0, or -errno of /proc/pressure/memory */
	struct thp_psi psi;
	struct thp_hugetlb *hugetlb;     /* static pools per size (NULL in hand-built models) */
	struct thp_numa *numa;           /* NUMA nodes (NULL in hand-built models) */
	struct thp_host_persist persist; /* filled by the caller */
	struct thp_host_journal journal; /* filled by the caller */
	struct thp_host_journal pools_journal; /* of 'thp hugetlb set' (run/thp/pools.journal);
						 * filled by the caller */
	int nprocs;
	struct thp_host_proc *procs;     /* user-space processes, by pid */
	struct thp_denied unreadable;    /* processes whose status could not be read (permission) */
	struct thp_procs rollups;        /* their smaps_rollup reads, counted as thp_status_read()
					  * counts its scan; scanned: /proc could be listed */
};

/* Reads what the rules need beyond the status model (uptime, hypervisor
 * signs, buddyinfo, processes) into H, whose other fields are left alone.
 * Each process's status and smaps_rollup are read once, as 'thp ps' reads
 * them; its command line, environment and program only when it heads a
 * family. Missing files leave the fields empty. Returns 0 or -ENOMEM. */
int thp_host_read(const struct thp_root *root, struct thp_host *h);

/* Frees what thp_host_read() allocated. */
void thp_host_free(struct thp_host *h);

/* True for the first process of a family: its parent is not among H's
 * processes or runs another program (another command name). Forked workers
 * (Redis save children, PostgreSQL backends) are not. */
bool thp_host_family_head(const struct thp_host *h, const struct thp_host_proc *p);

/* Runs every rule on H and fills OUT, most severe first (rule order within a
 * severity), and names what the rules could not look at. */
void thp_doctor_run(const struct thp_host *h, struct thp_findings *out);

/* The exit status of 'thp doctor' for findings R: 3 when one is at or above MIN, else 0. */
int thp_doctor_exit(const struct thp_findings *r, enum thp_severity min);

/* "info", "warn", "crit". */
const char *thp_severity_name(enum thp_severity s);

/* Parses a severity name; returns 0 or -EINVAL. */
int thp_severity_parse(const char *s, enum thp_severity *out);

/* True when the "flags" line of /proc/cpuinfo text BUF lists FLAG. */
bool thp_cpuinfo_flag(const char *buf, const char *flag);

struct thp_changes;

/* Fills J from the journal below ROOT; the journaled values are compared with
 * the running ones of CS (NULL: not compared). */
void thp_journal_read(const struct thp_root *root, const struct thp_changes *cs,
		      struct thp_host_journal *j);

/* Fills J from the pools journal below ROOT, with the pools whose running
 * size differs from the journaled one. */
void thp_pools_journal_read_host(const struct thp_root *root, struct thp_host_journal *j);

/* What 'thp status' shows beside the status: the NUMA nodes and the
 * journals a change left. */
struct thp_status_extra {
	struct thp_numa numa;
	struct thp_host_journal journal, pools_journal;
};

/* Reads it below ROOT for ST (as thp_status_read() read it). Returns it
 * (to free()), or NULL when out of memory. */
struct thp_status_extra *thp_status_extra_read(const struct thp_root *root, const struct thp_status *st);

/* A host read as 'thp doctor' reads it (status, processes, pools, what boot
 * applies), and the findings of the rules on it. */
struct thp_diagnosis {
	struct thp_status *st;
	struct thp_status *before; /* the first read of a sample; NULL without one */
	struct thp_host h;
	struct thp_findings *r;
};

/* Called while thp_diagnose() samples: after every tenth of a second, and
 * once more with DONE when the sample is over. */
typedef void (*thp_sample_fn)(bool done, void *arg);

/* Reads the host below ROOT (twice, SAMPLE seconds apart, when SAMPLE > 0,
 * calling TICK with ARG meanwhile, unless NULL) and runs the doctor's rules into D.
 * Returns 0 or -ENOMEM; free D in both cases. */
int thp_diagnose(const struct thp_root *root, double sample, thp_sample_fn tick, void *arg,
		 struct thp_diagnosis *d);
void thp_diagnosis_free(struct thp_diagnosis *d);

#endif
