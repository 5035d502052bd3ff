/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* kbuild.h - a kernel build's identity and the label tables and plots give it.
 *
 * A kernel build is release + version string (`uname -v`: build number and date) +
 * config sha256, as host_envs keeps them (docs/store.md). Kernel developers' own
 * builds often share a release (`6.18.0-rc1+`), so the release alone does not tell them
 * apart. The label is the release, plus " #" and a short hash of the identity only when
 * two builds of the same set of results share that release: `6.18.0-rc1+ #a1b2c3`.
 *
 * Used by lib/store/store_query.c (each value row's "kernel_build", what
 * `--by kernel.build` groups by) and by the exports (lib/report/export.c: names that
 * always carry the hash, `--kernel` matching a release or a label). Pure, thread-safe.
 */
#ifndef BPFLAB_KBUILD_H
#define BPFLAB_KBUILD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/util.h"

/* Hex digits of the identity in a label (more when two builds would share them). */
#define KBUILD_SHORT 6

/* The identity of the build (RELEASE, VERSION, CONFIG_SHA256; NULL counts as ""): the
 * SHA-256 (hex) of the three joined by newlines, into OUT. */
void kbuild_id(const char *release, const char *version, const char *config_sha256,
	       char out[SHA256_HEX_LEN]);

/* The identity of the build a value row ran on ("kernel_release", "kernel_version",
 * "config_sha256"), into OUT. */
void kbuild_id_of_row(const json_t *row, char out[SHA256_HEX_LEN]);

/* The label of build ID of RELEASE with KBUILD_SHORT digits of ID whatever other builds
 * there are ("6.18.0-rc1+ #c7151c"; "#c7151c" without a release), into OUT (LEN bytes):
 * a name that stays the same from one set of results to the next (the exports). */
void kbuild_label_hashed(const char *release, const char *id, char *out, size_t len);

/* Whether NAME names build ID of RELEASE: NAME is the release, or a label "RELEASE #HEX"
 * whose HEX (4 to 64 lowercase hex digits) starts ID. */
bool kbuild_matches(const char *name, const char *release, const char *id);

/* The commit a kernel of RELEASE was built from, when lab/kbuild/build.sh built it from a
 * git tree: its release ends "-bpflab-HEX12" or "-bpflab-HEX12-dirty" (the commit's
 * first 12 hex digits, uncommitted changes on top). OUT (KBUILD_COMMIT_LEN bytes) gets
 * "HEX12" or "HEX12-dirty", what `git describe --always --abbrev=12 --dirty` prints at
 * that commit. Returns whether it did; "" in OUT when not. */
#define KBUILD_COMMIT_LEN 19
bool kbuild_commit_of_release(const char *release, char out[KBUILD_COMMIT_LEN]);

/* Give every value row of ROWS (objects with "kernel_release", "kernel_version",
 * "config_sha256", each may be absent or null) "kernel_build_id" (kbuild_id; absent
 * when all three are) and "kernel_build" (the label: the release alone when no other
 * build of ROWS has it, else "RELEASE #SHORT"; "" without identity). Returns 0 or
 * -ENOMEM (rows then partly labelled). */
int kbuild_label_rows(json_t *rows);

#endif
