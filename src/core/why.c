/* SPDX-License-Identifier: GPL-2.0-or-later */
/* why.c - why a mapping has huge pages or not, and of which sizes */
#include "why.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* Filesystems whose page cache holds large folios, from the release that
 * enabled them (file faults then map those folios with PTEs, or with a PMD
 * when a folio of PMD size lines up). tmpfs is shmem and not listed here.
 * Sources, one per row:
 *  - xfs: Linux 5.18, "xfs: Support large folios" (Matthew Wilcox), the first
 *    filesystem to enable them; https://www.phoronix.com/news/Linux-5.17-Folios
 *  - erofs: Linux 6.2, "erofs: enable large folios for iomap mode" (files
 *    read through iomap: uncompressed ones)
 *  - ext4: Linux 6.16, "ext4: enable large folio for regular file" (Zhang Yi),
 *    https://lore.kernel.org/lkml/20250527200206.GA2433735@mit.edu/ (pull
 *    request); ext4_should_enable_large_folio() leaves out data=journal,
 *    fs-verity and encrypted files
 *  - btrfs: Linux 6.17, "btrfs: enable large data folio support under
 *    CONFIG_BTRFS_EXPERIMENTAL" (Qu Wenruo), commit cc38d178ff33,
 *    https://git.kernel.dk/?a=commit&h=cc38d178ff33543cdb0bd58cfbb9a7c41372ff75&p=linux-block.git
 */
static const struct large_fs {
	const char *fstype;
	int major, minor;
	const char *except; /* what keeps a file of it out; NULL: nothing */
} large_fs[] = {
	{ "xfs", 5, 18, NULL },
	{ "erofs", 6, 2, "compressed" },
	{ "ext4", 6, 16, "data=journal, verity, encrypted" },
	{ "btrfs", 6, 17, "without CONFIG_BTRFS_EXPERIMENTAL" },
};

static bool is(const char *a, const char *b)
{
	return a && strcmp(a, b) == 0;
}

/* True when the release of C is at least MAJOR.MINOR (false when unknown). */
static bool since(const struct thp_why_ctx *c, int major, int minor)
{
	return c->kmajor > major || (c->kmajor == major && c->kminor >= minor);
}

static bool named(const struct thp_vma *v, const char *prefix)
{
	return strncmp(v->name, prefix, strlen(prefix)) == 0;
}

enum thp_shmem_kind thp_vma_shmem_kind(const struct thp_vma *v, const struct thp_mounts *mounts)
{
	(void)mounts;
	if (named(v, "/SYSV") || named(v, "/memfd:"))
		return THP_SHM_INTERNAL;
	if (!v->name[0] || named(v, "/dev/zero"))
		return THP_SHM_ANON;
	return THP_SHM_TMPFS;
}

enum thp_vma_kind thp_vma_kind(const struct thp_vma *v, const struct thp_mounts *mounts)
{
	if (thp_vma_flag(v, "ht"))
		return THP_VMA_HUGETLB;
	if (named(v, "/dev/zero"))
		/* a private mapping of /dev/zero is anonymous memory */
		return v->perms[3] == 's' ? THP_VMA_SHMEM : THP_VMA_ANON;
	if (v->name[0] == '/' || (v->inode && v->name[0] != '[')) {
		const struct thp_mount *m = thp_mount_of(mounts, v->dev_major, v->dev_minor);
		if (named(v, "/SYSV") || named(v, "/memfd:") || (m && m->huge[0]) ||
		    (!mounts && named(v, "/dev/shm/")))
			return THP_VMA_SHMEM;
		return THP_VMA_FILE;
	}
	if (v->perms[3] == 's')
		return THP_VMA_SHMEM; /* shared anonymous memory is shmem */
	if (!v->name[0] || !strcmp(v->name, "[heap]") || named(v, "[stack") || named(v, "[anon:"))
		return THP_VMA_ANON;
	return THP_VMA_SPECIAL;
}

uint64_t thp_vma_pmd_slots(const struct thp_vma *v, uint64_t size)
{
	uint64_t first, last;

	if (!size)
		return 0;
	first = (v->start + size - 1) / size;
	last = v->end / size;
	return last > first ? last - first : 0;
}

