/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/* analysis_int.h - what the parts of the analysis share; private to lib/analysis/ files
 * (analysis.h is the public contract). analysis_series.c reads value rows into series
 * and sides, analysis.c builds the compare report from them, analysis_history.c the
 * history. Nothing here keeps state; one call owns its set.
 */
#ifndef BPFLAB_ANALYSIS_INT_H
#define BPFLAB_ANALYSIS_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis/analysis.h"

/* One (key, group) series of values. */
struct series {
	char *metric, *point, *variant, *subject, *unit, *group;
	double *v;
	long long *job;			/* the job of each value */
	size_t n, cap;
	size_t order;			/* first appearance */
	/* plan order, the least over its values: the variant's index in its run's
	 * variants, the seq of the point's first job (0 when the rows lack them) */
	long long variant_idx, point_seq;
};

/* The series of one call; zeroed to start, analysis_set_release to end. */
struct series_set {
	struct series *s;
	size_t n, cap;
};

/* Counts of left-out results: distinct jobs, and per excluding verdict; left-out
 * outlier values; and what the jobs record of where their receive softirq ran. */
struct excluded {
	json_t *jobs;			/* job id text -> true */
	size_t by_flag[ANALYSIS_N_EXCLUDING];
	size_t outliers;		/* values outside a side's far-out fences */
	bool all;			/* --all: outliers kept */
	json_t *rx_cpu;			/* job id text -> the CPU of its rx.cpu record */
};

/* What one compare or history call reads from its rows: the series, the sides (group
 * -> side object, in order: what a group's footer line names) and what was left out. */
struct analysis_input {
	struct series_set set;
	json_t *sides;
	struct excluded x;
};

/* Read ROWS into IN (zeroed by the caller), the series keyed without the field KEY_BY
 * ("" keeps every field), for a report WHAT ("to compare", "for this history"); with
 * RX_CPU the jobs' rx.cpu records too. OPTS may be NULL. Returns 0, or -errno with the
 * reason in ERR: -EINVAL for bad OPTS, -ENOMEM, -ENOENT when no value is left (all
 * flagged, or none). The caller calls analysis_input_finish either way. */
int analysis_input_read(struct analysis_input *in, const json_t *rows, const char *key_by,
			const struct analysis_opts *opts, bool rx_cpu, const char *what,
			struct err *err);

/* The end of a report call: free what IN holds; return REPORT (built last, NULL when
 * that failed: -ENOMEM, "out of memory" in ERR), or, after the error E (-errno, ERR
 * already set), NULL with errno set. */
json_t *analysis_input_finish(struct analysis_input *in, json_t *report, int e, struct err *err);

/* Whether ROWS hold a measurement of group NAME (all of which analysis_collect() left
 * out as flagged when NAME has no side). */
bool analysis_group_flagged(const json_t *rows, const char *name);

/* Whether A and B have the same metric, point, variant and, when SUBJECT, subject. */
bool analysis_same_key(const struct series *a, const struct series *b, bool subject);

/* The series of SET in group G with the key of K (subject too when SUBJECT), or NULL. */
struct series *analysis_find_in(struct series_set *set, const struct series *k,
				const char *g, bool subject);

/* How many series of group G share K's key apart from the subject. */
size_t analysis_count_subjects(struct series_set *set, const struct series *k,
			       const char *g);

/* The "excluded" object of a report from X. */
json_t *analysis_excluded_json(const struct excluded *x, bool include_flagged);

/* The point of value row ROW (members "point", "timing") as a series key: "k=v k=v"
 * (keys sorted), and " timing=icount" after it for an icount value. Heap string or
 * NULL. */
char *analysis_series_point(const json_t *row);

/* store_query_run_spread's rows with their point keys (analysis_spread.c). */
struct spread_entry {
	const json_t *row;
	long long run;
	char *point;			/* analysis_series_point */
};

struct spread_index {
	struct spread_entry *e;
	size_t n;
	double assumed;			/* analysis_opts.run_spread_assumed, resolved:
					 * > 0, or 0 for none */
};

struct runspread;

/* Index ROWS (not stolen; they must outlive IX) into IX; 0 or -ENOMEM (release IX
 * either way). */
int analysis_spread_index(const json_t *rows, struct spread_index *ix);
void analysis_spread_release(struct spread_index *ix);

/* The run-to-run component of the row pairing series A and B, whose groups are run
 * ids, into OUT (lib/analysis/runspread.h); when it is not known, why in NOTE ("run-to-run
 * spread unknown (1 run per side; 3 needed)"), else NOTE is "". */
void analysis_spread_component(const struct spread_index *ix, const struct series *a,
			       const struct series *b, struct runspread *out, char *note,
			       size_t note_len);

/* V as a JSON real, null when not finite. */
json_t *analysis_num(double v);

/* qsort comparison of two const char * elements. */
int analysis_cmp_str(const void *a, const void *b);

#endif
