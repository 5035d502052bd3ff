// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_matrix.c - see plan_int.h. The matrix section: its axes read and checked, and the
 * number of points (plan_point.c applies them).
 *
 * A matrix point is a set of temporary overrides: each axis value is put into the tree
 * (plan_tree_set with undo), the tree is built again into a scratch struct plan, and the
 * changes are undone in reverse order. plan_parse() does that for every point
 * (plan_check_points) so that a bad point refuses the plan; plan_expand() does it again
 * to write the job specs. A point may not vary the matrix, repeat or the variants, so the
 * scratch plan skips the matrix and borrows the plan's variants: a point costs the small
 * sections only.
 */
#include "plan/plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sorted_value {
	const char *text;
	int index;
};

static int cmp_sorted_values(const void *a, const void *b)
{
	const struct sorted_value *x = a, *y = b;
	int r = strcmp(x->text, y->text);

	return r ? r : x->index - y->index;
}

/* Index of the first repeated item of LIST (the repeat that comes first in the list),
 * with the index of its earlier twin in *FIRST; -1 when all differ; -ENOMEM. Sorting
 * keeps this O(n log n) for long lists. */
static int find_duplicate(const struct plan_node *list, int *first)
{
	struct sorted_value *sv = malloc(list->n * sizeof(*sv));
	int i, dup = -1;

	if (!sv)
		return -ENOMEM;
	for (i = 0; i < list->n; i++) {
		sv[i].text = list->kids[i]->text;
		sv[i].index = i;
	}
	qsort(sv, list->n, sizeof(*sv), cmp_sorted_values);
	for (i = 1; i < list->n; i++) {
		/* In a run of equal texts the first is the original and the second the
		 * earliest repeat. */
		if (strcmp(sv[i].text, sv[i - 1].text))
			continue;
		if (i >= 2 && !strcmp(sv[i - 2].text, sv[i].text))
			continue;
		if (dup < 0 || sv[i].index < dup) {
			dup = sv[i].index;
			*first = sv[i - 1].index;
		}
	}
	free(sv);
	return dup;
}

int plan_build_matrix(struct vctx *c, const struct plan_node *matrix, struct plan *p)
{
	char buf[400], kbuf[400];
	int i, j, first = 0, ret = 0;

	if ((ret = plan_want_map(c, matrix, "matrix")))
		return ret;
	if (matrix->n / 2 > PLAN_MAX_AXES)
		return plan_vfail(c, matrix, "matrix: at most %d keys are supported",
				  PLAN_MAX_AXES);
	p->matrix = calloc(matrix->n / 2 + 1, sizeof(*p->matrix));
	if (!p->matrix)
		return plan_oom(c);
	for (i = 0; i + 1 < matrix->n; i += 2) {
		const struct plan_node *key = matrix->kids[i], *list = matrix->kids[i + 1];
		struct plan_axis *ax = &p->matrix[p->n_axes];
		const char *k = key->text;
		size_t root_len = strcspn(k, ".");

		if (!plan_key_path_ok(k))
			return plan_vfail(c, key, "matrix: expected a key path such as traffic.packet.size, got '%s'",
					  plan_shown(k, buf, sizeof(buf)));
		if ((root_len == 6 && !strncmp(k, "matrix", 6)) ||
		    (root_len == 6 && !strncmp(k, "repeat", 6)) ||
		    (root_len == 8 && !strncmp(k, "variants", 8)))
			return plan_vfail(c, key, "matrix: '%s' cannot be varied by the matrix",
					  plan_shown(k, buf, sizeof(buf)));
		for (j = 0; j < p->n_axes; j++) {
			const char *o = p->matrix[j].key;
			size_t lo = strlen(o), lk = strlen(k);

			if ((lo < lk && !strncmp(o, k, lo) && k[lo] == '.') ||
			    (lk < lo && !strncmp(o, k, lk) && o[lk] == '.'))
				return plan_vfail(c, key, "matrix: '%s' overlaps '%s' (at %d:%d)",
						  plan_shown(k, buf, sizeof(buf)),
						  plan_shown(o, kbuf, sizeof(kbuf)),
						  p->matrix[j].line, p->matrix[j].col);
		}
		snprintf(kbuf, sizeof(kbuf), "matrix %s", plan_shown(k, buf, sizeof(buf)));
		if ((ret = plan_want_list(c, list, kbuf, "values", PLAN_MAX_JOBS)))
			return ret;
		ax->key = key->text;
		ax->line = key->line;
		ax->col = key->col;
		ax->values = calloc(list->n, sizeof(*ax->values));
		if (!ax->values)
			return plan_oom(c);
		p->n_axes++;
		for (j = 0; j < list->n; j++) {
			const struct plan_node *v = list->kids[j];

			if (v->kind != PLAN_NODE_SCALAR)
				return plan_vfail(c, v, "%s: values must be scalars, got %s", kbuf,
						  plan_got(v, buf, sizeof(buf)));
			if (strlen(v->text) > PLAN_MAX_VALUE)
				return plan_vfail(c, v, "%s: values must be at most %d characters",
						  kbuf, PLAN_MAX_VALUE);
			ax->values[ax->n_values++] = v->text;
		}
		j = find_duplicate(list, &first);
		if (j == -ENOMEM)
			return plan_oom(c);
		if (j >= 0)
			return plan_vfail(c, list->kids[j],
					  "%s: duplicate value '%s' (first at %d:%d)", kbuf,
					  plan_shown(list->kids[j]->text, buf, sizeof(buf)),
					  list->kids[first]->line, list->kids[first]->col);
	}
	return 0;
}

/* Number of matrix points, saturated at PLAN_MAX_JOBS + 1. */
long long plan_points(const struct plan *p)
{
	long long points = 1;
	int i;

	for (i = 0; i < p->n_axes; i++) {
		points *= p->matrix[i].n_values;
		if (points > PLAN_MAX_JOBS)
			return PLAN_MAX_JOBS + 1;
	}
	return points;
}

/* ---- matrix points ---- */
