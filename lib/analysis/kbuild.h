/* kbuild.h - a kernel build's identity and the label tables and plots give it.
 *
 * A kernel build is release + version string (`uname -v`: build number and date) +
 * config sha256, as host_envs keeps them (docs/store.md). Kernel developers' own
 * builds often share a release (`6.18.0-rc1+`), so the release alone does not tell them
 * apart. The label is the release, plus " #" and a short hash of the identity only when
 * two builds of the same set of results share that release: `6.18.0-rc1+ #a1b2c3`.
 *
 * Used by lib/store/store_query.c (each value row's "kernel_build", what
 * `--by kernel.build` groups by) and by the exports. Pure, thread-safe.
 */
#ifndef BPFLAB_KBUILD_H
#define BPFLAB_KBUILD_H

#include <jansson.h>

#include "base/util.h"

/* Hex digits of the identity in a label (more when two builds would share them). */
#define KBUILD_SHORT 6

/* The identity of the build (RELEASE, VERSION, CONFIG_SHA256; NULL counts as ""): the
 * SHA-256 (hex) of the three joined by newlines, into OUT. */
void kbuild_id(const char *release, const char *version, const char *config_sha256,
	       char out[SHA256_HEX_LEN]);

/* Give every value row of ROWS (objects with "kernel_release", "kernel_version",
 * "config_sha256", each may be absent or null) "kernel_build_id" (kbuild_id; absent
 * when all three are) and "kernel_build" (the label: the release alone when no other
 * build of ROWS has it, else "RELEASE #SHORT"; "" without identity). Returns 0 or
 * -ENOMEM (rows then partly labelled). */
int kbuild_label_rows(json_t *rows);

#endif
