/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* vercmp.h - comparing bpflab's versions ("0.1.0"): which agent is too old for the job
 * specs a coordinator encodes (coordinator/submit.c, docs/deploy.md "Upgrades"). */
#ifndef BPFLAB_VERCMP_H
#define BPFLAB_VERCMP_H

/* Compare dotted versions A and B component by component as numbers ("0.10" > "0.9"); a
 * missing component is 0 ("0.1" = "0.1.0"); what follows a component's digits ("0.2rc1")
 * is ignored. Returns <0, 0 or >0 as A is older than, the same as or newer than B. */
int vercmp(const char *a, const char *b);

#endif
