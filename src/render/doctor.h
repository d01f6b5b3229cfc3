/* SPDX-License-Identifier: GPL-2.0-or-later */
/* doctor.h - the findings of 'thp doctor' as text and as its JSON document */
#ifndef THP_RENDER_DOCTOR_H
#define THP_RENDER_DOCTOR_H

#include "../core/doctor.h"

/* Prints the findings of D read below ROOT in the document begun with
 * out_doc_begin() (schema THP_DOCTOR_SCHEMA), with the --severity level MIN
 * and the exit status RC it gave. */
#define THP_DOCTOR_SCHEMA "thp-doctor/1"
void thp_doctor_print(const struct thp_root *root, const struct thp_diagnosis *d, enum thp_severity min, int rc);

#endif
