// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* plan_tree.c - see plan_tree.h. libyaml events into a tree of positioned nodes.
 *
 * The parser is a loop over events with an explicit stack (never recursion on input), so
 * the work is linear in the text: duplicate keys are found through one hash table keyed
 * by (map, key) for the whole document, and nesting stops at PLAN_TREE_MAX_DEPTH.
 */
#include "plan/plan_tree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

struct plan_node *plan_node_new(enum plan_node_kind kind, const char *text, int line,
				int col, const char *origin)
{
	struct plan_node *node = calloc(1, sizeof(*node));

	if (!node)
		return NULL;
	node->kind = kind;
	node->line = line;
	node->col = col;
	node->origin = origin;
	if (kind == PLAN_NODE_SCALAR) {
		node->text = strdup(text ? text : "");
		if (!node->text) {
			free(node);
			return NULL;
		}
		node->plain = true;
	}
	return node;
}

/* Iterative, so that a deep tree cannot overflow the stack: kids are freed by walking
 * down to a leaf, using the parent's kid count as the cursor. */
void plan_node_free(struct plan_node *node)
{
	while (node) {
		struct plan_node *leaf = node, *parent = NULL;

		while (leaf->n) {
			parent = leaf;
			leaf = leaf->kids[leaf->n - 1];
		}
		if (parent)
			parent->n--;
		free(leaf->text);
		free(leaf->kids);
		if (leaf == node)
			node = NULL;
		free(leaf);
	}
}


bool plan_node_is_null(const struct plan_node *node)
{
	if (!node || node->kind != PLAN_NODE_SCALAR || !node->plain)
		return false;
	return !strcmp(node->text, "") || !strcmp(node->text, "~") ||
	       !strcmp(node->text, "null") || !strcmp(node->text, "Null") ||
	       !strcmp(node->text, "NULL");
}

struct plan_node *plan_node_get(const struct plan_node *map, const char *key,
				struct plan_node **keyp)
{
	int i;

	if (!map || map->kind != PLAN_NODE_MAP)
		return NULL;
	for (i = 0; i + 1 < map->n; i += 2) {
		if (!strcmp(map->kids[i]->text, key)) {
			if (keyp)
				*keyp = map->kids[i];
			return map->kids[i + 1];
		}
	}
	return NULL;
}

void plan_node_remove(struct plan_node *map, const char *key)
{
	int i;

	if (!map || map->kind != PLAN_NODE_MAP)
		return;
	for (i = 0; i + 1 < map->n; i += 2) {
		if (!strcmp(map->kids[i]->text, key)) {
			plan_node_free(map->kids[i]);
			plan_node_free(map->kids[i + 1]);
			memmove(&map->kids[i], &map->kids[i + 2],
				(map->n - i - 2) * sizeof(map->kids[0]));
			map->n -= 2;
			return;
		}
	}
}

const char *plan_tree_add_origin(struct plan_tree *tree, const char *text)
{
	char **norigins;
	char *copy;

	norigins = realloc(tree->origins, (tree->n_origins + 1) * sizeof(*norigins));
	if (!norigins)
		return NULL;
	tree->origins = norigins;
	copy = strdup(text);
	if (!copy)
		return NULL;
	tree->origins[tree->n_origins++] = copy;
	return copy;
}

void plan_tree_destroy(struct plan_tree **treep)
{
	struct plan_tree *tree = treep ? *treep : NULL;
	int i;

	if (!tree)
		return;
	plan_node_free(tree->root);
	for (i = 0; i < tree->n_origins; i++)
		free(tree->origins[i]);
	free(tree->origins);
	free(tree);
	*treep = NULL;
}

/* ---- duplicate keys: one open-addressing table of (map, key) for the document ---- */

struct dup_slot {
	const struct plan_node *map;
	const struct plan_node *key;
};

struct dup_table {
	struct dup_slot *slots;
	size_t cap, used;		/* cap is a power of two */
};

static uint64_t dup_hash(const struct plan_node *map, const char *key)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)map;

	for (; *key; key++) {
		h ^= (unsigned char)*key;
		h *= 1099511628211ull;
	}
	h ^= h >> 29;
	return h;
}

