// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* web_bisect.c - the dashboard's bisect pages (docs/dashboard.md): /bisect (the session
 * of `bisect status`: the active one, else the latest; then every session as `bisect
 * list`, each a link) and /bisect/ID (session ID: its parameters, engine state, result
 * and steps as `bisect status --session ID` and `bisect log --session ID`). The objects
 * come from web_api.c (the /api/bisect answers); the page frame from web_page.c.
 */
#include "web.h"

#include <stdio.h>
#include <string.h>

#include "analysis/bisect.h"
#include "analysis/compare.h"
#include "store/store.h"

/* The sessions of LIST (store_bisect_list) as a table: id (a link to /bisect/ID), state,
 * plan, metric, good, bad, kernels, steps, result. */
static void sessions(struct web_buf *b, const json_t *list)
{
	const json_t *s, *res;
	size_t i;

	web_buf_str(b, "<h2>sessions</h2>\n<table id=\"sessions\">\n<tr><th>id</th><th>state"
		    "</th><th>plan</th><th>metric</th><th>good</th><th>bad</th><th>kernels</th>"
		    "<th>steps</th><th>result</th></tr>\n");
	json_array_foreach(list, i, s) {
		long long id = json_integer_value(json_object_get(s, "id"));

		web_buf_printf(b, "<tr id=\"session-%lld\"><td><a href=\"/bisect/%lld\">%lld"
			       "</a></td>", id, id, id);
		web_td(b, s, "state");
		web_td(b, s, "plan");
		web_td(b, s, "metric");
		web_td(b, s, "good");
		web_td(b, s, "bad");
		web_buf_printf(b, "<td>%lld</td><td>%lld</td><td>",
			       (long long)json_integer_value(json_object_get(s, "n_kernels")),
			       (long long)json_integer_value(json_object_get(s, "n_steps")));
		res = json_object_get(s, "result");
		if (json_string_value(json_object_get(res, "first_bad"))) {
			web_buf_str(b, json_is_true(json_object_get(res, "ambiguous")) ?
				    "first bad one of .. " : "first bad ");
			web_buf_html(b, json_string_value(json_object_get(res, "first_bad")));
			web_buf_printf(b, " (%+.2f %%)",
				       json_number_value(json_object_get(res, "delta_pct")));
		} else {
			web_buf_html(b, json_string_value(json_object_get(res, "why")));
		}
		web_buf_str(b, "</td></tr>\n");
	}
	web_buf_str(b, "</table>\n");
}

/* Bisect session ID (0: the active one, else the latest) as `bisect status`: what it
 * bisects, the engine's state and next kernel, the result once found, every step as
 * `bisect log`; the latest page also lists every session (`bisect list`). */
