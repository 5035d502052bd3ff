// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* ethstats.c - a port's driver counters (ethtool -S) by the SIOCETHTOOL ioctl, and the
 * pure naming, unit and rate rules behind the nic.* samples; see ethstats.h. */
#include "ethstats.h"

#include <ctype.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

_Static_assert(ETHSTATS_RAW_LEN == ETH_GSTRING_LEN, "ETH_GSTRING_LEN changed");

/* ---- pure ---- */

static bool in_list(const char *tok, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(tok, *list))
			return true;
	return false;
}

enum ethstats_unit ethstats_unit_of(const char *name)
{
	static const char *const not_counter[] = { "ifindex", "index", NULL };
	static const char *const header[] = { "rx", "tx", "queue", NULL };
	static const char *const bytes[] = { "bytes", "byte", "octets", NULL };
	static const char *const frames[] = {
		"packets", "packet", "pkts", "pkt", "frames", "frame", "drops", "drop",
		"dropped", "discard", "discards", "discarded", "xdp", "errors", "error", "err",
		"errs", "missed", "unicast", "multicast", "broadcast", "ucast", "mcast", "bcast",
		NULL,
	};
	bool is_header = true, any = false, is_bytes = false, is_frames = false, queue = false;
	char buf[ETHSTATS_NAME_LEN], *tok, *save = NULL, *c;

	snprintf(buf, sizeof(buf), "%s", name);
	buf[strcspn(buf, "#")] = '\0';		/* "#K" of a repeated name: not the rule's */
	for (c = buf; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (tok = strtok_r(buf, "_.-", &save); tok; tok = strtok_r(NULL, "_.-", &save)) {
		any = true;
		if (in_list(tok, not_counter))
			return ETHSTATS_NONE;
		if (!in_list(tok, header))
			is_header = false;
		queue |= !strcmp(tok, "queue");
		is_bytes |= in_list(tok, bytes);
		is_frames |= in_list(tok, frames);
	}
	if (any && is_header && queue)
		return ETHSTATS_NONE;
	if (is_bytes)
		return ETHSTATS_BPS;
	return is_frames ? ETHSTATS_PPS : ETHSTATS_EPS;
}

const char *ethstats_unit_name(enum ethstats_unit unit)
{
	switch (unit) {
	case ETHSTATS_PPS:
		return "pps";
	case ETHSTATS_BPS:
		return "Bps";
	case ETHSTATS_EPS:
		return "/s";
	default:
		return NULL;
	}
}

/* RAW (at most ETHSTATS_RAW_LEN bytes) sanitized into OUT (ETHSTATS_RAW_LEN + 1), "" when
 * nothing is left. */
static void sanitize(const char *raw, char *out)
{
	size_t i, n = 0;

	for (i = 0; i < ETHSTATS_RAW_LEN && raw[i]; i++) {
		unsigned char ch = (unsigned char)raw[i];
		char c = isalnum(ch) || ch == '.' || ch == '-' ? (char)ch : '_';

		if (c == '_' && (!n || out[n - 1] == '_'))
			continue;
		out[n++] = c;
	}
	while (n && out[n - 1] == '_')
		n--;
	out[n] = '\0';
}

int ethstats_find(const struct ethstats_stat *stats, int n, const char *name)
{
	int i;

	for (i = 0; name && i < n; i++)
		if (!strcmp(stats[i].name, name))
			return i;
	return -1;
}

int ethstats_names(const char *raw, int n, struct ethstats_stat *out)
{
	int i, j;

	if (n < 0)
		return -EINVAL;
	if (n > ETHSTATS_MAX)
		n = ETHSTATS_MAX;
	for (i = 0; i < n; i++) {
		char base[ETHSTATS_RAW_LEN + 1];
		int seen = 0;

		sanitize(raw + (size_t)i * ETHSTATS_RAW_LEN, base);
		if (!base[0])
			snprintf(base, sizeof(base), "stat%d", i);
		for (j = 0; j < i; j++) {
			const char *h = strchr(out[j].name, '#');
			size_t len = h ? (size_t)(h - out[j].name) : strlen(out[j].name);

			seen += len == strlen(base) && !strncmp(out[j].name, base, len);
		}
		if (seen)
			snprintf(out[i].name, sizeof(out[i].name), "%.32s#%d", base, seen);
		else
			snprintf(out[i].name, sizeof(out[i].name), "%.32s", base);
		out[i].unit = ethstats_unit_of(base);
	}
	return n;
}

int ethstats_rates(const struct ethstats_stat *stats, int n, const uint64_t *a,
		   const uint64_t *b, double dt, bool (*keep)(const char *name, void *ctx),
		   void *ctx, struct ethstats_rate *out)
{
	int i, k = 0;

	if (!(dt > 0))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (stats[i].unit == ETHSTATS_NONE || b[i] < a[i])
			continue;	/* not a counter, or not one in this window */
		if (b[i] == a[i] && !(keep && keep(stats[i].name, ctx)))
			continue;
		out[k].name = stats[i].name;
		out[k].unit = ethstats_unit_name(stats[i].unit);
		out[k].value = (double)(b[i] - a[i]) / dt;
		k++;
	}
	return k;
}