void thp_why_ctx_init(struct thp_why_ctx *c, const struct thp_status *st, const struct thp_pstatus *p)
{
	const struct thp_size *z = thp_status_pmd_size(st);
	const char *top = thp_setting_word(thp_status_setting(st, "shmem_enabled"));

	memset(c, 0, sizeof(*c));
	c->pmd_size = st->dir ? (st->pmd_size ? st->pmd_size : 2u << 20) : 0;
	c->anon_policy = thp_status_pmd_policy(st);
	c->shmem_top = top;
	c->shmem_policy = z && z->shmem_effective ? z->shmem_effective : top;
	c->kmajor = st->kmajor;
	c->kminor = st->kminor;
	c->proc_thp_enabled = p ? p->thp_enabled : -1;
	for (int i = 0; i < st->nsizes; i++) {
		const struct thp_size *s = &st->sizes[i];
		if (s->bytes == c->pmd_size || c->nsizes == THP_SIZES_MAX)
			continue;
		c->sizes[c->nsizes++] = (struct thp_why_size){ s->bytes, s->anon_effective, s->shmem_effective };
	}
}

/* The shmem policy word that decides PMD-sized pages for shmem VMA V, and the
 * tmpfs mount it comes from (NULL otherwise). NULL word: unknown. */
static const char *shmem_word(const struct thp_vma *v, const struct thp_why_ctx *c,
			      const struct thp_mount **mount)
{
	*mount = NULL;
	switch (thp_vma_shmem_kind(v, c->mounts)) {
	case THP_SHM_ANON: return c->shmem_policy;
	case THP_SHM_INTERNAL: return is(c->shmem_top, "deny") ? "never" : c->shmem_top;
	default: break;
	}
	/* deny and force override every tmpfs mount's huge= option */
	if (is(c->shmem_top, "deny") || is(c->shmem_top, "force"))
		return c->shmem_top;
	*mount = thp_mount_of(c->mounts, v->dev_major, v->dev_minor);
	return *mount ? (*mount)->huge : NULL;
}

/* True when a shmem policy WORD gives V huge pages at fault. */
static bool shmem_allows(const char *word, const struct thp_vma *v)
{
	return is(word, "always") || is(word, "within_size") || is(word, "force") ||
	       (is(word, "advise") && thp_vma_flag(v, "hg"));
}

/* True when the process and V's own advice let V have THP at all. */
static bool vma_may(const struct thp_vma *v, const struct thp_why_ctx *c)
{
	return c->proc_thp_enabled != 0 && !thp_vma_flag(v, "nh") &&
	       !(c->except_advised && !thp_vma_flag(v, "hg"));
}

enum thp_why thp_vma_why(const struct thp_vma *v, const struct thp_why_ctx *c)
{
	enum thp_vma_kind k = thp_vma_kind(v, c->mounts);
	const struct thp_mount *m;

	if (v->m.anon_huge || v->m.shmem_pmd || v->m.file_pmd)
		return THP_WHY_HUGE;
	if (k == THP_VMA_HUGETLB)
		return THP_WHY_HUGETLB;
	if (!c->pmd_size)
		return THP_WHY_NO_KERNEL;
	if (k == THP_VMA_SPECIAL)
		return THP_WHY_SPECIAL;
	if (c->proc_thp_enabled == 0)
		return THP_WHY_PROC_OFF;
	if (thp_vma_flag(v, "nh"))
		return THP_WHY_NOHUGEPAGE;
	if (c->except_advised && !thp_vma_flag(v, "hg"))
		return THP_WHY_EXCEPT_ADVISED;
	if (k == THP_VMA_FILE)
		return THP_WHY_FILE;
	if (k == THP_VMA_SHMEM) {
		const char *w = shmem_word(v, c, &m);
		if (w && !shmem_allows(w, v))
			return m || thp_vma_shmem_kind(v, c->mounts) == THP_SHM_TMPFS ? THP_WHY_TMPFS
										       : THP_WHY_SHMEM;
		if (!w && thp_vma_shmem_kind(v, c->mounts) == THP_SHM_TMPFS)
			return THP_WHY_TMPFS;
	} else if (is(c->anon_policy, "never")) {
		return THP_WHY_NEVER;
	} else if (is(c->anon_policy, "madvise") && !thp_vma_flag(v, "hg")) {
		/* advice would not help a mapping that cannot hold the page */
		return thp_vma_pmd_slots(v, c->pmd_size) ? THP_WHY_NOT_ADVISED : THP_WHY_NO_SLOT;
	}
	if (thp_vma_pmd_slots(v, c->pmd_size) == 0)
		return THP_WHY_NO_SLOT;
	if (v->eligible == 0)
		return THP_WHY_NOT_ELIGIBLE;
	return THP_WHY_NOT_FAULTED;
}

