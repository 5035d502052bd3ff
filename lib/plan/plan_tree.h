/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* plan_tree.h - private to lib/plan/ files: a YAML document as a tree of positioned nodes.
 *
 * libyaml's event stream is turned into scalars, sequences and maps that remember where
 * they came from: a 1-based line and column in the plan file, or an origin text for nodes
 * that a submit-time override ("override 'traffic.packet.size=1500'") or a matrix point
 * ("matrix traffic.packet.size=64") put there. Validation errors are formatted from those.
 *
 * The parser accepts the subset of YAML a plan needs: one document, scalar keys that are
 * unique within their map, at most PLAN_TREE_MAX_DEPTH levels, no anchors, aliases or
 * tags. Everything else is refused with a positioned message.
 *
 * Ownership: a tree owns all its nodes, their texts and the origin strings it was given
 * through plan_tree_add_origin. Not thread-safe; trees are independent.
 */
#ifndef BPFLAB_PLAN_TREE_H
#define BPFLAB_PLAN_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"

#define PLAN_TREE_MAX_DEPTH 32

enum plan_node_kind { PLAN_NODE_SCALAR, PLAN_NODE_SEQ, PLAN_NODE_MAP };

struct plan_node {
	enum plan_node_kind kind;
	int line, col;			/* 1-based; 0 when the node has no place in the file */
	const char *origin;		/* NULL: from the file; else owned by the tree */
	char *text;			/* scalars: the value, NUL-free and NUL-terminated */
	bool plain;			/* scalars: written without quotes */
	struct plan_node **kids;	/* seq: items; map: key, value, key, value, ... */
	int n;				/* number of kids (twice the pairs for a map) */
	int cap;
};

struct plan_tree {
	struct plan_node *root;		/* NULL for an empty document */
	char **origins;
	int n_origins;
};

/* Parse LEN bytes of YAML into a new tree (*TREEP). ORIGIN, when not NULL, is given to
 * every node instead of a position (used for override values); it is borrowed and must
 * outlive the nodes (plan_tree_add_origin of the tree they end up in).
 * Returns 0, -EINVAL with ERR set (err_at without a file: the message, LINE and COL;
 * LINE 0 for override values) for text the plan format refuses, -ENOMEM. */
int plan_tree_parse(const char *text, size_t len, const char *origin,
		    struct plan_tree **treep, struct err *err);
void plan_tree_destroy(struct plan_tree **treep);

/* Keep a copy of TEXT for nodes' origin pointers; returns it or NULL on ENOMEM. */
const char *plan_tree_add_origin(struct plan_tree *tree, const char *text);

/* A new node (kind, position, origin borrowed from the tree), NULL on ENOMEM. For a
 * scalar TEXT is copied. */
struct plan_node *plan_node_new(enum plan_node_kind kind, const char *text, int line,
				int col, const char *origin);
void plan_node_free(struct plan_node *node);
/* Append KID to a seq, or a KEY and VALUE pair to a map. Takes ownership only on
 * success. Returns 0 or -ENOMEM. */
int plan_node_append(struct plan_node *node, struct plan_node *kid);
/* A YAML null: an unquoted empty scalar, "~" or "null". */
bool plan_node_is_null(const struct plan_node *node);
/* The value under KEY in MAP (and its key node in *KEYP), or NULL. */
struct plan_node *plan_node_get(const struct plan_node *map, const char *key,
				struct plan_node **keyp);

/* A change made by plan_tree_set, to be undone in reverse order. */
struct plan_tree_undo {
	struct plan_node *map;		/* the map that was changed */
	int index;			/* of the value slot, or of the appended key */
	struct plan_node *old;		/* the value replaced, or NULL when appended */
};

/* Set the value at dotted PATH to VALUE, creating missing maps (their nodes get LINE,
 * COL and ORIGIN). At each map the longest run of path parts that is an existing key is
 * taken; under the maps named in ONE_KEY_MAPS (a NULL-terminated list of dotted paths
 * such as "hosts.match") the rest of the path is always one key. A null value on the way
 * is replaced by a map. On success VALUE belongs to the tree; with UNDO the replaced value
 * is kept there (and is freed by plan_tree_undo) instead of being freed.
 * Returns 0, -ENOTDIR with ERR ("'repeat' is not a map") when the path crosses a scalar
 * or a list, -ENOMEM. */
int plan_tree_set(struct plan_tree *tree, const char *path, struct plan_node *value,
		  int line, int col, const char *origin, const char *const *one_key_maps,
		  struct plan_tree_undo *undo, struct err *err);
/* Revert one plan_tree_set (the most recent one not yet undone). Never fails. */
void plan_tree_undo(struct plan_tree_undo *undo);
/* Remove KEY from MAP (freeing key and value) if present. */
void plan_node_remove(struct plan_node *map, const char *key);

#endif
