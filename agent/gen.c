/* gen.c - what the generators share (gen.h): the common start of their _new(). */
#include "gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *gen_alloc(size_t size, int threads, int flows, bool bad, const char *usage, char *err,
		size_t err_len)
{
	void *gen;

	if (bad || threads < 1 || threads > GEN_MAX_THREADS || flows < 1 ||
	    flows > GEN_MAX_FLOWS) {
		snprintf(err, err_len, "%s", usage);
		errno = EINVAL;
		return NULL;
	}
	gen = calloc(1, size);
	if (!gen) {
		snprintf(err, err_len, "out of memory");
		errno = ENOMEM;
	}
	return gen;
}
