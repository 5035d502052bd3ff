// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* probe.c - see probe.h. The frames: ff:ff:ff:ff:ff:ff, the port's MAC, 0x88B5, then
 * PROBE_MAGIC and the nonce (at most PROBE_NONCE_MAX bytes), padded to 60 bytes. */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/log.h"
#include "proto/proto.h"
#include "base/util.h"

#define PROBE_FRAME_MIN 60

struct probe_port {
	const char *role;		/* borrowed from the inventory config */
	int ifindex;
	int fd;
	json_t *got;			/* nonces received (owned by the report) */
};

/* P's packet socket on IFNAME. 0 or -errno with ERR set. */
static int open_port(struct probe_port *p, const char *ifname, struct err *err)
{
	struct sockaddr_ll sll = { 0 };
	int one = 1;

	p->ifindex = (int)if_nametoindex(ifname);
	if (!p->ifindex) {
		err_set(err, "port '%s': no interface '%s'", p->role, ifname);
		return -ENODEV;
	}
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, htons(PROBE_ETHERTYPE));
	if (p->fd < 0) {
		err_set(err, "port '%s': cannot open a packet socket: %s", p->role,
			strerror(errno));
		return -errno;
	}
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(PROBE_ETHERTYPE);
	sll.sll_ifindex = p->ifindex;
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll))) {
		err_set(err, "port '%s': cannot bind to '%s': %s", p->role, ifname,
			strerror(errno));
		close(p->fd);
		p->fd = -1;
		return -errno;
	}
	/* our own frames come back as PACKET_OUTGOING; ignore them at recv */
	setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	return 0;
}

static void send_probe(struct probe_port *p, const char *ifname, const char *nonce)
{
	unsigned char frame[14 + sizeof(PROBE_MAGIC) + PROBE_NONCE_MAX + PROBE_FRAME_MIN] = { 0 };
	size_t n = strlen(nonce), len;
	struct ifreq ifr = { 0 };
	uint16_t type = htons(PROBE_ETHERTYPE);

	if (n > PROBE_NONCE_MAX)
		n = PROBE_NONCE_MAX;
	memset(frame, 0xff, 6);
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (!ioctl(p->fd, SIOCGIFHWADDR, &ifr))
		memcpy(frame + 6, ifr.ifr_hwaddr.sa_data, 6);
	memcpy(frame + 12, &type, 2);
	memcpy(frame + 14, PROBE_MAGIC, strlen(PROBE_MAGIC));
	memcpy(frame + 14 + strlen(PROBE_MAGIC), nonce, n);
	len = 14 + strlen(PROBE_MAGIC) + n;
	if (len < PROBE_FRAME_MIN)
		len = PROBE_FRAME_MIN;
	if (send(p->fd, frame, len, 0) < 0)
		pr_warn("probe: cannot send out of port '%s': %s", p->role, strerror(errno));
}

size_t probe_frame_nonce(const unsigned char *frame, size_t len,
			 char nonce[PROBE_NONCE_MAX + 1])
{
	size_t m = strlen(PROBE_MAGIC), k, i;

	nonce[0] = '\0';
	if (len < 14 + m || memcmp(frame + 14, PROBE_MAGIC, m))
		return 0;
	for (k = 0, i = 14 + m; i < len && k < PROBE_NONCE_MAX; i++, k++) {
		if (!frame[i])
			break;
		nonce[k] = (char)frame[i];
	}
	nonce[k] = '\0';
	return k;
}

/* Read every waiting frame of P; keep the nonces of probe frames. */
static void drain(struct probe_port *p)
{
	unsigned char buf[2048];
	struct sockaddr_ll from;
	socklen_t flen;
	ssize_t n;

	for (;;) {
		char nonce[PROBE_NONCE_MAX + 1];

		flen = sizeof(from);
		n = recvfrom(p->fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		if (n < 0)
			return;
		if (from.sll_pkttype != PACKET_OUTGOING &&
		    probe_frame_nonce(buf, (size_t)n, nonce))
			json_array_append_new(p->got, json_string(nonce));
	}
}

json_t *probe_run(const struct inventory_config *inv, const json_t *msg)
{
	const json_t *nonces = json_object_get(msg, "nonces");
	long long after = jget_int(msg, "send_after_ms", 300);
	long long listen = jget_int(msg, "listen_ms", 1000);
	struct probe_port *ports = NULL;
	json_t *report = proto_msg_new("probe_report"), *received = json_object();
	struct err first;		/* the first port that cannot take part */
	int64_t start = util_mono_ms();
	struct pollfd *pfd = NULL;
	bool sent = false;
	int i, n = inv ? inv->n_ports : 0;

	err_clear(&first);
	if (!report || !received)
		goto oom;
	if (listen < 100 || listen > PROBE_MAX_MS)
		listen = listen < 100 ? 100 : PROBE_MAX_MS;
	if (after < 0 || after >= listen)
		after = listen / 3;
	ports = calloc(n ? n : 1, sizeof(*ports));
	pfd = calloc(n ? n : 1, sizeof(*pfd));
	if (!ports || !pfd)
		goto oom;
	for (i = 0; i < n; i++) {
		ports[i].role = inv->ports[i].key;
		ports[i].fd = -1;
		ports[i].got = json_array();
		if (!ports[i].got || json_object_set_new(received, ports[i].role, ports[i].got))
			goto oom;
		open_port(&ports[i], inv->ports[i].value, first.msg[0] ? NULL : &first);
	}
	for (;;) {
		int64_t now = util_mono_ms(), wait;
		int k = 0;

		if (!sent && now - start >= after) {
			for (i = 0; i < n; i++) {
				const char *nonce = json_string_value(json_object_get(nonces,
										      ports[i].role));

				if (ports[i].fd >= 0 && nonce)
					send_probe(&ports[i], inv->ports[i].value, nonce);
			}
			sent = true;
		}
		if (now - start >= listen)
			break;
		wait = sent ? start + listen - now : start + after - now;
		for (i = 0; i < n; i++) {
			if (ports[i].fd < 0)
				continue;
			pfd[k].fd = ports[i].fd;
			pfd[k].events = POLLIN;
			k++;
		}
		if (poll(pfd, k, (int)(wait > 0 ? wait : 0)) < 0 && errno != EINTR)
			break;
		for (i = 0; i < n; i++)
			if (ports[i].fd >= 0)
				drain(&ports[i]);
	}
	json_object_set(report, "probe", json_object_get(msg, "probe"));
	json_object_set(report, "received", received);
	if (first.msg[0])
		json_object_set_new(report, "error", json_string(first.msg));
	goto out;
oom:
	json_decref(report);
	report = NULL;
out:
	for (i = 0; ports && i < n; i++)
		if (ports[i].fd >= 0)
			close(ports[i].fd);
	free(ports);
	free(pfd);
	json_decref(received);
	return report;
}
