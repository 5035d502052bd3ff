/* kernel_list.h - the file of candidate kernels of `bpflab bisect start --kernels FILE`
 * (docs/bisect.md): one kernel release or commit id a line, oldest first. A line's first
 * word is the name; the rest of the line and everything from a '#' on is a comment;
 * blank lines are skipped. A name is 1..KERNEL_LIST_NAME_MAX bytes of printable ASCII
 * (what `uname -r` and git print), listed once; at most KERNEL_LIST_MAX names (what a
 * bisect session holds).
 *
 * Pure, thread-safe.
 */
#ifndef BPFLAB_KERNEL_LIST_H
#define BPFLAB_KERNEL_LIST_H

#include <jansson.h>
#include <stddef.h>

#define KERNEL_LIST_MAX 1024
#define KERNEL_LIST_NAME_MAX 200
#define KERNEL_LIST_MAX_BYTES (1u << 20)	/* of a file */

/* The names in the LEN bytes of TEXT read from FILE (for messages): a new array of
 * strings in file order, or NULL with errno and ERR ("FILE:LINE: message"; EINVAL for a
 * bad or repeated name, a NUL byte, too many names; ENOMEM). An empty list is not an
 * error here (the caller needs two kernels and says so). */
json_t *kernel_list_parse(const char *text, size_t len, const char *file, char *err,
			  size_t err_len);

#endif
