// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* fuzz_proto.c - libFuzzer target over what every peer does with bytes off the wire:
 * proto_decode() (size limit, JSON, version, type) then proto_validate() on each of the
 * four channels, and proto_encode() of what was decoded. proto_parse() and
 * proto_encode() must agree with jansson's json_loadb() and json_dumps() (same values,
 * same refusals, same bytes). Any crash, leak, hang or sanitizer report is a bug: a malformed message
 * must only ever be refused. Seeds: tests/fuzz/corpus/proto/ (one valid message per type
 * and channel). Run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/proto.h"
#include "proto/proto_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct err why;
	json_t *msg, *ours, *theirs;
	json_error_t jerr;
	int ch;

	/* proto_parse builds what jansson's parser builds, and refuses what it refuses;
	 * except that jansson skips a NUL byte right after a number or literal ("[1\0]" is
	 * [1] to it), which proto_parse refuses like any other stray byte */
	ours = proto_parse(data, size, &why);
	theirs = json_loadb((const char *)data, size, JSON_REJECT_DUPLICATES, &jerr);
	if ((ours && !theirs) || (!ours && theirs && !memchr(data, 0, size)) ||
	    (ours && !json_equal(ours, theirs)))
		abort();
	json_decref(ours);
	json_decref(theirs);
	msg = proto_decode(data, size, &why);
	if (!msg)
		return 0;
	for (ch = 0; ch < PROTO_CH_COUNT; ch++)
		(void)proto_validate(msg, (enum proto_channel)ch, &why);
	/* what the handlers read after validation */
	(void)proto_msg_type(msg);
	(void)jget_int(msg, "job", -1);
	/* proto_encode writes exactly what json_dumps does */
	{
		char *ours = proto_encode(msg, NULL), *theirs = json_dumps(msg, JSON_COMPACT);

		if (!ours != !theirs || (ours && strcmp(ours, theirs)))
			abort();
		free(ours);
		free(theirs);
	}
	json_decref(msg);
	return 0;
}
