/* kernel_list.c - see kernel_list.h. Lines of any length (a long comment is still one
 * comment); names checked byte by byte. Called by cli/bisect.c. */
#include "kernel_list.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "util.h"

/* Whether the N bytes at S are the name of a listed kernel. */
static bool name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n > KERNEL_LIST_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return false;
	return true;
}

/* Whether KERNELS holds the N bytes at S. */
static bool listed(const json_t *kernels, const char *s, size_t n)
{
	const json_t *k;
	size_t i;

	json_array_foreach(kernels, i, k)
		if (json_string_length(k) == n && !memcmp(json_string_value(k), s, n))
			return true;
	return false;
}

json_t *kernel_list_parse(const char *text, size_t len, const char *file, char *err,
			  size_t err_len)
{
	json_t *out = json_array();
	size_t pos = 0;
	int lineno = 0, e = 0;

	if (!out) {
		e = util_seterr(err, err_len, -ENOMEM, "out of memory");
		goto fail;
	}
	while (pos < len) {
		const char *line = text + pos, *nl = memchr(line, '\n', len - pos), *w;
		size_t ll = nl ? (size_t)(nl - line) : len - pos, lead, n;

		pos += ll + 1;
		lineno++;
		if (memchr(line, '\0', ll)) {
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: a NUL byte: not a text file",
					file, lineno);
			goto fail;
		}
		for (lead = 0; lead < ll && (line[lead] == ' ' || line[lead] == '\t'); lead++)
			;
		w = line + lead;
		for (n = 0; lead + n < ll && !strchr(" \t\r#", w[n]); n++)
			;
		if (!n)
			continue;	/* blank or a comment */
		if (!name_ok(w, n)) {
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: '%.*s' is not a kernel "
					"release or commit id (1 to %d printable ASCII characters)",
					file, lineno, n > 64 ? 64 : (int)n, w, KERNEL_LIST_NAME_MAX);
			goto fail;
		}
		if (listed(out, w, n)) {
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: '%.*s' is listed twice",
					file, lineno, (int)n, w);
			goto fail;
		}
		if (json_array_size(out) >= KERNEL_LIST_MAX) {
			e = util_seterr(err, err_len, -EINVAL, "%s:%d: more than %d kernels", file,
					lineno, KERNEL_LIST_MAX);
			goto fail;
		}
		if (json_array_append_new(out, json_stringn(w, n))) {
			e = util_seterr(err, err_len, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	return out;
fail:
	json_decref(out);
	errno = -e;
	return NULL;
}