unsigned thp_vma_mthp(const struct thp_vma *v, const struct thp_why_ctx *c)
{
	enum thp_vma_kind k = thp_vma_kind(v, c->mounts);
	bool hg = thp_vma_flag(v, "hg"), anon = k == THP_VMA_ANON;
	unsigned mask = 0;

	/* page faults allocate mTHP for anonymous memory and, since per-size
	 * shmem_enabled, for shared anonymous memory; not for files */
	if (!c->pmd_size || !vma_may(v, c) ||
	    !(anon || (k == THP_VMA_SHMEM && thp_vma_shmem_kind(v, c->mounts) == THP_SHM_ANON)))
		return 0;
	for (int i = 0; i < c->nsizes; i++) {
		const struct thp_why_size *z = &c->sizes[i];
		bool on = anon ? is(z->anon, "always") || (is(z->anon, "madvise") && hg) : shmem_allows(z->shmem, v);
		if (on && thp_vma_pmd_slots(v, z->bytes))
			mask |= 1u << i;
	}
	return mask;
}

/* "64 KiB mTHP (hugepages-64kB always), 128 KiB mTHP (hugepages-128kB madvise); " */
static void put_mthp(const struct thp_vma *v, const struct thp_why_ctx *c, char *buf, size_t cap,
		     size_t *len)
{
	unsigned mask = thp_vma_mthp(v, c);
	bool anon = thp_vma_kind(v, c->mounts) == THP_VMA_ANON;
	char sz[32];

	for (int i = 0; i < c->nsizes; i++)
		if (mask & (1u << i))
			thp_put(buf, cap, len, "%s%s mTHP (hugepages-%llukB %s%s)", *len ? ", " : "",
			    thp_size_words(c->sizes[i].bytes, sz, sizeof(sz)),
			    (unsigned long long)(c->sizes[i].bytes >> 10), anon ? "" : "shmem_enabled ",
			    anon ? c->sizes[i].anon : c->sizes[i].shmem);
	if (*len)
		thp_put(buf, cap, len, "; %s: ", thp_size_words(c->pmd_size, sz, sizeof(sz)));
}

static void put_hugetlb(const struct thp_vma *v, char *buf, size_t cap, size_t *len)
{
	char a[32], b[32];
	uint64_t held = v->m.private_hugetlb + v->m.shared_hugetlb;

	thp_put(buf, cap, len, "hugetlbfs: static %s pages, not THP",
	    v->page_size ? thp_size_words(v->page_size, a, sizeof(a)) : "huge");
	if (held)
		thp_put(buf, cap, len, "; %s held (%s)", thp_size_words(held, b, sizeof(b)),
		    v->m.shared_hugetlb && v->m.private_hugetlb ? "shared and private"
		    : v->m.shared_hugetlb ? "Shared_Hugetlb" : "Private_Hugetlb");
}

static void put_shmem(const struct thp_vma *v, enum thp_why w, const struct thp_why_ctx *c, char *buf,
		      size_t cap, size_t *len)
{
	const struct thp_mount *m;
	const char *word = shmem_word(v, c, &m), *adv = is(word, "advise") ? " and range not advised" : "";

	if (w == THP_WHY_SHMEM) {
		bool anon = thp_vma_shmem_kind(v, c->mounts) == THP_SHM_ANON;
		thp_put(buf, cap, len, "%s: shmem_enabled%s is '%s'%s",
		    anon ? "shared anonymous memory" : "SysV or memfd shmem", anon ? " (PMD size)" : "",
		    word ? word : "unknown", adv);
	} else if (m) {
		thp_put(buf, cap, len, "tmpfs %s mounted huge=%s%s", m->point, m->huge, adv);
	} else if (word) {
		thp_put(buf, cap, len, "tmpfs: shmem_enabled '%s' overrides every mount's huge= option", word);
	} else {
		thp_put(buf, cap, len, "tmpfs: its mount's huge= option is unknown (no mountinfo)");
	}
}

/* Whether the page cache of V's filesystem holds large folios, and whether
 * read-only text collapse (CONFIG_READ_ONLY_THP_FOR_FS) applies. */
