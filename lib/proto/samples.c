// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* samples.c - see samples.h. The scanner reads only the fixed shape of a samples array;
 * it is no JSON parser: whatever it does not know sends the array back to proto_parse. */
#include "proto/samples.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A block of texts copied by samples_add; blocks are never moved, so the samples can
 * point into them. */
struct samples_chunk {
	struct samples_chunk *next;
	size_t used, size;
	char text[];
};

#define SAMPLES_CHUNK_SIZE 4096

void samples_release(struct samples *s)
{
	if (!s)
		return;
	if (s->taken)
		free(s->text);
	while (s->chunks) {
		struct samples_chunk *next = s->chunks->next;

		free(s->chunks);
		s->chunks = next;
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* TEXT copied into S's chunks; the copy of the previous sample's text when it is equal
 * (PREV). NULL when out of memory. */
static const char *keep_text(struct samples *s, const char *text, const char *prev)
{
	size_t len = strlen(text) + 1;
	struct samples_chunk *c = s->chunks;

	if (prev && !strcmp(prev, text))
		return prev;
	if (!c || c->size - c->used < len) {
		size_t size = len > SAMPLES_CHUNK_SIZE ? len : SAMPLES_CHUNK_SIZE;

		c = malloc(sizeof(*c) + size);
		if (!c)
			return NULL;
		c->next = s->chunks;
		c->used = 0;
		c->size = size;
		s->chunks = c;
	}
	memcpy(c->text + c->used, text, len);
	c->used += len;
	return c->text + c->used - len;
}

int samples_add(struct samples *s, const char *metric, const char *subject, double value,
		const char *unit, const char *window, int64_t seq)
{
	const struct sample *prev = s->n ? &s->v[s->n - 1] : NULL;
	struct sample smp = { .value = value, .seq = seq < 0 ? -1 : seq, .subject = "" };

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct sample *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
		prev = s->n ? &s->v[s->n - 1] : NULL;
	}
	smp.metric = keep_text(s, metric, prev ? prev->metric : NULL);
	smp.window = keep_text(s, window, prev ? prev->window : NULL);
	if (subject && *subject)
		smp.subject = keep_text(s, subject, prev ? prev->subject : NULL);
	if (unit)
		smp.unit = keep_text(s, unit, prev ? prev->unit : NULL);
	if (!smp.metric || !smp.window || !smp.subject || (unit && !smp.unit))
		return -ENOMEM;	/* what was copied stays in the chunks until the release */
	s->v[s->n++] = smp;
	return 0;
}

int samples_from_json(const json_t *samples, struct samples *out, struct err *why)
{
	struct sample *in;
	const json_t *smp;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (samples && !json_is_array(samples)) {
		err_set(why, "'samples' is not an array");
		return -EINVAL;
	}
	if (!json_array_size(samples))
		return 0;
	in = calloc(json_array_size(samples), sizeof(*in));
	if (!in) {
		err_set(why, "out of memory for %zu samples", json_array_size(samples));
		return -ENOMEM;
	}
	json_array_foreach(samples, i, smp) {
		const json_t *seq = json_object_get(smp, "seq");
		const json_t *value = json_object_get(smp, "value");
		const json_t *subject = json_object_get(smp, "subject");
		const json_t *unit = json_object_get(smp, "unit");
		const json_t *outlier = json_object_get(smp, "outlier");
		const char *metric = json_string_value(json_object_get(smp, "metric"));
		const char *window = json_string_value(json_object_get(smp, "window"));
		int n = 0;

		if (!json_is_object(smp))
			n = err_ret(why, 1, "sample %zu is not an object", i);
		else if (!metric || !*metric)
			n = err_ret(why, 1, "sample %zu has no 'metric'", i);
		else if (!json_is_number(value))
			n = err_ret(why, 1, "sample %zu ('%s') has no numeric 'value'", i,
				     metric);
		else if (!window || (strcmp(window, "rate") && strcmp(window, "cost")))
			n = err_ret(why, 1, "sample %zu ('%s'): 'window' must be 'rate' or "
				     "'cost'", i, metric);
		else if (seq && !json_is_null(seq) &&
			 (!json_is_integer(seq) || json_integer_value(seq) < 0))
			n = err_ret(why, 1, "sample %zu ('%s'): 'seq' must be null or a "
				     "second >= 0", i, metric);
		else if ((subject && !json_is_string(subject) && !json_is_null(subject)) ||
			 (unit && !json_is_string(unit) && !json_is_null(unit)))
			n = err_ret(why, 1, "sample %zu ('%s'): 'subject' and 'unit' must "
				     "be strings", i, metric);
		else if (json_string_length(json_object_get(smp, "metric")) > SAMPLE_NAME_MAX ||
			 json_string_length(subject) > SAMPLE_NAME_MAX ||
			 json_string_length(unit) > SAMPLE_UNIT_MAX)
			n = err_ret(why, 1, "sample %zu ('%.64s'): 'metric' and 'subject' "
				     "take at most %d bytes, 'unit' %d", i, metric,
				     SAMPLE_NAME_MAX, SAMPLE_UNIT_MAX);
		if (n) {
			free(in);
			return -EINVAL;
		}
		in[i] = (struct sample) {
			.metric = metric, .window = window,
			.subject = json_is_string(subject) ? json_string_value(subject) : "",
			.unit = json_string_value(unit),
			.seq = json_is_integer(seq) ? (int64_t)json_integer_value(seq) : -1,
			.value = json_number_value(value),
			.outlier = json_is_true(outlier),
		};
	}
	out->v = in;
	out->n = i;
	return 0;
}

/* --- the fast path ---
 *
 * While scanning, a sample's texts point at their first byte in the input (a text ends
 * at the next '"': no escapes are taken); once the whole array is taken they are copied,
 * NUL-terminated, into one block, a text equal to the previous sample's shared. */

struct scan {
	const char *p, *end;
};

enum member { M_METRIC, M_SUBJECT, M_VALUE, M_UNIT, M_WINDOW, M_SEQ, M_OUTLIER, M_COUNT };

static const struct {
	const char *name;
	size_t max;			/* a text's bytes (proto_schema.c's limits) */
} members[M_COUNT] = {
	[M_METRIC] = { "metric", SAMPLE_NAME_MAX },
	[M_SUBJECT] = { "subject", SAMPLE_NAME_MAX },
	[M_VALUE] = { "value", 0 },
	[M_UNIT] = { "unit", SAMPLE_UNIT_MAX },
	[M_WINDOW] = { "window", 0 },
	[M_SEQ] = { "seq", 0 },
	[M_OUTLIER] = { "outlier", 0 },
};

static void skip_space(struct scan *s)
{
	/* most often there is none: any byte above ' ' ends it at once */
	while (s->p < s->end && (unsigned char)*s->p <= ' ' &&
	       (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

/* Whether the next byte is C; consumed if so. */
static bool eat(struct scan *s, char c)
{
	if (s->p >= s->end || *s->p != c)
		return false;
	s->p++;
	return true;
}

/* The bytes a text of the fast path is made of: printable ASCII but '"' and '\\'. */
static const bool text_byte[256] = {
	[' ' ... '!'] = true, ['#' ... '['] = true, [']' ... '~'] = true,
};

/* A string at s->p (its opening quote) of printable ASCII without escapes: its first
 * byte in *TEXT and its length in *LEN. False for anything else. */
static bool scan_text(struct scan *s, const char **text, size_t *len)
{
	const char *q;

	if (!eat(s, '"'))
		return false;
	for (q = s->p; q < s->end && text_byte[(unsigned char)*q]; q++)
		;
	if (q >= s->end || *q != '"')
		return false;
	*text = s->p;
	*len = (size_t)(q - s->p);
	s->p = q + 1;
	return true;
}

static bool is_digit(const struct scan *s, const char *q)
{
	return q < s->end && *q >= '0' && *q <= '9';
}

/* A JSON number at s->p, as proto_parse reads it: an integer (no fraction, no exponent)
 * into *IV with *IS_INT, else a real into *DV. False for what is not a number or what
 * proto_parse might refuse or read otherwise (integers of more than 18 digits, long
 * texts, reals beyond double). */
static bool scan_number(struct scan *s, bool *is_int, int64_t *iv, double *dv)
{
	const char *start = s->p, *q = s->p;
	char text[64];
	size_t n;
	static const double pow10[] = {
		1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
		1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
	};
	uint64_t v = 0;			/* 18 digits fit: checked below */
	bool neg = false;
	int exp10 = 0;

	if (q < s->end && *q == '-')
		neg = true, q++;
	if (!is_digit(s, q))
		return false;
	if (*q == '0' && is_digit(s, q + 1))
		return false;			/* a leading zero */
	for (n = 0; is_digit(s, q); q++, n++)
		v = v * 10 + (uint64_t)(*q - '0');
	*is_int = !(q < s->end && (*q == '.' || *q == 'e' || *q == 'E'));
	if (*is_int) {
		if (n > 18)
			return false;
		*iv = neg ? -(int64_t)v : (int64_t)v;
		s->p = q;
		return true;
	}
	if (*q == '.') {
		q++;
		if (!is_digit(s, q))
			return false;
		for (; is_digit(s, q); q++, n++, exp10--)
			if (n < 19)
				v = v * 10 + (uint64_t)(*q - '0');
	}
	if (q < s->end && (*q == 'e' || *q == 'E')) {
		int esign = 1, e = 0;

		q++;
		if (q < s->end && (*q == '+' || *q == '-'))
			esign = *q++ == '-' ? -1 : 1;
		if (!is_digit(s, q))
			return false;
		for (; is_digit(s, q); q++)
			e = e < 10000 ? e * 10 + (*q - '0') : e;
		exp10 += esign * e;
	}
	/* Clinger's fast path: at most 15 digits (exact in a double) times or over a power
	 * of ten up to 10^22 (exact too) is one correctly rounded operation, the double
	 * strtod gives */
	if ((size_t)(q - start) >= sizeof(text))
		return false;
	if (n <= 15 && exp10 >= -22 && exp10 <= 22) {
		*dv = exp10 < 0 ? (double)v / pow10[-exp10] : (double)v * pow10[exp10];
		*dv = neg ? -*dv : *dv;
		s->p = q;
		return true;
	}
	n = (size_t)(q - start);
	memcpy(text, start, n);
	text[n] = '\0';
	errno = 0;
	*dv = strtod(text, NULL);
	if (errno == ERANGE && (*dv == HUGE_VAL || *dv == -HUGE_VAL))
		return false;
	s->p = q;
	return true;
}

static bool scan_null(struct scan *s)
{
	if (s->end - s->p < 4 || memcmp(s->p, "null", 4))
		return false;
	s->p += 4;
	return true;
}

/* The value of member M of sample *SMP at s->p. */
static bool scan_member(struct scan *s, enum member m, struct sample *smp)
{
	const char *text;
	size_t len;
	int64_t iv;
	double dv;
	bool is_int;

	switch (m) {
	case M_METRIC:
		return scan_text(s, &smp->metric, &len) && len && len <= members[m].max;
	case M_SUBJECT:
	case M_UNIT:
		if (scan_null(s))
			return true;
		if (!scan_text(s, &text, &len) || len > members[m].max)
			return false;
		*(m == M_SUBJECT ? &smp->subject : &smp->unit) = text;
		return true;
	case M_VALUE:
		if (!scan_number(s, &is_int, &iv, &dv))
			return false;
		smp->value = is_int ? (double)iv : dv;
		return true;
	case M_WINDOW:
		if (!scan_text(s, &text, &len) || len != 4)
			return false;
		smp->window = !memcmp(text, "rate", 4) ? "rate" :
			      !memcmp(text, "cost", 4) ? "cost" : NULL;
		return smp->window;
	case M_SEQ:
		if (scan_null(s))
			return true;
		if (!scan_number(s, &is_int, &iv, &dv) || !is_int || iv < 0)
			return false;
		smp->seq = iv;
		return true;
	case M_OUTLIER:
		if (s->end - s->p >= 4 && !memcmp(s->p, "true", 4)) {
			s->p += 4;
			smp->outlier = true;
			return true;
		}
		if (s->end - s->p < 5 || memcmp(s->p, "false", 5))
			return false;
		s->p += 5;
		return true;
	default:
		return false;
	}
}

/* The member named KEY (LEN bytes), or M_COUNT: by length and first byte, then one
 * comparison (a loop over the names with memcmp each was a tenth of the scan). */
static int member_of(const char *key, size_t len)
{
	int m;

	switch (len) {
	case 3: m = M_SEQ; break;
	case 4: m = M_UNIT; break;
	case 5: m = M_VALUE; break;
	case 6: m = key[0] == 'm' ? M_METRIC : M_WINDOW; break;
	case 7: m = key[0] == 's' ? M_SUBJECT : M_OUTLIER; break;
	default: return M_COUNT;
	}
	return !memcmp(key, members[m].name, len) ? m : M_COUNT;
}

/* One sample object at s->p into *SMP (texts pointing into the input). */
static bool scan_sample(struct scan *s, struct sample *smp)
{
	unsigned seen = 0;
	const char *key;
	size_t len;
	int m;

	*smp = (struct sample){ .seq = -1 };
	if (!eat(s, '{'))
		return false;
	do {
		skip_space(s);
		if (!scan_text(s, &key, &len))
			return false;
		m = member_of(key, len);
		if (m == M_COUNT || (seen & (1u << m)))
			return false;		/* unknown or twice: the full path says */
		seen |= 1u << m;
		skip_space(s);
		if (!eat(s, ':'))
			return false;
		skip_space(s);
		if (!scan_member(s, (enum member)m, smp))
			return false;
		skip_space(s);
	} while (eat(s, ','));
	return eat(s, '}') && smp->metric && (seen & (1u << M_VALUE)) && smp->window;
}

/* A text of the input (it ends at the next '"') copied to *AT in the block, or the
 * previous sample's copy PREV when it is the same text (PREV_IN). */
static const char *copy_text(const char *in, const char *prev_in, const char *prev,
			     char **at)
{
	size_t len = (size_t)((const char *)rawmemchr(in, '"') - in);
	char *t = *at;

	if (prev_in && !strncmp(in, prev_in, len + 1))	/* both end at a '"' */
		return prev;
	memcpy(t, in, len);
	t[len] = '\0';
	*at = t + len + 1;
	return t;
}

int samples_scan(const char *p, const char *end, struct samples *out, const char **next)
{
	struct scan s = { .p = p, .end = end };
	struct sample *v = NULL, *nv;
	size_t n = 0, cap = 0, i;
	char *text, *at;
	/* the previous sample's texts in the input and their copies */
	const char *pm = NULL, *ps = NULL, *pu = NULL, *cm = NULL, *cs = NULL, *cu = NULL;

	memset(out, 0, sizeof(*out));
	if (!eat(&s, '['))
		return 0;
	skip_space(&s);
	if (!eat(&s, ']')) {
		do {
			skip_space(&s);
			if (n == cap) {
				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto oom;
				v = nv;
			}
			if (!scan_sample(&s, &v[n]))
				goto not_taken;
			n++;
			skip_space(&s);
		} while (eat(&s, ','));
		if (!eat(&s, ']'))
			goto not_taken;
	}
	/* the texts with their NULs take less room than in the input with their quotes */
	text = malloc((size_t)(s.p - p));
	if (!text)
		goto oom;
	at = text;
	for (i = 0; i < n; i++) {
		const char *m = v[i].metric, *sb = v[i].subject, *u = v[i].unit;

		v[i].metric = copy_text(m, pm, cm, &at);
		v[i].subject = sb ? copy_text(sb, ps, cs, &at) : "";
		v[i].unit = u ? copy_text(u, pu, cu, &at) : NULL;
		pm = m, cm = v[i].metric;
		if (sb)
			ps = sb, cs = v[i].subject;
		if (u)
			pu = u, cu = v[i].unit;
	}
	out->v = v;
	out->n = n;
	out->text = text;
	out->taken = true;
	*next = s.p;
	return 1;
oom:
	free(v);
	return -ENOMEM;
not_taken:
	free(v);
	return 0;
}
