/* SPDX-License-Identifier: GPL-2.0-or-later */
/* unpack.h - a capture archive (what 'thp capture -o FILE.tar.gz' writes)
 * unpacked into a private directory, safely, for reading as a root; and
 * written from the directory a capture is staged in */
#ifndef THP_UNPACK_H
#define THP_UNPACK_H

#include <stdbool.h>
#include <stddef.h>

/* Limits of an archive thp unpacks: bytes of all files, and entries. A file
 * is limited to THP_READ_MAX, the most thp reads of one file anyway. */
#define THP_UNPACK_BYTES_MAX (512ull << 20)
#define THP_UNPACK_ENTRIES_MAX 200000

/* Makes a new private directory (mode 0700) below $TMPDIR, else /tmp, for an
 * archive to be unpacked into, and writes its path to DIR (CAP bytes). On
 * failure WHY (WCAP bytes) says where it could not be made. Returns 0 or -errno. */
int thp_unpack_dir(char *dir, size_t cap, char *why, size_t wcap);

/* Unpacks ARCHIVE (a regular file: tar, plain or compressed with gzip, xz or
 * zstd) into DIR, made by thp_unpack_dir(). Only directories and regular
 * files are taken, each at a relative path without '..' made only of
 * directories unpacked here, so nothing is written outside; a link, a
 * device, an absolute or climbing path, a file where an earlier entry made a
 * directory (or the reverse), or an archive over the limits refuses the whole
 * archive; a file given twice is written twice. On failure WHY (WCAP
 * bytes) says what was wrong, naming the entry, and DIR holds what was
 * unpacked until then (thp_unpack_remove). Returns 0, or -errno (-ENOSYS:
 * the libarchive library cannot be loaded; -EINVAL: the archive was refused,
 * a FIFO or device among them). */
int thp_unpack(const char *archive, const char *dir, char *why, size_t wcap);

/* True when directory DIR holds a proc or sys directory, as a capture does. */
bool thp_capture_dir(const char *dir);

/* The capture inside an unpacked archive DIR: DIR itself, or its only
 * directory ('thp capture' packs one). Writes it to OUT (CAP bytes); false
 * when neither is a capture (thp_capture_dir). */
bool thp_unpack_capture_in(const char *dir, char *out, size_t cap);

/* Writes to FD, as it goes, a gzip-compressed tar of directory STEM below
 * directory DIR, as 'tar -czf - STEM' run in DIR does: "STEM/", then every
 * directory ("STEM/proc/") and regular file below it with its mode, owner
 * and time; links are not followed and left out. STOP (unless NULL) is asked
 * before each entry; true ends the packing with -EINTR. No other program is
 * run. Returns 0 or -errno (-ENOSYS: the libarchive library cannot be loaded,
 * or has no built-in gzip); WHY (WCAP bytes) may say what went wrong. */
int thp_pack(int dir, const char *stem, int fd, bool (*stop)(void), char *why, size_t wcap);

/* Removes directory DIR made by thp_unpack() and everything in it. */
void thp_unpack_remove(const char *dir);

#endif