static void put_file(const struct thp_vma *v, const struct thp_why_ctx *c, char *buf, size_t cap,
		     size_t *len)
{
	const struct thp_mount *m = thp_mount_of(c->mounts, v->dev_major, v->dev_minor);
	const struct large_fs *fs = NULL;
	char pmd[32];

	for (size_t i = 0; m && i < sizeof(large_fs) / sizeof(large_fs[0]); i++)
		if (strcmp(m->fstype, large_fs[i].fstype) == 0)
			fs = &large_fs[i];
	thp_size_words(c->pmd_size, pmd, sizeof(pmd));
	if (!m)
		thp_put(buf, cap, len, "file (filesystem unknown): huge only with large folios or read-only collapse");
	else if (fs && since(c, fs->major, fs->minor))
		thp_put(buf, cap, len, "%s file: large folios (Linux %d.%d+%s%s), PMD only where a %s folio lines up",
		    m->fstype, fs->major, fs->minor, fs->except ? ", not " : "", fs->except ? fs->except : "", pmd);
	else if (fs)
		thp_put(buf, cap, len, "%s file: large folios only from Linux %d.%d", m->fstype, fs->major, fs->minor);
	else
		thp_put(buf, cap, len, "%s file: no large folios known for it", m->fstype);
	/* read-only text collapse (CONFIG_READ_ONLY_THP_FOR_FS) shows as THPeligible */
	if (v->eligible == 1)
		thp_put(buf, cap, len, "; read-only collapse possible (THPeligible 1)");
	else if (v->eligible == 0 && v->perms[1] != 'w')
		thp_put(buf, cap, len, "; no read-only collapse (THPeligible 0)");
}

/* The smallest mTHP size whose policy for V's kind is not 'never', 0 when
 * none (page faults allocate mTHP for anonymous and shared anonymous memory). */
static uint64_t smallest_enabled(const struct thp_vma *v, const struct thp_why_ctx *c)
{
	enum thp_vma_kind k = thp_vma_kind(v, c->mounts);
	bool anon = k == THP_VMA_ANON;

	if (!anon && !(k == THP_VMA_SHMEM && thp_vma_shmem_kind(v, c->mounts) == THP_SHM_ANON))
		return 0;
	for (int i = 0; i < c->nsizes; i++) {
		const char *w = anon ? c->sizes[i].anon : c->sizes[i].shmem;
		if (w && !is(w, "never"))
			return c->sizes[i].bytes;
	}
	return 0;
}

/* Why V holds no aligned PMD-sized slot: its size, or where it starts. */
static void put_no_slot(const struct thp_vma *v, const struct thp_why_ctx *c, char *buf, size_t cap,
			size_t *len)
{
	uint64_t size = v->end - v->start, least = smallest_enabled(v, c);
	char pmd[32], sz[32];

	thp_size_words(c->pmd_size, pmd, sizeof(pmd));
	if (size >= c->pmd_size)
		thp_put(buf, cap, len, "misaligned: no aligned %s slot inside", pmd);
	else if (least > size)
		thp_put(buf, cap, len, "too small for a %s page or any enabled size (the smallest is %s)", pmd,
		    thp_size_words(least, sz, sizeof(sz)));
	else
		thp_put(buf, cap, len, "too small for a %s page", pmd);
}

static const char *const reasons[] = {
	[THP_WHY_HUGE] = "",
	[THP_WHY_NO_KERNEL] = "kernel without THP support",
	[THP_WHY_SPECIAL] = "kernel special mapping",
	[THP_WHY_PROC_OFF] = "process has THP disabled (prctl)",
	[THP_WHY_EXCEPT_ADVISED] = "THP only where advised (PR_THP_DISABLE_EXCEPT_ADVISED, inferred)",
	[THP_WHY_NOHUGEPAGE] = "MADV_NOHUGEPAGE",
	[THP_WHY_NEVER] = "policy 'never' (MADV_COLLAPSE still possible)",
	[THP_WHY_NOT_ADVISED] = "policy 'madvise' and range not advised (MADV_HUGEPAGE)",
	[THP_WHY_NOT_ELIGIBLE] = "kernel reports it not eligible (THPeligible 0)",
	[THP_WHY_NOT_FAULTED] = "eligible, not yet faulted or collapsed (khugepaged, or 'thp collapse')",
};

const char *thp_vma_why_text(const struct thp_vma *v, enum thp_why w, const struct thp_why_ctx *c,
			     char *buf, size_t cap)
{
	size_t len = 0;

	buf[0] = '\0';
	if (w == THP_WHY_HUGE)
		return buf;
	put_mthp(v, c, buf, cap, &len);
	switch (w) {
	case THP_WHY_HUGETLB: put_hugetlb(v, buf, cap, &len); break;
	case THP_WHY_SHMEM:
	case THP_WHY_TMPFS: put_shmem(v, w, c, buf, cap, &len); break;
	case THP_WHY_FILE: put_file(v, c, buf, cap, &len); break;
	case THP_WHY_NO_SLOT: put_no_slot(v, c, buf, cap, &len); break;
	default: thp_put(buf, cap, &len, "%s", reasons[w]); break;
	}
	return buf;
}

