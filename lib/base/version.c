// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* version.c - see version.h; BPFLAB_VERSION comes from the Makefile (VERSION). */
#include "base/version.h"

#ifndef BPFLAB_VERSION
#error "BPFLAB_VERSION is set by the Makefile from the VERSION file"
#endif

const char bpflab_version[] = BPFLAB_VERSION;
