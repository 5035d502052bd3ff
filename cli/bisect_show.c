// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* bisect_show.c - `bpflab bisect status`, `bisect log` and `bisect list`: a session as
 * its engine sees it after replaying the stored steps, what each step could resolve,
 * and every session with its result.
 */
#include "cli.h"

#include <math.h>
#include <stdio.h>

#include "bisect_int.h"
#include "proto/proto.h"
#include "base/texttable.h"

/* Whether step S left its kernel unsettled (UNKNOWN: more values asked, skipped after
 * the last round, ends or a confirmation that cannot be told apart), so that what its
 * n could resolve is worth printing. */
static bool step_unsettled(const struct bisect_step *s)
{
	if (!s || !s->res.n_a)
		return false;
	if (s->mark == BISECT_MORE || s->mark == BISECT_SKIP)
		return true;
	return (s->mark == BISECT_END || s->mark == BISECT_CONFIRM) &&
	       s->v_good == COMPARE_UNKNOWN;
}

/* "  with 5 + 5 values at 12 % CV ..." for step S when it is unsettled. */
void bisect_print_resolution(const struct bisect_step *s)
{
	char text[160];

	if (step_unsettled(s) && *bisect_resolution_text(&s->res, text, sizeof(text)))
		fprintf(bisect_text_out(), "  %s\n", text);
}

void bisect_print_result(const struct bisect *b)
{
	FILE *out = bisect_text_out();
	struct bisect_result r;
	char p[32];

	if (bisect_result(b, &r))
		return;
	if (r.ambiguous)
		fprintf(out, "first bad kernel is one of '%s' .. '%s' (%d skipped between)\n",
			bisect_kernel(b, r.good + 1), bisect_kernel(b, r.bad),
			r.n_skipped_between);
	else
		fprintf(out, "first bad kernel: '%s' (good neighbour '%s')\n",
			bisect_kernel(b, r.bad), bisect_kernel(b, r.good));
	fprintf(out, "  %.6g (n %zu) -> %.6g (n %zu): %+.2f %%, %s\n", r.mean_good,
		r.n_good, r.mean_bad, r.n_bad, r.delta_pct,
		compare_p_text(r.test, r.p, p, sizeof(p)));
	if (r.confirm)
		fprintf(out, "  confirmation %s (%+.2f %%, %s)\n",
			bisect_confirm_name(r.confirm), r.confirm_delta_pct,
			compare_p_text(r.confirm_test, r.confirm_p, p, sizeof(p)));
}

int bisect_do_status(int argc, char **argv)
{
	struct bopts o = { 0 };
	struct session_be be = { 0 };
	struct bisect *b = NULL;
	struct bisect_action a;
	json_t *ses = NULL;
	int ret = bisect_parse(argc, argv, "bisect status", BISECT_OPTS_SHOW, &o);

	if (!ret)
		ret = bisect_load(&be, o.session, &ses, &b, true);
	if (ret)
		goto out;
	bisect_next(b, &a);
	if (cli.json) {
		ret = bisect_session_status(ses, b) ? cli_error("out of memory") :
			cli_print_json(ses);
		goto out;
	}
	printf("bisect session %lld (%s): %s of '%s'%s%s, %d kernels, %d measured\n",
	       jget_int(ses, "id", 0), jget_str(ses, "state", "?"),
	       jget_str(ses, "metric", "?"), jget_str(ses, "plan", "?"),
	       json_is_string(json_object_get(ses, "variant")) ? " variant " : "",
	       jget_str(ses, "variant", ""), bisect_n_kernels(b), bisect_n_measured(b));
	printf("engine: %s: %s\n", bisect_state_name(a.state), bisect_why(b));
	bisect_print_resolution(bisect_step(b, bisect_n_steps(b) - 1));
	if (a.kernel >= 0)
		printf("next: measure '%s' (%u repetitions%s%s)\n", bisect_kernel(b, a.kernel),
		       a.reps, a.kernel2 >= 0 ? ", interleaved with " : "",
		       a.kernel2 >= 0 ? bisect_kernel(b, a.kernel2) : "");
	bisect_print_result(b);
out:
	return bisect_release(&o, &be, ses, b, ret);
}

