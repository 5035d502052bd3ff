// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_point.c - see plan_int.h. One matrix point applied to the plan's tree (each axis
 * value as a temporary override, undone in reverse order) and built into a scratch plan;
 * plan_check_points() builds every point so that a bad one refuses the plan. Above
 * plan_build.c (it calls plan_build), below plan.c and plan_expand.c.
 */
#include "plan/plan_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The maps whose keys a path may not create (an override or axis names an existing one). */
const char *const plan_one_key_maps[] = { "hosts.match", "variants", "matrix", NULL };

/* Release a plan built for a point: its variants are the base plan's. */
void plan_point_release(struct plan *scratch)
{
	scratch->variants = NULL;
	scratch->n_variants = 0;
	plan_fields_release(scratch);
}

void plan_point_unapply(struct point_state *ps)
{
	while (ps->n_applied)
		plan_tree_undo(&ps->undo[--ps->n_applied]);
}

/* Put point INDEX of BASE's matrix into TREE (digits: first axis outermost). Values go in
 * with the position of the matrix value and the origin "matrix KEY=VALUE". Fills
 * POINT_VALUES when given. */
int plan_point_apply(struct vctx *c, const struct plan *base, struct plan_tree *tree,
		     long long index, struct point_state *ps, json_t *point_values)
{
	const struct plan_node *matrix = plan_node_get(tree->root, "matrix", NULL);
	int digit[PLAN_MAX_AXES];
	size_t lo = 0;
	int i, ret;

	for (i = base->n_axes - 1; i >= 0; i--) {
		digit[i] = (int)(index % base->matrix[i].n_values);
		index /= base->matrix[i].n_values;
	}
	lo = (size_t)snprintf(ps->label, sizeof(ps->label), "matrix point ");
	for (i = 0; i < base->n_axes; i++) {
		const struct plan_node *vnode = matrix->kids[2 * i + 1]->kids[digit[i]];
		const struct plan_axis *ax = &base->matrix[i];
		char kbuf[400], vbuf[400];
		struct err e;
		struct plan_node *node;

		snprintf(ps->origin[i], sizeof(ps->origin[i]), "matrix %s=%s",
			 plan_shown(ax->key, kbuf, sizeof(kbuf)),
			 plan_shown(vnode->text, vbuf, sizeof(vbuf)));
		if (lo < sizeof(ps->label))
			lo += (size_t)snprintf(ps->label + lo, sizeof(ps->label) - lo, "%s%s",
					       i ? ", " : "", ps->origin[i] + 7);
		if (point_values && json_object_set_new(point_values, ax->key,
							json_string(vnode->text)))
			return plan_oom(c);
		node = plan_node_new(PLAN_NODE_SCALAR, vnode->text, vnode->line, vnode->col,
				     ps->origin[i]);
		if (!node)
			return plan_oom(c);
		node->plain = vnode->plain;
		ret = plan_tree_set(tree, ax->key, node, vnode->line, vnode->col, ps->origin[i],
				    plan_one_key_maps, &ps->undo[ps->n_applied], &e);
		if (ret) {
			if (ret != -ENOMEM)
				plan_vfail(c, node, "%s", e.msg);
			plan_node_free(node);
			return ret == -ENOMEM ? plan_oom(c) : -EINVAL;
		}
		ps->n_applied++;
	}
	return 0;
}

/* Validate every point of P's matrix as a whole plan. */
int plan_check_points(struct vctx *c, struct plan *p)
{
	struct point_state *ps;
	long long points = plan_points(p), k;
	int ret = 0;

	if (!p->n_axes)
		return 0;
	ps = calloc(1, sizeof(*ps));
	if (!ps)
		return plan_oom(c);
	for (k = 0; k < points && !ret; k++) {
		struct plan scratch = { 0 };

		ret = plan_point_apply(c, p, p->tree, k, ps, NULL);
		if (!ret) {
			c->point = ps->label;
			c->base = p;
			ret = plan_build(c, p->tree->root, &scratch);
			c->point = NULL;
			c->base = NULL;
		}
		plan_point_release(&scratch);
		plan_point_unapply(ps);
	}
	free(ps);
	return ret;
}

