/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* store_alloc.h - the memory allocator the store gives SQLite (store_alloc.c says why):
 * size classes with a bounded free list per thread, glibc's malloc beneath.
 * store_open installs it once per process, before SQLite's first use.
 */
#ifndef BPFLAB_STORE_ALLOC_H
#define BPFLAB_STORE_ALLOC_H

#include <sqlite3.h>
#include <stddef.h>

/* The largest request served from a size class; larger ones go to malloc as they are */
#define STORE_ALLOC_MAX 131072

/* The allocator's methods, for sqlite3_config(SQLITE_CONFIG_MALLOC) and the unit tests */
const sqlite3_mem_methods *store_alloc_methods(void);

/* Give SQLite the allocator: sqlite3_config(SQLITE_CONFIG_MALLOC), before SQLite is
 * initialized (refused after, harmlessly: SQLite keeps the allocator it has). Not under
 * AddressSanitizer, whose checks the free lists would hide. SQLite's result code. */
int store_alloc_install(void);

/* Blocks in the calling thread's free lists, and their bytes (the unit tests) */
size_t store_alloc_cached(size_t *bytes);

#endif