int bisect_do_log(int argc, char **argv)
{
	static const char *const head[] = { ">step", "kernel", ">round", ">n", ">mean",
					    ">delta%", ">p(good)", "verdict", "why" };
	struct bopts o = { 0 };
	struct tt_table t = { 0 };
	struct session_be be = { 0 };
	struct bisect *b = NULL;
	json_t *ses = NULL;
	int ret = bisect_parse(argc, argv, "bisect log", BISECT_OPTS_SHOW, &o), i;

	if (!ret)
		ret = bisect_load(&be, o.session, &ses, &b, true);
	if (ret)
		goto out;
	if (cli.json) {
		bisect_session_annotate_steps(ses, b);
		ret = cli_print_json(json_object_get(ses, "steps"));
		goto out;
	}
	if (tt_table_init(&t, 9, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	for (i = 0; i < bisect_n_steps(b); i++) {
		const struct bisect_step *s = bisect_step(b, i);
		char c[5][32];
		const char *cells[9] = { c[0], bisect_kernel(b, s->kernel), c[1], c[2], c[3],
					 c[4], NULL, bisect_mark_name(s->mark), s->why };
		char p[32], why[320], res[160];

		if (step_unsettled(s) && *bisect_resolution_text(&s->res, res, sizeof(res))) {
			snprintf(why, sizeof(why), "%s; %s", s->why, res);
			cells[8] = why;
		}
		snprintf(c[0], 32, "%d", i + 1);
		snprintf(c[1], 32, "%u", s->round);
		snprintf(c[2], 32, "%u", s->n_total);
		snprintf(c[3], 32, "%.6g", s->mean);
		snprintf(c[4], 32, isnan(s->delta_good_pct) ? "-" : "%+.2f", s->delta_good_pct);
		if (s->test_good == COMPARE_TEST_CONSTANT) {
			cells[6] = "exact";
		} else if (!isnan(s->p_good)) {
			snprintf(p, sizeof(p), "%.3g", s->p_good);
			cells[6] = p;
		}
		tt_table_add(&t, cells);
	}
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	return bisect_release(&o, &be, ses, b, ret);
}

/* The result cell of session row R of store_bisect_list into OUT. */
static const char *list_result(const json_t *r, char *out, size_t len)
{
	const json_t *res = json_object_get(r, "result");

	if (json_string_value(json_object_get(res, "first_bad")))
		snprintf(out, len, "%s%s (%+.2f %%)", json_is_true(json_object_get(res,
			 "ambiguous")) ? "one of .. " : "",
			 json_string_value(json_object_get(res, "first_bad")),
			 json_number_value(json_object_get(res, "delta_pct")));
	else
		snprintf(out, len, "%s", jget_str(res, "why", "-"));
	return out;
}

int bisect_do_list(int argc, char **argv)
{
	static const char *const head[] = { ">id", "state", "plan", "metric", "good", "bad",
					    ">kernels", ">steps", "result" };
	struct bopts o = { 0 };
	struct tt_table t = { 0 };
	struct session_be be = { 0 };
	json_t *list = NULL, *r;
	size_t i;
	int ret = bisect_parse(argc, argv, "bisect list", 0, &o);

	if (!ret)
		ret = bisect_be_open(&be, true);
	if (ret)
		goto out;
	list = be.ops->list(&be);
	if (!list) {
		ret = CLI_EXIT_FAIL;
		goto out;
	}
	if (cli.json) {
		ret = cli_print_json(list);
		goto out;
	}
	if (tt_table_init(&t, 9, head)) {
		ret = cli_error("out of memory");
		goto out;
	}
	json_array_foreach(list, i, r) {
		char c[3][32], res[320];
		const char *cells[9] = { c[0], jget_str(r, "state", "?"),
					 jget_str(r, "plan", "?"), jget_str(r, "metric", "?"),
					 jget_str(r, "good", "?"), jget_str(r, "bad", "?"),
					 c[1], c[2], list_result(r, res, sizeof(res)) };

		snprintf(c[0], 32, "%lld", jget_int(r, "id", 0));
		snprintf(c[1], 32, "%lld", jget_int(r, "n_kernels", 0));
		snprintf(c[2], 32, "%lld", jget_int(r, "n_steps", 0));
		tt_table_add(&t, cells);
	}
	tt_table_print(&t, stdout);
out:
	tt_table_release(&t);
	json_decref(list);
	return bisect_release(&o, &be, NULL, NULL, ret);
}
