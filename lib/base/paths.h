/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* paths.h - where a bpflab binary finds the files it ships with (BPF objects, plans),
 * without flags, both in the build tree and where `make install` or the Debian package
 * put them.
 *
 * The place is found from the running executable (/proc/self/exe, symbolic links
 * resolved), so one build works at any PREFIX and from a DESTDIR staging root:
 *
 *     build tree:  build/bin/bpflab      ->  build/bpf, plans
 *     installed:   PREFIX/bin/bpflab     ->  PREFIX/lib/bpflab/bpf, PREFIX/share/bpflab/plans
 *                  PREFIX/sbin/bpflabd   ->  the same
 *
 * Called by agent/main.c and cli/main.c at start, before any thread.
 */
#ifndef BPFLAB_PATHS_H
#define BPFLAB_PATHS_H

/* What paths_find() looks for. */
enum paths_kind {
	PATHS_BPF,	/* compiled BPF objects: BUILD/bpf, PREFIX/lib/bpflab/bpf */
	PATHS_PLANS,	/* example plans: SRCDIR/plans, PREFIX/share/bpflab/plans */
};

/* The directory of KIND for the executable EXE (an absolute path): the first of
 * EXE/../../<build-tree place> and EXE/../../<installed place> that is a directory.
 * Returns it resolved (realpath, caller frees), or NULL with errno ENOENT when neither
 * exists (ENOMEM when out of memory). */
char *paths_find_from(const char *exe, enum paths_kind kind);

/* paths_find_from() for the running executable; NULL with errno set when
 * /proc/self/exe cannot be read or nothing is found. */
char *paths_find(enum paths_kind kind);

#endif