static int dup_grow(struct dup_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64, i;
	struct dup_slot *nslots = calloc(ncap, sizeof(*nslots));

	if (!nslots)
		return -ENOMEM;
	for (i = 0; i < t->cap; i++) {
		size_t j;

		if (!t->slots[i].map)
			continue;
		j = dup_hash(t->slots[i].map, t->slots[i].key->text) & (ncap - 1);
		while (nslots[j].map)
			j = (j + 1) & (ncap - 1);
		nslots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = nslots;
	t->cap = ncap;
	return 0;
}

/* Insert KEY of MAP; returns 0, 1 with *FIRST when the key is already there, -ENOMEM. */
static int dup_insert(struct dup_table *t, const struct plan_node *map,
		      const struct plan_node *key, const struct plan_node **first)
{
	size_t j;

	if ((t->used + 1) * 2 > t->cap && dup_grow(t))
		return -ENOMEM;
	j = dup_hash(map, key->text) & (t->cap - 1);
	while (t->slots[j].map) {
		if (t->slots[j].map == map && !strcmp(t->slots[j].key->text, key->text)) {
			*first = t->slots[j].key;
			return 1;
		}
		j = (j + 1) & (t->cap - 1);
	}
	t->slots[j].map = map;
	t->slots[j].key = key;
	t->used++;
	return 0;
}

/* ---- the parser ---- */

struct tree_parser {
	const char *text;
	size_t len;
	const char *origin;
	struct err *err;
	struct dup_table dups;
	struct plan_node *stack[PLAN_TREE_MAX_DEPTH + 1];
	int depth;
	int documents;
};

static int tp_fail(struct tree_parser *p, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int tp_fail(struct tree_parser *p, int line, int col, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	err_at(p->err, NULL, p->origin ? 0 : line, col, "%s", msg);
	return -EINVAL;
}

static int tp_fail_at(struct tree_parser *p, yaml_mark_t mark, const char *msg)
{
	return tp_fail(p, (int)mark.line + 1, (int)mark.column + 1, "%s", msg);
}

/* Line and column (1-based, in bytes) of byte OFFSET of the text. */
static void tp_offset_pos(const struct tree_parser *p, size_t offset, int *line, int *col)
{
	size_t i, bol = 0;
	int l = 1;

	if (offset > p->len)
		offset = p->len;
	for (i = 0; i < offset; i++) {
		if (p->text[i] == '\n') {
			l++;
			bol = i + 1;
		}
	}
	*line = l;
	*col = (int)(offset - bol) + 1;
}

static int tp_yaml_error(struct tree_parser *p, const yaml_parser_t *yp)
{
	const char *problem = yp->problem ? yp->problem : "invalid YAML";
	int line, col;

	switch (yp->error) {
	case YAML_MEMORY_ERROR:
		return -ENOMEM;
	case YAML_READER_ERROR:
		tp_offset_pos(p, yp->problem_offset, &line, &col);
		if (yp->problem_value != -1)
			return tp_fail(p, line, col, "%s (byte 0x%02x)", problem,
				       yp->problem_value & 0xff);
		return tp_fail(p, line, col, "%s", problem);
	default:
		line = (int)yp->problem_mark.line + 1;
		col = (int)yp->problem_mark.column + 1;
		if (yp->context && p->origin)	/* one line: marks say nothing */
			return tp_fail(p, line, col, "%s (%s)", problem, yp->context);
		if (yp->context)
			return tp_fail(p, line, col, "%s (%s at %d:%d)", problem, yp->context,
				       (int)yp->context_mark.line + 1,
				       (int)yp->context_mark.column + 1);
		return tp_fail(p, line, col, "%s", problem);
	}
}

/* Attach a finished NODE to the collection on top of the stack, or make it the root. */
static int tp_add(struct tree_parser *p, struct plan_tree *tree, struct plan_node *node)
{
	struct plan_node *parent;
	const struct plan_node *first;
	int ret;

	if (!p->depth) {
		tree->root = node;
		return 0;
	}
	parent = p->stack[p->depth - 1];
	if (parent->kind == PLAN_NODE_MAP && parent->n % 2 == 0) {
		if (node->kind != PLAN_NODE_SCALAR)
			return tp_fail(p, node->line, node->col, "map keys must be scalars");
		ret = dup_insert(&p->dups, parent, node, &first);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			if (p->origin)
				return tp_fail(p, 0, 0, "duplicate key '%.100s'", node->text);
			return tp_fail(p, node->line, node->col,
				       "duplicate key '%.100s' (first at %d:%d)", node->text,
				       first->line, first->col);
		}
	}
	return plan_node_append(parent, node);
}

static int tp_event(struct tree_parser *p, struct plan_tree *tree, const yaml_event_t *ev)
{
	int line = p->origin ? 0 : (int)ev->start_mark.line + 1;
	int col = p->origin ? 0 : (int)ev->start_mark.column + 1;
	yaml_char_t *anchor = NULL, *tag = NULL;
	enum plan_node_kind kind = PLAN_NODE_SCALAR;
	struct plan_node *node;
	int ret;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (p->documents++)
			return tp_fail_at(p, ev->start_mark,
					  "multiple documents are not supported");
		return 0;
	case YAML_ALIAS_EVENT:
		return tp_fail_at(p, ev->start_mark, "YAML aliases are not supported");
	case YAML_SCALAR_EVENT:
		anchor = ev->data.scalar.anchor;
		tag = ev->data.scalar.tag;
		break;
	case YAML_SEQUENCE_START_EVENT:
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
		kind = PLAN_NODE_SEQ;
		break;
	case YAML_MAPPING_START_EVENT:
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
		kind = PLAN_NODE_MAP;
		break;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		node = p->stack[--p->depth];
		ret = tp_add(p, tree, node);
		if (ret)
			plan_node_free(node);
		return ret;
	default:
		return 0;
	}
	if (anchor)
		return tp_fail_at(p, ev->start_mark, "YAML anchors are not supported");
	if (tag)
		return tp_fail_at(p, ev->start_mark, "YAML tags are not supported");

	if (kind == PLAN_NODE_SCALAR) {
		if (memchr(ev->data.scalar.value, '\0', ev->data.scalar.length))
			return tp_fail_at(p, ev->start_mark, "NUL characters are not supported");
		node = plan_node_new(kind, (const char *)ev->data.scalar.value, line, col,
				     p->origin);
		if (!node)
			return -ENOMEM;
		node->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
		ret = tp_add(p, tree, node);
		if (ret)
			plan_node_free(node);
		return ret;
	}
	if (p->depth == PLAN_TREE_MAX_DEPTH)
		return tp_fail_at(p, ev->start_mark, "nesting deeper than 32 levels is not supported");
	node = plan_node_new(kind, NULL, line, col, p->origin);
	if (!node)
		return -ENOMEM;
	p->stack[p->depth++] = node;
	return 0;
}

