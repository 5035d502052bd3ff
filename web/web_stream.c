/* web_stream.c - the run page (/runs/ID) answered in two steps (issue 25 item 8: the
 * first byte of a 10,000-job run's page in under 0.2 s): web_stream_run checks the
 * parameters and that the run exists (the status is decided before anything is sent),
 * then holds the page's head, which web.c sends at once; web_stream_read, called by
 * MHD's content reader on the connection's thread, builds the whole page with web_page
 * on its first call after the head and hands out the rest. A failure while building
 * (the database locked, out of memory) cannot change the status any more: the page
 * ends with the message. Owned by the response (web.c frees it when it completes).
 */
#include "web.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

struct web_stream {
	char *db;
	int64_t id;
	char *seconds;			/* ?seconds=JOB as given, or NULL */
	struct web_buf out;		/* what is to be sent */
	size_t sent;
	size_t head;			/* bytes of the head in OUT */
	bool built;
};

struct web_stream *web_stream_run(const char *db, int64_t id, const struct web_param *params,
				  size_t n, struct web_reply *reply)
{
	struct web_stream *s = NULL;
	struct store *store;
	json_t *runs, *r;
	long long job;
	bool found = false;
	char title[64];
	size_t i;

	if (web_page_run_params(params, n, &job, reply))
		return NULL;
	store = web_store_open(db, reply);
	if (!store)
		return NULL;
	runs = web_runs(store, reply);
	store_close(&store);
	if (!runs)
		return NULL;
	json_array_foreach(runs, i, r)
		found = found || json_integer_value(json_object_get(r, "id")) == id;
	json_decref(runs);
	if (!found) {
		web_reply_error(reply, 404, "no run %lld", (long long)id);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || !(s->db = strdup(db)))
		goto nomem;
	s->id = id;
	for (i = 0; i < n; i++)
		if (!strcmp(params[i].key, "seconds") && params[i].value &&
		    !(s->seconds = strdup(params[i].value)))
			goto nomem;
	snprintf(title, sizeof(title), "run %lld", (long long)id);
	web_page_head(&s->out, title);
	if (s->out.failed)
		goto nomem;
	s->head = s->out.len;
	return s;
nomem:
	web_stream_destroy(&s);
	web_reply_error(reply, 500, "out of memory");
	return NULL;
}

/* Build the page into S->OUT after its head: the rest of web_page's page, or the
 * error's message and the end of the page. */
static void stream_build(struct web_stream *s)
{
	struct web_param p = { "seconds", s->seconds };
	struct web_reply r = { .status = 0 };
	json_t *e;

	web_page(s->db, WEB_PAGE_RUN, s->id, &p, s->seconds ? 1 : 0, &r);
	if (r.status == 200 && r.len >= s->head && !memcmp(r.body, s->out.data, s->head)) {
		web_buf_add(&s->out, r.body + s->head, r.len - s->head);
	} else {
		e = json_loadb(r.body ? r.body : "", r.len, 0, NULL);
		web_buf_str(&s->out, "<p class=\"note\" id=\"stream-error\">");
		web_buf_html(&s->out, json_string_value(json_object_get(e, "error")) ?:
			     "the page could not be built");
		web_buf_str(&s->out, "</p>\n</body></html>\n");
		json_decref(e);
	}
	web_reply_release(&r);
	s->built = true;
}

long web_stream_read(struct web_stream *s, char *buf, size_t max)
{
	size_t n;

	if (s->sent == s->out.len && !s->built)
		stream_build(s);
	if (s->out.failed)
		return -2;
	if (s->sent == s->out.len)
		return -1;
	n = s->out.len - s->sent < max ? s->out.len - s->sent : max;
	memcpy(buf, s->out.data + s->sent, n);
	s->sent += n;
	return (long)n;
}

void web_stream_destroy(struct web_stream **sp)
{
	struct web_stream *s = *sp;

	if (!s)
		return;
	*sp = NULL;
	free(s->db);
	free(s->seconds);
	web_buf_release(&s->out);
	free(s);
}
