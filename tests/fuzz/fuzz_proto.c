/* fuzz_proto.c - libFuzzer target over what every peer does with bytes off the wire:
 * proto_decode() (size limit, JSON, version, type) then proto_validate() on each of the
 * four channels. Any crash, leak, hang or sanitizer report is a bug: a malformed message
 * must only ever be refused. Seeds: tests/fuzz/corpus/proto/ (one valid message per type
 * and channel). Run by `make fuzz`.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "proto.h"
#include "proto_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[256];
	json_t *msg = proto_decode(data, size, why, sizeof(why));
	int ch;

	if (!msg)
		return 0;
	for (ch = 0; ch < PROTO_CH_COUNT; ch++)
		(void)proto_validate(msg, (enum proto_channel)ch, why, sizeof(why));
	/* what the handlers read after validation */
	(void)proto_msg_type(msg);
	(void)proto_get_int(msg, "job", -1);
	json_decref(msg);
	return 0;
}