/* ---- I/O ---- */

struct ethstats {
	int fd;				/* AF_INET datagram socket for the ioctls */
	char ifname[IF_NAMESIZE];
	char driver[32];
	int n_driver;			/* the driver's count at open */
	int cap;			/* values ETHTOOL_GSTATS may write into buf */
	int n;				/* kept: min(n_driver, ETHSTATS_MAX) */
	struct ethstats_stat *stats;
	struct ethtool_stats *buf;
};

static int ioctl_cmd(const struct ethstats *e, void *cmd)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", e->ifname);
	ifr.ifr_data = cmd;
	return ioctl(e->fd, SIOCETHTOOL, &ifr) ? -errno : 0;
}

/* The driver's count of ETH_SS_STATS strings: ETHTOOL_GSSET_INFO, else (a kernel
 * without it) ETHTOOL_GDRVINFO's n_stats. Returns it or -errno (-EOPNOTSUPP: none). */
static int stat_count(struct ethstats *e)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 data[1];
	} sset;
	struct ethtool_drvinfo info;
	int err;

	memset(&info, 0, sizeof(info));
	info.cmd = ETHTOOL_GDRVINFO;
	err = ioctl_cmd(e, &info);
	if (!err)
		snprintf(e->driver, sizeof(e->driver), "%.*s", (int)sizeof(info.driver),
			 info.driver);
	memset(&sset, 0, sizeof(sset));
	sset.hdr.cmd = ETHTOOL_GSSET_INFO;
	sset.hdr.sset_mask = 1ULL << ETH_SS_STATS;
	if (!ioctl_cmd(e, &sset)) {
		if (!(sset.hdr.sset_mask & (1ULL << ETH_SS_STATS)))
			return -EOPNOTSUPP;
		return sset.hdr.data[0] > ETHSTATS_MAX_DRIVER ? -E2BIG : (int)sset.hdr.data[0];
	}
	if (err)
		return err;
	return info.n_stats > ETHSTATS_MAX_DRIVER ? -E2BIG : (int)info.n_stats;
}

/* Room for the driver's N strings or values and some more: the kernel writes as many as
 * the driver has at the call, which grows when queues are added between our calls;
 * the count it returns is checked against N. */
static int slack(int n)
{
	return n + n / 2 + 64;
}

int ethstats_open(const char *ifname, struct ethstats **out)
{
	struct ethtool_gstrings *gs = NULL;
	struct ethstats *e;
	int n, err;

	*out = NULL;
	if (!ifname || strlen(ifname) >= IF_NAMESIZE)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	snprintf(e->ifname, sizeof(e->ifname), "%s", ifname);
	e->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (e->fd < 0) {
		err = -errno;
		free(e);
		return err;
	}
	n = stat_count(e);
	err = n < 0 ? n : n == 0 ? -EOPNOTSUPP : 0;
	if (err)
		goto fail;
	e->n_driver = n;
	e->cap = slack(n);
	gs = calloc(1, sizeof(*gs) + (size_t)e->cap * ETH_GSTRING_LEN);
	e->buf = calloc(1, sizeof(*e->buf) + (size_t)e->cap * sizeof(__u64));
	e->stats = calloc(n < ETHSTATS_MAX ? n : ETHSTATS_MAX, sizeof(*e->stats));
	if (!gs || !e->buf || !e->stats) {
		err = -ENOMEM;
		goto fail;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = (__u32)n;
	err = ioctl_cmd(e, gs);
	if (!err && gs->len != (__u32)n)
		err = -ESTALE;
	if (err)
		goto fail;
	e->n = ethstats_names((const char *)gs->data, n, e->stats);
	free(gs);
	*out = e;
	return 0;
fail:
	free(gs);
	ethstats_destroy(&e);
	return err;
}

void ethstats_destroy(struct ethstats **ep)
{
	struct ethstats *e = *ep;

	if (!e)
		return;
	if (e->fd >= 0)
		close(e->fd);
	free(e->stats);
	free(e->buf);
	free(e);
	*ep = NULL;
}

const struct ethstats_stat *ethstats_stats(const struct ethstats *e)
{
	return e->stats;
}

int ethstats_count(const struct ethstats *e)
{
	return e ? e->n : 0;
}

const char *ethstats_driver(const struct ethstats *e)
{
	return e ? e->driver : "";
}

int ethstats_read(struct ethstats *e, uint64_t *values)
{
	int err, i;

	memset(e->buf, 0, sizeof(*e->buf));
	e->buf->cmd = ETHTOOL_GSTATS;
	e->buf->n_stats = (__u32)e->n_driver;
	err = ioctl_cmd(e, e->buf);
	if (err)
		return err;
	if (e->buf->n_stats != (__u32)e->n_driver)
		return -ESTALE;
	for (i = 0; i < e->n; i++)
		values[i] = e->buf->data[i];
	return 0;
}
