// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan.c - see plan.h. The plan parser's entry points: parse, load, -s overrides, destroy.
 *
 * The text is parsed into a positioned tree (plan_tree.c), the -s overrides replace or
 * create nodes in it, and plan_build() (plan_build.c) checks the tree against the plan
 * format (docs/plans.md) while filling a struct plan. The strings of a struct plan are
 * not copies: they point into the tree's nodes, which the plan owns (plan->tree) and
 * frees in plan_destroy(); only the arrays are the plan's own.
 *
 * Every matrix point is then built as a whole plan (plan_matrix.c) so that a bad point
 * refuses the plan; plan_expand() (plan_expand.c) builds them again to write the job
 * specs. The number of jobs (points x repeat x variants) and of attach entries over all
 * jobs are checked before any point is built, and every list a plan may hold has a bound
 * (plan_int.h), so the work stays linear in the text plus linear in the (capped)
 * expansion. plan_int.h lists the parts.
 *
 * Called from the CLI and the coordinator's thread; no global state, no logging (errors
 * go to struct err for the caller to print).
 */
#include "plan/plan_int.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* ---- overrides ---- */

int plan_override_parse(const char *arg, struct plan_override *ov, struct err *err)
{
	const char *eq;
	char buf[400];

	memset(ov, 0, sizeof(*ov));
	eq = arg ? strchr(arg, '=') : NULL;
	if (!eq || eq == arg)
		return err_at(err, NULL, 0, 0, "invalid override '%s': expected KEY=VALUE",
				      arg ? plan_shown(arg, buf, sizeof(buf)) : "");
	if (strchr(eq + 1, '\n') || strchr(eq + 1, '\r'))
		return err_at(err, NULL, 0, 0,
			      "invalid override '%s': the value must be one line",
				      plan_shown(arg, buf, sizeof(buf)));
	ov->key = strndup(arg, (size_t)(eq - arg));
	ov->value = strdup(eq + 1);
	if (!ov->key || !ov->value) {
		plan_override_release(ov);
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	if (!plan_key_path_ok(ov->key)) {
		plan_override_release(ov);
		return err_at(err, NULL, 0, 0,
			      "invalid override '%s': expected a key path such as traffic.packet.size",
				      plan_shown(arg, buf, sizeof(buf)));
	}
	return 0;
}

void plan_override_release(struct plan_override *ov)
{
	if (!ov)
		return;
	free(ov->key);
	free(ov->value);
	ov->key = ov->value = NULL;
}

/* Put one override into TREE. */
static int apply_override(struct vctx *c, struct plan_tree *tree, const struct plan_override *ov)
{
	char kbuf[400], vbuf[400], origin[900];
	struct plan_tree *vtree = NULL;
	struct err terr;
	struct plan_node *value;
	const char *own;
	int ret;

	snprintf(origin, sizeof(origin), "override '%s=%s'",
		 plan_shown(ov->key ? ov->key : "", kbuf, sizeof(kbuf)),
		 plan_shown(ov->value ? ov->value : "", vbuf, sizeof(vbuf)));
	if (!ov->key || !ov->value || !plan_key_path_ok(ov->key))
		return err_at(c->err, c->file, 0, 0,
			      "%s: expected a key path such as traffic.packet.size", origin);
	if (strchr(ov->value, '\n') || strchr(ov->value, '\r'))
		return err_at(c->err, c->file, 0, 0, "%s: the value must be one line", origin);
	own = plan_tree_add_origin(tree, origin);
	if (!own)
		return plan_oom(c);
	ret = plan_tree_parse(ov->value, strlen(ov->value), own, &vtree, &terr);
	if (ret == -ENOMEM)
		return plan_oom(c);
	if (ret)
		return err_at(c->err, c->file, 0, 0, "%s: %s", origin, terr.msg);
	value = vtree->root;
	vtree->root = NULL;
	plan_tree_destroy(&vtree);
	if (!value) {
		value = plan_node_new(PLAN_NODE_SCALAR, "", 0, 0, own);
		if (!value)
			return plan_oom(c);
	}
	ret = plan_tree_set(tree, ov->key, value, 0, 0, own, plan_one_key_maps, NULL, &terr);
	if (ret) {
		plan_node_free(value);
		if (ret == -ENOMEM)
			return plan_oom(c);
		return err_at(c->err, c->file, 0, 0, "%s: %s", origin, terr.msg);
	}
	/* A key set on the command line is no longer varied by the matrix. */
	if (strncmp(ov->key, "matrix", 6) || (ov->key[6] && ov->key[6] != '.'))
		plan_node_remove(plan_node_get(tree->root, "matrix", NULL), ov->key);
	return 0;
}

/* ---- parse, load, destroy ---- */

struct plan *plan_parse(const char *file, const char *text, size_t len,
			const struct plan_override *ov, int n_ov, struct err *err)
{
	struct vctx c = { .file = file ? file : "<plan>", .err = err };
	struct err terr;
	struct plan *p;
	int i, ret;

	err_clear(c.err);
	if (!text && len) {
		err_at(c.err, c.file, 0, 0, "no plan text");
		errno = EINVAL;
		return NULL;
	}
	if (len > PLAN_MAX_BYTES) {
		err_at(c.err, c.file, 0, 0, "the plan is larger than %u bytes", PLAN_MAX_BYTES);
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p) {
		ret = plan_oom(&c);
		goto out;
	}
	p->file = strdup(c.file);
	p->text = malloc(len + 1);
	if (!p->file || !p->text) {
		ret = plan_oom(&c);
		goto out;
	}
	if (len)
		memcpy(p->text, text, len);
	p->text[len] = '\0';
	p->text_len = len;
	util_sha256_hex(p->text, len, p->sha256);

	ret = plan_tree_parse(p->text, len, NULL, &p->tree, &terr);
	if (ret == -ENOMEM) {
		ret = plan_oom(&c);
		goto out;
	}
	if (ret) {
		err_at(c.err, c.file, terr.line, terr.col, "%s", terr.msg);
		goto out;
	}
	if (!p->tree->root || plan_node_is_null(p->tree->root) ||
	    p->tree->root->kind != PLAN_NODE_MAP) {
		ret = plan_build(&c, p->tree->root, p);	/* says what is wrong */
		goto out;
	}
	for (i = 0; i < n_ov; i++) {
		ret = apply_override(&c, p->tree, &ov[i]);
		if (ret)
			goto out;
	}
	ret = plan_build(&c, p->tree->root, p);
	if (!ret)
		ret = plan_check_points(&c, p);
out:
	if (ret) {
		plan_destroy(&p);
		errno = -ret;
		return NULL;
	}
	return p;
}

struct plan *plan_load(const char *file, const struct plan_override *ov, int n_ov,
		       struct err *err)
{
	struct plan *p;
	char *text = NULL;
	char buf[400];
	size_t len = 0;
	int ret;

	ret = util_read_file(file, PLAN_MAX_BYTES, &text, &len);
	if (ret == -EFBIG) {
		err_at(err, file, 0, 0, "the plan is larger than %u bytes", PLAN_MAX_BYTES);
		errno = EINVAL;
		return NULL;
	}
	if (ret) {
		err_set(err, "cannot open plan '%s': %s",
			       plan_shown(file, buf, sizeof(buf)), util_strerror(ret));
		errno = -ret;
		return NULL;
	}
	p = plan_parse(file, text, len, ov, n_ov, err);
	ret = errno;
	free(text);
	errno = ret;
	return p;
}

void plan_destroy(struct plan **planp)
{
	struct plan *p = planp ? *planp : NULL;

	if (!p)
		return;
	plan_fields_release(p);
	plan_tree_destroy(&p->tree);
	free(p->file);
	free(p->text);
	free(p);
	*planp = NULL;
}