int plan_tree_parse(const char *text, size_t len, const char *origin,
		    struct plan_tree **treep, struct err *err)
{
	struct tree_parser p = { .text = text, .len = len, .err = err };
	struct plan_tree *tree;
	yaml_parser_t yp;
	yaml_event_t ev;
	int ret = 0, done = 0;

	*treep = NULL;
	err_clear(err);
	tree = calloc(1, sizeof(*tree));
	if (!tree)
		return -ENOMEM;
	p.origin = origin;
	if (!yaml_parser_initialize(&yp)) {
		plan_tree_destroy(&tree);
		return -ENOMEM;
	}
	yaml_parser_set_input_string(&yp, (const unsigned char *)text, len);
	while (!done) {
		if (!yaml_parser_parse(&yp, &ev)) {
			ret = tp_yaml_error(&p, &yp);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		ret = tp_event(&p, tree, &ev);
		yaml_event_delete(&ev);
		if (ret)
			break;
	}
	yaml_parser_delete(&yp);
	while (p.depth)
		plan_node_free(p.stack[--p.depth]);
	free(p.dups.slots);
	if (ret) {
		plan_tree_destroy(&tree);
		return ret;
	}
	*treep = tree;
	return 0;
}

/* ---- setting values by path ---- */

static int node_reserve(struct plan_node *node, int more)
{
	if (node->n + more > node->cap) {
		int ncap = node->cap ? node->cap : 2;
		struct plan_node **nkids;

		while (ncap < node->n + more)
			ncap *= 2;
		nkids = realloc(node->kids, ncap * sizeof(*nkids));
		if (!nkids)
			return -ENOMEM;
		node->kids = nkids;
		node->cap = ncap;
	}
	return 0;
}

int plan_node_append(struct plan_node *node, struct plan_node *kid)
{
	if (node->n == node->cap && node_reserve(node, node->cap ? node->cap : 4))
		return -ENOMEM;
	node->kids[node->n++] = kid;
	return 0;
}

/* The next key of PATH at REST: the rest whole under a one-key map, else up to the next
 * dot. Returns its length. */
static size_t next_part(const char *path, const char *rest, const char *const *one_key_maps)
{
	size_t done = (size_t)(rest - path);
	const char *dot;

	if (done) {
		const char *const *m;

		for (m = one_key_maps; m && *m; m++) {
			if (strlen(*m) == done - 1 && !memcmp(*m, path, done - 1))
				return strlen(rest);
		}
	}
	dot = strchr(rest, '.');
	return dot ? (size_t)(dot - rest) : strlen(rest);
}

/* New maps for the parts of REST (non-empty) holding VALUE at the end; NULL on ENOMEM
 * with VALUE untouched. */
static struct plan_node *build_chain(const char *path, const char *rest,
				     struct plan_node *value, int line, int col,
				     const char *origin, const char *const *one_key_maps)
{
	struct plan_node *top, *map;

	top = map = plan_node_new(PLAN_NODE_MAP, NULL, line, col, origin);
	if (!top)
		return NULL;
	for (;;) {
		size_t part = next_part(path, rest, one_key_maps);
		struct plan_node *key, *next = NULL;

		key = plan_node_new(PLAN_NODE_SCALAR, NULL, line, col, origin);
		if (!key || node_reserve(map, 2))
			goto fail;
		free(key->text);
		key->text = strndup(rest, part);
		if (!key->text)
			goto fail;
		if (rest[part]) {
			next = plan_node_new(PLAN_NODE_MAP, NULL, line, col, origin);
			if (!next)
				goto fail;
		}
		map->kids[map->n++] = key;
		if (!next) {
			map->kids[map->n++] = value;	/* reserved: cannot fail */
			return top;
		}
		map->kids[map->n++] = next;
		map = next;
		rest += part + 1;
		continue;
fail:
		plan_node_free(key);
		plan_node_free(top);
		return NULL;
	}
}

int plan_tree_set(struct plan_tree *tree, const char *path, struct plan_node *value,
		  int line, int col, const char *origin, const char *const *one_key_maps,
		  struct plan_tree_undo *undo, struct err *err)
{
	struct plan_node *map = tree->root, *old, *chain;
	const char *rest = path;

