/* web_html.c - the frame of every dashboard page (docs/dashboard.md, "Pages"): the head
 * with the one inline style sheet and the navigation, the page handed to the reply (a
 * 500 when out of memory), the error page, a text cell, a time. Pure; called by
 * web_page.c, web_runs.c, web_table.c and web_bisect.c on the request's thread. Calls go
 * one way: the pages call these, these call only web_util.c and lib/base.
 */
#include "web.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

static const char style[] =
	"body{font-family:sans-serif;margin:1.5em;color:#222}"
	"table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;"
	"text-align:left;vertical-align:top}th{background:#f3f3f3}"
	"pre{background:#f8f8f8;padding:.5em;overflow-x:auto}"
	".state-running{color:#06c}.state-failed,.state-cancelled{color:#b00}"
	"nav a{margin-right:1em}td.n{text-align:right;font-variant-numeric:tabular-nums}"
	"caption{text-align:left;font-weight:bold;padding:.6em 0 .2em}"
	"table.sort th{cursor:pointer}th[aria-sort=ascending]::after{content:' \\25B4'}"
	"th[aria-sort=descending]::after{content:' \\25BE'}td.marked{background:#fff3cd}"
	".verdict-FASTER,.verdict-SLOWER,.verdict-DIFFERENT{font-weight:bold}"
	".note{background:#fff3cd;padding:.4em}.stale{color:#888}"
	"form label{margin-right:.6em}#run-links a{margin-right:.3em}";

/* The page's head and title; LIVE: a reload every 5 s for a browser without script. */
void web_page_head_live(struct web_buf *b, const char *title, bool live)
{
	web_buf_str(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
		    "<title>");
	web_buf_html(b, title);
	web_buf_str(b, " - bpflab</title>");
	if (live)
		web_buf_str(b, "<noscript><meta http-equiv=\"refresh\" content=\"5\"></noscript>");
	web_buf_printf(b, "<style>%s</style></head><body>\n"
		       "<nav><a href=\"/runs\">runs</a><a href=\"/history\">history</a>"
		       "<a href=\"/compare\">compare</a><a href=\"/hosts\">hosts</a>"
		       "<a href=\"/bisect\">bisect</a>"
		       "<a href=\"/api/runs\">/api/runs</a>"
		       "<a href=\"/api/hosts\">/api/hosts</a></nav>\n<h1>", style);
	web_buf_html(b, title);
	web_buf_str(b, "</h1>\n");
}

void web_page_head(struct web_buf *b, const char *title)
{
	web_page_head_live(b, title, false);
}

void web_page_done(struct web_reply *reply, struct web_buf *b)
{
	web_buf_str(b, "</body></html>\n");
	if (b->failed) {
		web_buf_release(b);
		web_page_error(reply, 500, "out of memory");
		return;
	}
	web_reply_release(reply);
	reply->status = 200;
	reply->type = "text/html; charset=utf-8";
	reply->body = b->data;
	reply->len = b->len;
	*b = (struct web_buf){ 0 };
}

void web_page_error(struct web_reply *reply, unsigned status, const char *message)
{
	struct web_buf b = { 0 };
	char title[32];

	snprintf(title, sizeof(title), "error %u", status);
	web_page_head(&b, title);
	web_buf_str(&b, "<p>");
	web_buf_html(&b, message);
	web_buf_str(&b, "</p>\n</body></html>\n");
	web_reply_release(reply);
	reply->status = status;
	reply->type = "text/html; charset=utf-8";
	if (b.failed) {
		web_buf_release(&b);
		reply->type = "text/plain; charset=utf-8";
		reply->body = strdup(message);
		reply->len = reply->body ? strlen(message) : 0;
		return;
	}
	reply->body = b.data;
	reply->len = b.len;
}

const char *web_when(long long ms, char *out, size_t len)
{
	if (ms <= 0)
		snprintf(out, len, "-");
	else
		util_format_time(ms, out, len);
	return out;
}

void web_td(struct web_buf *b, const json_t *o, const char *key)
{
	web_buf_str(b, "<td>");
	web_buf_html(b, json_string_value(json_object_get(o, key)));
	web_buf_str(b, "</td>");
}