static void page_bisect(struct store *store, int64_t id, struct web_reply *reply)
{
	struct bisect *engine = NULL;
	json_t *ses = web_bisect(store, id, &engine, reply), *st, *v, *list = NULL;
	struct web_buf b = { 0 };
	struct bisect_result r;
	char title[64], p[32];
	size_t i, k;

	if (!ses) {
		if (reply->status != 404 || id)
			return;
		/* no session yet: a page that says so */
		web_page_head(&b, "bisect");
		web_buf_str(&b, "<p>no bisect session (bpflab bisect start)</p>\n");
		web_page_done(reply, &b);
		return;
	}
	if (!id) {
		list = web_bisect_list(store, reply);
		if (!list)
			goto out;
	}
	id = json_integer_value(json_object_get(ses, "id"));
	snprintf(title, sizeof(title), "bisect session %lld", (long long)id);
	web_page_head(&b, title);
	web_buf_printf(&b, "<p>Download: <a href=\"/api/bisect/%lld\">JSON</a> <a href=\""
		       "/api/bisect/%lld/log\">steps</a></p>\n<table id=\"session\">\n<tr><th>"
		       "state</th>", (long long)id, (long long)id);
	web_td(&b, ses, "state");
	web_buf_str(&b, "</tr>\n<tr><th>plan</th>");
	web_td(&b, ses, "plan");
	web_buf_str(&b, "</tr>\n<tr><th>metric</th>");
	web_td(&b, ses, "metric");
	web_buf_str(&b, "</tr>\n<tr><th>variant</th>");
	web_td(&b, ses, "variant");
	web_buf_str(&b, "</tr>\n<tr><th>subject</th>");
	web_td(&b, ses, "subject");
	web_buf_printf(&b, "</tr>\n<tr><th>kernels</th><td>%zu, good ",
		       json_array_size(json_object_get(ses, "kernels")));
	web_buf_html(&b, json_string_value(json_object_get(ses, "good")));
	web_buf_str(&b, ", bad ");
	web_buf_html(&b, json_string_value(json_object_get(ses, "bad")));
	web_buf_str(&b, "</td></tr>\n<tr><th>engine</th>");
	web_td(&b, ses, "engine_state");
	web_buf_str(&b, "</tr>\n<tr><th>why</th><td>");
	web_buf_html(&b, bisect_why(engine));
	web_buf_str(&b, "</td></tr>\n<tr><th>next</th>");
	web_td(&b, ses, "next");
	web_buf_str(&b, "</tr>\n<tr><th>result</th><td id=\"result\">");
	if (!bisect_result(engine, &r)) {
		if (r.ambiguous) {
			web_buf_str(&b, "first bad kernel is one of ");
			web_buf_html(&b, bisect_kernel(engine, r.good + 1));
			web_buf_str(&b, " .. ");
			web_buf_html(&b, bisect_kernel(engine, r.bad));
			web_buf_printf(&b, " (%d skipped between)", r.n_skipped_between);
		} else {
			web_buf_str(&b, "first bad kernel <b>");
			web_buf_html(&b, bisect_kernel(engine, r.bad));
			web_buf_str(&b, "</b> (good neighbour ");
			web_buf_html(&b, bisect_kernel(engine, r.good));
			web_buf_str(&b, ")");
		}
		web_buf_printf(&b, ": %.6g (n %zu) -&gt; %.6g (n %zu), %+.2f %%, ", r.mean_good,
			       r.n_good, r.mean_bad, r.n_bad, r.delta_pct);
		web_buf_html(&b, compare_p_text(r.test, r.p, p, sizeof(p)));
		if (r.confirm)
			web_buf_printf(&b, "; confirmation %s", bisect_confirm_name(r.confirm));
	} else {
		web_buf_str(&b, "not yet");
	}
	web_buf_str(&b, "</td></tr>\n</table>\n<h2>steps</h2>\n<table id=\"steps\">\n<tr><th>step"
		    "</th><th>kernel</th><th>runs</th><th>n</th><th>verdict</th><th>p</th>"
		    "<th>smallest change it can see</th><th>note</th></tr>\n");
	json_array_foreach(json_object_get(ses, "steps"), i, st) {
		web_buf_printf(&b, "<tr><td>%lld</td>",
			       (long long)json_integer_value(json_object_get(st, "seq")));
		web_td(&b, st, "kernel");
		web_buf_str(&b, "<td>");
		json_array_foreach(json_object_get(st, "runs"), k, v)
			web_buf_printf(&b, "%s<a href=\"/runs/%lld\">%lld</a>", k ? ", " : "",
				       (long long)json_integer_value(v),
				       (long long)json_integer_value(v));
		web_buf_printf(&b, "</td><td>%zu</td>",
			       json_array_size(json_object_get(st, "values")));
		web_td(&b, st, "verdict");
		v = json_object_get(st, "p");
		web_buf_printf(&b, json_is_number(v) ? "<td>%.3g</td>" : "<td>-</td>",
			       json_number_value(v));
		v = json_object_get(st, "min_detectable_pct");
		web_buf_printf(&b, json_is_number(v) ? "<td>%.1f %%</td>" : "<td>-</td>",
			       json_number_value(v));
		web_td(&b, st, "note");
		web_buf_str(&b, "</tr>\n");
	}
	web_buf_str(&b, "</table>\n");
	if (list)
		sessions(&b, list);
	web_page_done(reply, &b);
out:
	web_buf_release(&b);
	bisect_destroy(&engine);
	json_decref(list);
	json_decref(ses);
}

void web_page_bisect(const char *db, enum web_route route, int64_t id,
		     const struct web_param *params, size_t n, struct web_reply *reply)
{
	static const char *const none[] = { NULL };
	const char *values[1];
	struct store *store;
	struct err err;

	if (web_params_check(params, n, none, values, &err)) {
		web_reply_error(reply, 400, "%s", err.msg);
		return;
	}
	store = web_store_open(db, reply);
	if (!store)
		return;
	page_bisect(store, route == WEB_PAGE_BISECT_ID ? id : 0, reply);
	store_close(&store);
}
