// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_probe_frame.c - libFuzzer target for the link discovery frames an agent reads off
 * its ports (probe_frame_nonce() in agent/probe.c, docs/agent.md): raw bytes from the
 * wire, anyone on the segment can send them.
 *
 * The input is one received frame. Checked beyond "no crash" (reads stay in the frame):
 *  - a nonce is returned only for a frame with PROBE_MAGIC after the 14-byte header, is
 *    at most PROBE_NONCE_MAX bytes, holds no NUL and is exactly the bytes that follow;
 *  - round trip: a frame built as send_probe() builds it (padded with zeros to 60 bytes)
 *    around that nonce gives it back.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *frame = malloc(size ? size : 1);	/* exact size: ASan sees overreads */
	unsigned char built[14 + sizeof(PROBE_MAGIC) + PROBE_NONCE_MAX + 60] = { 0 };
	char nonce[PROBE_NONCE_MAX + 1], again[PROBE_NONCE_MAX + 1];
	size_t m = strlen(PROBE_MAGIC), n, len;

	if (!frame)
		return 0;
	memcpy(frame, data, size);
	n = probe_frame_nonce(frame, size, nonce);
	if (n > PROBE_NONCE_MAX || strlen(nonce) != n)
		abort();
	if (n && (size < 14 + m + n || memcmp(frame + 14, PROBE_MAGIC, m) ||
		  memcmp(frame + 14 + m, nonce, n)))
		abort();
	if (n) {
		memset(built, 0xff, 6);
		memcpy(built + 14, PROBE_MAGIC, m);
		memcpy(built + 14 + m, nonce, n);
		len = 14 + m + n < 60 ? 60 : 14 + m + n;
		if (probe_frame_nonce(built, len, again) != n || strcmp(again, nonce))
			abort();
	}
	free(frame);
	return 0;
}