	if (!map || map->kind != PLAN_NODE_MAP) {
		err_at(err, NULL, 0, 0, "the plan is not a map");
		return -ENOTDIR;
	}
	for (;;) {
		size_t part = next_part(path, rest, one_key_maps);
		struct plan_node *next = NULL;
		int i;

		for (i = 0; i + 1 < map->n; i += 2) {
			const char *k = map->kids[i]->text;

			if (strlen(k) == part && !memcmp(k, rest, part)) {
				next = map->kids[i + 1];
				break;
			}
		}
		if (!next) {
			/* Append KEY: (chain of) VALUE to this map. */
			if (node_reserve(map, 2))
				return -ENOMEM;
			chain = build_chain(path, rest, value, line, col, origin, one_key_maps);
			if (!chain)
				return -ENOMEM;
			/* build_chain made the key too: move its first pair up. */
			map->kids[map->n++] = chain->kids[0];
			map->kids[map->n++] = chain->kids[1];
			chain->n = 0;
			plan_node_free(chain);
			if (undo) {
				undo->map = map;
				undo->index = map->n - 2;
				undo->old = NULL;
			}
			return 0;
		}
		if (rest[part] && next->kind == PLAN_NODE_MAP) {
			map = next;
			rest += part + 1;
			continue;
		}
		if (rest[part] && !plan_node_is_null(next)) {
			err_at(err, NULL, 0, 0, "'%.*s' is not a map",
				 (int)(rest - path + part > 200 ? 200 : rest - path + part), path);
			return -ENOTDIR;
		}
		/* Replace the value (a null on the way becomes a chain of maps). */
		chain = value;
		if (rest[part]) {
			chain = build_chain(path, rest + part + 1, value, line, col, origin,
					    one_key_maps);
			if (!chain)
				return -ENOMEM;
		}
		old = map->kids[i + 1];
		map->kids[i + 1] = chain;
		if (undo) {
			undo->map = map;
			undo->index = i + 1;
			undo->old = old;
		} else {
			plan_node_free(old);
		}
		return 0;
	}
}

void plan_tree_undo(struct plan_tree_undo *undo)
{
	struct plan_node *map = undo->map;

	if (!map)
		return;
	if (undo->old) {
		plan_node_free(map->kids[undo->index]);
		map->kids[undo->index] = undo->old;
	} else {
		plan_node_free(map->kids[undo->index]);
		plan_node_free(map->kids[undo->index + 1]);
		map->n -= 2;
	}
	undo->map = NULL;
	undo->old = NULL;
}
