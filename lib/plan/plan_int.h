/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* plan_int.h - private to the lib/plan/ files: what the parts of the plan parser share.
 *
 * The parts (plan.c has the overview):
 *   plan.c         entry points: parse, load, overrides, destroy
 *   plan_value.c   validation state, error messages and typed values of the tree
 *   plan_build.c   metric names, the sections (hosts, ports, traffic, metrics, link,
 *                  repeat) and plan_build(), which checks a whole tree into a plan
 *   plan_attach.c  variants and their attach entries (maps, counters)
 *   plan_matrix.c  the matrix section and its number of points
 *   plan_point.c   one point applied to the tree (temporary overrides) and built
 *   plan_search.c  the search section; plan_latency.c the latency section
 *   plan_expand.c  expansion of a plan into its jobs and their specs (jobspec.h)
 *   plan_tree.c    the YAML tree itself (plan_tree.h)
 *
 * The limits below bound every list a plan may hold, so that the work stays linear in the
 * text plus linear in the (capped) expansion.
 */
#ifndef BPFLAB_PLAN_INT_H
#define BPFLAB_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"
#include "plan/plan_tree.h"

#define PLAN_MAX_PORTS 64
#define PLAN_MAX_VARIANTS 1000
#define PLAN_MAX_ATTACH 16		/* per variant */
#define PLAN_MAX_ATTACH_TOTAL 400000	/* attach entries over all jobs of a plan */
#define PLAN_MAX_MATCH 64
#define PLAN_MAX_HOSTS 10000
#define PLAN_MAX_AXES 16
#define PLAN_MAX_VALUE 1024		/* length of a matrix value or a selector */
#define PLAN_MAX_OBJECT 1024		/* length of an object name or path */
#define PLAN_MAX_KEY 256		/* length of an override or matrix key */
#define PLAN_MAX_REPEAT 1000
#define PLAN_MAX_WARMUP_MS (600 * 1000)
#define PLAN_MAX_FILL_MAPS 8		/* maps filled per attach entry */
#define PLAN_MAX_FILLS 256		/* slots per filled map */
#define PLAN_MAX_COUNTER_MAPS 8		/* counters entries per attach entry */
#define PLAN_MAX_COUNTER_KEYS 64	/* keys per counters entry */

/* Maps whose keys may contain dots: below them the rest of a path is one key (plan.c). */
extern const char *const plan_one_key_maps[];

/* ---- plan_value.c: messages ---- */

/* Validation state: where errors go and what to put in front of them. */
struct vctx {
	const char *file;
	struct err *err;
	const char *point;		/* "matrix point k=v, ..." while building a point */
	const struct plan *base;	/* the plan whose point is built */
	const char *subject;		/* "variant 'drop'" inside a variant */
};

/* TEXT for a message: at most 64 characters, control characters and non-ASCII bytes
 * escaped, so that hostile input cannot garble a terminal or a log line. */
const char *plan_shown(const char *text, char *buf, size_t len);
/* What NODE is, for "got ...": 'text', a map, a list, nothing. */
const char *plan_got(const struct plan_node *node, char *buf, size_t len);
/* "a, b, c" of a NULL-terminated list or of N strings, cut short with "..." */
const char *plan_joined(const char *const *list, int n, char *buf, size_t len);
/* Fill the error: "FILE:L:C: [ORIGIN: | POINT: ][SUBJECT: ]message", or "FILE: ..." for
 * a node that has no place in the file. Returns -EINVAL. */
