// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* config.c - see config.h. The file is loaded with libyaml's document loader (no
 * recursion of ours: the two sections are flat mappings and a sequence) after a first
 * pass over its events bounds the nesting, and every error names the node it is about. Moved out of main.c so that unit tests and
 * tests/fuzz/fuzz_agent_config.c reach it.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "base/util.h"

/* Where a parse is and where its error goes. */
struct ctx {
	const char *file;
	yaml_document_t *doc;
	struct err *why;
};

/* Append pair KEY=VALUE to *LIST (*N entries). Returns 0 or -ENOMEM. */
static int pair_add(struct inventory_pair **list, int *n, const char *key, const char *value)
{
	struct inventory_pair *nl = realloc(*list, (*n + 1) * sizeof(**list));

	if (!nl)
		return -ENOMEM;
	*list = nl;
	nl[*n].key = strdup(key);
	nl[*n].value = strdup(value);
	if (!nl[*n].key || !nl[*n].value) {
		free(nl[*n].key);
		free(nl[*n].value);
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

/* A YAML error at node N: "FILE:LINE:COLUMN: MESSAGE" into C's WHY (input). Returns
 * -EINVAL. */
static int config_error(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int config_error(struct ctx *c, const yaml_node_t *n, const char *fmt, ...)
{
	char text[sizeof(c->why->msg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return err_at(c->why, c->file, (int)n->start_mark.line + 1, (int)n->start_mark.column + 1,
		      "%s", text);
}

static int out_of_memory(struct ctx *c)
{
	return err_ret(c->why, -ENOMEM, "%s: out of memory", c->file);
}

/* The text of scalar node N; NULL for another node or one holding a NUL byte. */
static const char *scalar(const yaml_node_t *n)
{
	if (!n || n->type != YAML_SCALAR_NODE ||
	    strlen((const char *)n->data.scalar.value) != n->data.scalar.length)
		return NULL;
	return (const char *)n->data.scalar.value;
}

/* `labels: {NAME: VALUE, ...}`, appended to *LABELS. Returns 0 or -errno after the error. */
static int config_labels(struct ctx *c, yaml_node_t *v, struct inventory_pair **labels,
			 int *n_labels)
{
	yaml_node_t *lk, *lv;
	yaml_node_pair_t *q;

	if (v->type != YAML_MAPPING_NODE)
		return config_error(c, v, "'labels' must map names to values");
	for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
		lk = yaml_document_get_node(c->doc, q->key);
		lv = yaml_document_get_node(c->doc, q->value);
		if (!scalar(lk) || !scalar(lv) || !*scalar(lk) || !*scalar(lv))
			return config_error(c, lk ? lk : v, "a label is NAME: VALUE, both "
					    "non-empty scalars");
		if (pair_add(labels, n_labels, scalar(lk), scalar(lv)))
			return out_of_memory(c);
	}
	return 0;
}

/* One argv word of the provider's command into PC. Returns 0 or -errno after the error. */
static int provider_word(struct ctx *c, const yaml_node_t *n, struct provider_config *pc)
{
	const char *w = scalar(n);

	if (!w || !*w)
		return config_error(c, n, "'kernel_provider.command' words must be non-empty "
				    "scalars");
	if (pc->argc >= PROVIDER_MAX_ARGS)
		return config_error(c, n, "'kernel_provider.command' has more than %d words",
				    PROVIDER_MAX_ARGS);
	if (!pc->argc && w[0] != '/')
		return config_error(c, n, "'kernel_provider.command' must start with an "
				    "absolute path, not '%.64s' (no PATH search, no shell)", w);
	pc->argv[pc->argc] = strdup(w);
	if (!pc->argv[pc->argc])
		return out_of_memory(c);
	pc->argc++;
	return 0;
}

/* A timeout in whole seconds (1..3600) into *MS. Returns 0 or -EINVAL after the error. */
static int provider_timeout(struct ctx *c, const yaml_node_t *n, const char *what, int *ms)
{
	long long s;

	if (!scalar(n) || util_parse_int(scalar(n), &s) || s < 1 || s > 3600)
		return config_error(c, n, "'kernel_provider.%s' must be seconds, 1 to 3600",
				    what);
	*ms = (int)s * 1000;
	return 0;
}

/* `kernel_provider: {command: PATH | [PATH, ARG...], list_timeout: S, boot_timeout: S}`
 * into PC (docs/agent.md). Returns 0 or -errno after the error. */
static int config_provider(struct ctx *c, yaml_node_t *v, struct provider_config *pc)
{
	yaml_node_item_t *it;
	yaml_node_pair_t *q;
	yaml_node_t *k, *x;
	int rc;

	if (v->type != YAML_MAPPING_NODE)
		return config_error(c, v, "'kernel_provider' must be a mapping, e.g. "
				    "'kernel_provider: {command: [/usr/local/sbin/provider]}'");
	provider_config_release(pc);
	for (q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
		k = yaml_document_get_node(c->doc, q->key);
		x = yaml_document_get_node(c->doc, q->value);
		if (scalar(k) && !strcmp(scalar(k), "command")) {
			if (x->type == YAML_SCALAR_NODE) {
				rc = provider_word(c, x, pc);
			} else if (x->type == YAML_SEQUENCE_NODE) {
				rc = 0;
				for (it = x->data.sequence.items.start;
				     !rc && it < x->data.sequence.items.top; it++)
					rc = provider_word(c, yaml_document_get_node(c->doc, *it),
							   pc);
			} else {
				rc = config_error(c, x, "'kernel_provider.command' is a path or "
						  "a list of argv words");
			}
		} else if (scalar(k) && !strcmp(scalar(k), "list_timeout")) {
			rc = provider_timeout(c, x, "list_timeout", &pc->list_timeout_ms);
		} else if (scalar(k) && !strcmp(scalar(k), "boot_timeout")) {
			rc = provider_timeout(c, x, "boot_timeout", &pc->boot_timeout_ms);
		} else {
			rc = config_error(c, k, "unknown key 'kernel_provider.%.64s' (known: "
					  "command, list_timeout, boot_timeout)",
					  scalar(k) ? scalar(k) : "?");
		}
		if (rc)
			return rc;
	}
	if (!pc->argc)
		return config_error(c, v, "'kernel_provider' needs a 'command'");
	if (access(pc->argv[0], X_OK))
		return config_error(c, v, "kernel provider '%s' is not executable: %s",
				    pc->argv[0], strerror(errno));
	return 0;
}

/* Walk TEXT's events once and refuse nesting deeper than AGENT_CONFIG_MAX_DEPTH before
 * the document is loaded: libyaml's scanner takes time quadratic in the depth of flow
 * collections ("[[[[...": 80000 levels took a minute), and the loader would build it
 * all. Returns 0 (also for a YAML error: the load reports it) or -EINVAL with WHY. */
static int check_depth(const char *file, const char *text, size_t len, struct err *why)
{
	yaml_parser_t parser;
	yaml_event_t ev;
	int depth = 0, rc = 0;
	bool done = false;

	if (!yaml_parser_initialize(&parser))
		return err_ret(why, -ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	while (!done && !rc && yaml_parser_parse(&parser, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT) {
			if (++depth > AGENT_CONFIG_MAX_DEPTH)
				rc = err_at(why, file, (int)ev.start_mark.line + 1,
					    (int)ev.start_mark.column + 1,
					    "nested deeper than %d levels", AGENT_CONFIG_MAX_DEPTH);
		} else if (ev.type == YAML_SEQUENCE_END_EVENT ||
			   ev.type == YAML_MAPPING_END_EVENT) {
			depth--;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	return rc;
}

int agent_config_parse(const char *file, const char *text, size_t len,
		       struct inventory_pair **labels, int *n_labels,
		       struct provider_config *pc, struct err *why)
{
	struct ctx c = { .file = file, .why = why };
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root, *k, *v;
	yaml_node_pair_t *p;
	int rc = check_depth(file, text, len, why);

	if (rc)
		return rc;
	rc = -EINVAL;
	if (!yaml_parser_initialize(&parser))
		return err_ret(why, -ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		err_at(why, file, (int)parser.problem_mark.line + 1,
		       (int)parser.problem_mark.column + 1, "%s",
		       parser.problem ? parser.problem : "bad YAML");
		goto out_parser;
	}
	c.doc = &doc;
	root = yaml_document_get_root_node(&doc);
	if (!root) {
		rc = 0;		/* an empty file */
		goto out;
	}
	if (root->type != YAML_MAPPING_NODE) {
		config_error(&c, root, "the config must be a mapping, e.g. 'labels: {rack: r3}'");
		goto out;
	}
	for (p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
		k = yaml_document_get_node(&doc, p->key);
		v = yaml_document_get_node(&doc, p->value);
		if (scalar(k) && !strcmp(scalar(k), "labels"))
			rc = config_labels(&c, v, labels, n_labels);
		else if (scalar(k) && !strcmp(scalar(k), "kernel_provider"))
			rc = config_provider(&c, v, pc);
		else
			rc = config_error(&c, k, "unknown key '%.64s' (known: labels, "
					  "kernel_provider)", scalar(k) ? scalar(k) : "?");
		if (rc)
			goto out;
	}
	rc = 0;
out:
	yaml_document_delete(&doc);
out_parser:
	yaml_parser_delete(&parser);
	return rc;
}

int agent_config_load(const char *file, struct inventory_pair **labels, int *n_labels,
		      struct provider_config *pc, struct err *why)
{
	char *text = NULL;
	size_t len = 0;
	int err = util_read_file(file, AGENT_CONFIG_MAX_BYTES, &text, &len);

	if (err)
		return err_ret(why, err, "cannot read config '%s': %s", file, util_strerror(err));
	err = agent_config_parse(file, text, len, labels, n_labels, pc, why);
	free(text);
	return err;
}
