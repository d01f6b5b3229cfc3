/* control.h - the only code that writes to the kernel (sysfs, procfs, prctl, madvise) */
#ifndef THP_CONTROL_H
#define THP_CONTROL_H

#include "../core/root.h"

/* Writes VALUE to the kernel file REL below ROOT in one write(2), as sysfs wants
 * (the file is truncated first, as a shell redirection does, so that a recorded
 * tree under --root holds exactly VALUE).
 * Returns 0, or -errno (a short write is -EIO). Validation and read-back are
 * the caller's job. */
int thp_write_file(const struct thp_root *root, const char *rel, const char *value);

#endif