int plan_vfail(struct vctx *c, const struct plan_node *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "FILE: out of memory". Returns -ENOMEM. */
int plan_oom(struct vctx *c);

/* ---- plan_value.c: typed values ----
 * The want_* functions check NODE (at PATH, for the message) and return 0, or -EINVAL
 * through plan_vfail. */

/* The value of an optional KEY in MAP, NULL when absent or null. */
struct plan_node *plan_opt(const struct plan_node *map, const char *key);
/* MAP has keys from KNOWN only. */
int plan_check_keys(struct vctx *c, const struct plan_node *map,
		    const char *const *known, const char *where);
/* The value of a required KEY (possibly a null node), or an error at the map. */
int plan_need(struct vctx *c, const struct plan_node *map, const char *key,
	      const char *where, struct plan_node **out);
int plan_want_map(struct vctx *c, const struct plan_node *node, const char *path);
/* A non-empty list of at most MAX items. */
int plan_want_list(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *what, int max);
/* A scalar that is neither null nor empty, at most MAX characters long. */
int plan_want_text(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *what, size_t max);
/* A name (util_name_ok with EXTRA) of at most PLAN_MAX_NAME characters. */
int plan_want_name(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *extra, const char *what);
/* Decimal integer of the whole scalar ("-" allowed, no spaces, no "+"). */
bool plan_parse_int(const struct plan_node *node, long long *out);
int plan_want_int(struct vctx *c, const struct plan_node *node, const char *path,
		  long long lo, long long hi, int *out);
/* One of NAMES (NULL-terminated); its index in *OUT. */
int plan_want_enum(struct vctx *c, const struct plan_node *node, const char *path,
		   const char *const *names, int *out);
/* A duration ("10s", "500ms") from LO to HI milliseconds (RANGE says so in words). */
int plan_want_duration(struct vctx *c, const struct plan_node *node, const char *path,
		       int64_t lo, int64_t hi, const char *range, int64_t *out);
/* A number with an optional '%' after it (*SIGN says whether), as written. */
bool plan_parse_percent(const struct plan_node *node, double *out, bool *sign);
/* A percentage ("2%" or "2") above LO and below HI (percent) into *OUT as a fraction. */
int plan_want_percent(struct vctx *c, const struct plan_node *node, const char *path,
		      double lo, double hi, double *out);
/* Whether ROLE is one of P's ports; otherwise an error at NODE naming them. */
int plan_want_port(struct vctx *c, const struct plan *p, const struct plan_node *node,
		   const char *what);
/* Whether KEY is a dotted path: non-empty parts, at most PLAN_MAX_KEY long. */
bool plan_key_path_ok(const char *key);

/* ---- plan_build.c ---- */

/* Check ROOT against the plan format and fill P's fields. On error P may hold partial
 * arrays: the caller releases them either way (plan_fields_release). */
int plan_build(struct vctx *c, const struct plan_node *root, struct plan *p);
/* Free what plan_build allocated (the arrays; strings belong to the tree). */
void plan_fields_release(struct plan *p);

/* ---- plan_search.c ---- */

/* The search section (docs/plans.md, "search") into P->search; checked against the
 * traffic section by plan_check_search once both are built. */
int plan_build_search(struct vctx *c, const struct plan_node *node, struct plan *p);
int plan_check_search(struct vctx *c, const struct plan_node *root, const struct plan *p);

/* ---- plan_latency.c ---- */

/* The latency section (docs/plans.md, "latency") into P->latency; checked against the
 * traffic, search and link sections by plan_check_latency once all are built. */
int plan_build_latency(struct vctx *c, const struct plan_node *node, struct plan *p);
int plan_check_latency(struct vctx *c, const struct plan_node *root, const struct plan *p);

/* ---- plan_attach.c ---- */

/* The variants section, each variant's attach entries with their maps and counters. */
int plan_build_variants(struct vctx *c, const struct plan_node *variants, struct plan *p);

/* ---- plan_matrix.c ---- */

/* The matrix section: axes of distinct values. */
int plan_build_matrix(struct vctx *c, const struct plan_node *matrix, struct plan *p);
/* Number of matrix points, saturated at PLAN_MAX_JOBS + 1. */
long long plan_points(const struct plan *p);

/* ---- plan_point.c ---- */

/* A point being applied to the tree. */
struct point_state {
	struct plan_tree_undo undo[PLAN_MAX_AXES];
	char origin[PLAN_MAX_AXES][600];
	char label[2048];		/* "matrix point k=v, k=v" */
	int n_applied;
};

/* Release a plan built for a point: its variants are the base plan's. */
void plan_point_release(struct plan *scratch);
/* Undo what plan_point_apply put into the tree, in reverse order. */
void plan_point_unapply(struct point_state *ps);
/* Put point INDEX of BASE's matrix into TREE (digits: first axis outermost). Values go in
 * with the position of the matrix value and the origin "matrix KEY=VALUE". Fills
 * POINT_VALUES when given. */
int plan_point_apply(struct vctx *c, const struct plan *base, struct plan_tree *tree,
		     long long index, struct point_state *ps, json_t *point_values);
/* Validate every point of P's matrix as a whole plan. */
int plan_check_points(struct vctx *c, struct plan *p);

#endif
