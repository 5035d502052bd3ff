/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* version.h - the one version string of every bpflab binary (bpflab, bpflabd,
 * bpflab-agent): the top-level VERSION file, compiled into lib/base/version.c by the
 * Makefile, so `--version` of each and the agent's hello say the same.
 */
#ifndef BPFLAB_VERSION_H
#define BPFLAB_VERSION_H

extern const char bpflab_version[];

#endif