const char *thp_why_key(enum thp_why w)
{
	static const char *const keys[] = {
		[THP_WHY_HUGE] = "huge",           [THP_WHY_NO_KERNEL] = "no-thp-kernel",
		[THP_WHY_HUGETLB] = "hugetlbfs",   [THP_WHY_SPECIAL] = "special-mapping",
		[THP_WHY_PROC_OFF] = "process-thp-disabled",
		[THP_WHY_EXCEPT_ADVISED] = "process-thp-except-advised",
		[THP_WHY_NOHUGEPAGE] = "madv-nohugepage",
		[THP_WHY_NEVER] = "policy-never",  [THP_WHY_NOT_ADVISED] = "not-advised",
		[THP_WHY_NO_SLOT] = "no-aligned-slot", [THP_WHY_NOT_ELIGIBLE] = "not-eligible",
		[THP_WHY_NOT_FAULTED] = "not-faulted", [THP_WHY_SHMEM] = "shmem-policy",
		[THP_WHY_TMPFS] = "tmpfs-huge-option", [THP_WHY_FILE] = "file-backed",
	};
	return keys[w];
}

bool thp_except_advised_possible(const struct thp_why_ctx *c)
{
	/* PR_THP_DISABLE_EXCEPT_ADVISED exists since Linux 6.18 */
	return since(c, 6, 18) && is(c->anon_policy, "always");
}

void thp_except_advised_evidence(const struct thp_vma *v, const struct thp_why_ctx *c,
				 struct thp_ea_evidence *e)
{
	if (!thp_except_advised_possible(c) || c->proc_thp_enabled != 1 ||
	    thp_vma_kind(v, c->mounts) != THP_VMA_ANON || thp_vma_flag(v, "hg") || thp_vma_flag(v, "nh") ||
	    v->eligible < 0 || !thp_vma_pmd_slots(v, c->pmd_size))
		return;
	if (v->eligible)
		e->against++;
	else
		e->support++;
}

bool thp_except_advised_inferred(const struct thp_ea_evidence *e)
{
	return e->support > 0 && e->against == 0;
}

struct ea_walk {
	const struct thp_why_ctx *c;
	struct thp_ea_evidence *e;
};

static int ea_vma(const struct thp_vma *v, void *ctx)
{
	struct ea_walk *w = ctx;

	thp_except_advised_evidence(v, w->c, w->e);
	return w->e->against ? 1 : 0; /* one eligible mapping settles it */
}

int thp_except_advised_read(const struct thp_root *root, pid_t pid, const struct thp_why_ctx *c,
			    struct thp_ea_evidence *e)
{
	struct ea_walk w = { c, e };
	int err;

	memset(e, 0, sizeof(*e));
	if (!thp_except_advised_possible(c) || c->proc_thp_enabled != 1)
		return 0; /* no mapping could be evidence: smaps (a walk of every page table) is not read */
	err = thp_smaps_read(root, pid, ea_vma, &w);
	return err > 0 ? 0 : err;
}

/* thp_origin_fn: the parent shows the mode too (a kernel thread never does). */
static bool ea_parent(const struct thp_root *root, const struct thp_pstatus *p, void *ctx)
{
	struct thp_why_ctx pc = *(const struct thp_why_ctx *)ctx;
	struct thp_ea_evidence e = { 0, 0 };

	pc.proc_thp_enabled = p->thp_enabled;
	return !thp_pstatus_kthread(p) && thp_except_advised_read(root, p->pid, &pc, &e) == 0 &&
	       thp_except_advised_inferred(&e);
}

bool thp_except_advised_infer(const struct thp_root *root, const struct thp_pstatus *s,
			      const struct thp_why_ctx *c, struct thp_ea_evidence *e,
			      struct thp_pstatus *origin)
{
	struct thp_why_ctx pc = *c;

	pc.proc_thp_enabled = s->thp_enabled;
	pc.except_advised = false;
	pc.mounts = NULL; /* the evidence is about anonymous memory only */
	if (thp_except_advised_read(root, s->pid, &pc, e) || !thp_except_advised_inferred(e))
		return false;
	thp_origin_walk(root, s, ea_parent, &pc, origin);
	return true;
}
