// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* inventory.c - see inventory.h. */
#include "inventory.h"
#include "agent.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "ifstats.h"
#include "xdpcaps.h"
#include "base/log.h"
#include "base/util.h"

#define INVENTORY_MAX_CONFIG (8u << 20)

/* Debug options that make a kernel's timings worthless for comparison. */
static const char *const debug_options[] = {
	"LOCKDEP", "PROVE_LOCKING", "KASAN", "KCSAN", "KMSAN", "DEBUG_PAGEALLOC",
	"SLUB_DEBUG_ON", "DEBUG_NET", "DEBUG_ATOMIC_SLEEP", "DEBUG_OBJECTS",
};

int inventory_pair_parse(const char *text, struct inventory_pair *pair)
{
	const char *eq = strchr(text, '=');

	pair->key = pair->value = NULL;
	if (!eq || eq == text || !eq[1])
		return -EINVAL;
	pair->key = strndup(text, eq - text);
	pair->value = strdup(eq + 1);
	if (!pair->key || !pair->value) {
		inventory_pair_release(pair);
		return -ENOMEM;
	}
	return 0;
}

void inventory_pair_release(struct inventory_pair *pair)
{
	free(pair->key);
	free(pair->value);
	pair->key = pair->value = NULL;
}

/* First line of PATH without its newline, or NULL. */
static char *read_line(const char *path)
{
	char *buf;
	size_t len;

	if (util_read_file(path, 1 << 16, &buf, &len))
		return NULL;
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static json_t *json_string_or_null(char *s)
{
	json_t *j = s ? json_string(s) : json_null();

	free(s);
	return j ? j : json_null();
}

/* Read a gzip-compressed file (/proc/config.gz) whole into a heap buffer. */
static int read_config_gz(const char *path, char **text, size_t *lenp)
{
	gzFile gz;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int err = 0;

	if (access(path, R_OK))
		return -errno;
	gz = gzopen(path, "rb");
	if (!gz)
		return errno ? -errno : -EIO;
	for (;;) {
		int n;

		if (cap - len < 65537) {
			char *nb;

			cap = cap ? cap * 2 : 1 << 18;
			if (cap > INVENTORY_MAX_CONFIG) {
				err = -EFBIG;
				goto out;
			}
			nb = realloc(buf, cap);
			if (!nb) {
				err = -ENOMEM;
				goto out;
			}
			buf = nb;
		}
		n = gzread(gz, buf + len, 65536);
		if (n < 0) {
			err = -EIO;
			goto out;
		}
		if (!n)
			break;
		len += n;
	}
	buf[len] = '\0';
	*text = buf;
	*lenp = len;
	buf = NULL;
out:
	gzclose(gz);
	free(buf);
	return err;
}

int inventory_kernel_config(char **text, size_t *len)
{
	struct utsname u;
	char path[512];

	if (!read_config_gz("/proc/config.gz", text, len))
		return 0;
	if (uname(&u))
		return -errno;
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	return util_read_file(path, INVENTORY_MAX_CONFIG, text, len);
}

json_t *inventory_debug_options(const char *config)
{
	json_t *list = json_array();
	size_t i;

	for (i = 0; list && i < ARRAY_SIZE(debug_options); i++) {
		char needle[64];
		const char *p = config;
		int n = snprintf(needle, sizeof(needle), "CONFIG_%s=", debug_options[i]);

		while (p && (p = strstr(p, needle))) {
			if ((p == config || p[-1] == '\n') && (p[n] == 'y' || p[n] == 'm')) {
				json_array_append_new(list, json_string(debug_options[i]));
				break;
			}
			p += n;
		}
	}
	return list;
}

static json_t *kernel_json(void)
{
	struct utsname u;
	char *config = NULL, *cmdline;
	char hex[SHA256_HEX_LEN];
	size_t len;
	json_t *k;

	if (uname(&u))
		memset(&u, 0, sizeof(u));
	k = json_pack("{s:s, s:s}", "release", u.release, "version", u.version);
	if (!k)
		return NULL;
	if (!inventory_kernel_config(&config, &len)) {
		util_sha256_hex(config, len, hex);
		json_object_set_new(k, "config_sha256", json_string(hex));
		json_object_set_new(k, "debug_options", inventory_debug_options(config));
		free(config);
	} else {
		json_object_set_new(k, "config_sha256", json_null());
		json_object_set_new(k, "debug_options", json_array());
	}
	cmdline = read_line("/proc/cmdline");
	json_object_set_new(k, "cmdline", json_string_or_null(cmdline));
	return k;
}

static char *cpu_model(void)
{
	static const char *const keys[] = { "model name", "Model", "cpu model", "Processor" };
	char *buf, *model = NULL;
	size_t len, i;

	if (util_read_file("/proc/cpuinfo", 4u << 20, &buf, &len))
		return NULL;
	for (i = 0; !model && i < ARRAY_SIZE(keys); i++) {
		char *line = buf;

		while (line && *line) {
			char *end = strchr(line, '\n');
			size_t kl = strlen(keys[i]);

			if (!strncmp(line, keys[i], kl) && (line[kl] == '\t' || line[kl] == ' ' ||
							  line[kl] == ':')) {
				char *colon = strchr(line, ':');

				if (colon && (!end || colon < end)) {
					colon++;
					while (*colon == ' ')
						colon++;
					model = strndup(colon, end ? (size_t)(end - colon) : strlen(colon));
					break;
				}
			}
			line = end ? end + 1 : NULL;
		}
	}
	free(buf);
	return model;
}

static int count_numa_nodes(void)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strncmp(e->d_name, "node", 4) && e->d_name[4] >= '0' && e->d_name[4] <= '9')
			n++;
	}
	closedir(d);
	return n;
}

static json_t *cpu_json(void)
{
	int nodes = count_numa_nodes();
	json_t *c;

	c = json_pack("{s:i}", "count", (int)sysconf(_SC_NPROCESSORS_ONLN));
	if (!c)
		return NULL;
	json_object_set_new(c, "model", json_string_or_null(cpu_model()));
	json_object_set_new(c, "governor", json_string_or_null(
		read_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")));
	json_object_set_new(c, "numa_nodes", nodes ? json_integer(nodes) : json_null());
	return c;
}

struct jit_read {
	long long enable, harden;
	int err;
};

static int read_jit_here(struct jit_read *r)
{
	char *s;
	long long v;

	s = read_line("/proc/sys/net/core/bpf_jit_enable");
	if (!s)
		return -ENOENT;
	r->enable = util_parse_int(s, &v) ? -1 : v;
	free(s);
	s = read_line("/proc/sys/net/core/bpf_jit_harden");
	r->harden = (s && !util_parse_int(s, &v)) ? v : -1;
	free(s);
	return 0;
}

/* net.core.bpf_jit_* exist only in the initial network namespace: read them from a
 * thread that joins it (setns is per thread), leaving the agent's threads where they are.
 * Where /proc/1/ns/net cannot be opened (a sandbox), probe_jit() below answers for
 * jit_enable. */
static void *read_jit_init_netns(void *arg)
{
	struct jit_read *r = arg;
	int fd = open("/proc/1/ns/net", O_RDONLY | O_CLOEXEC);

	r->err = -ENOENT;
	if (fd < 0)
		return NULL;
	if (!setns(fd, CLONE_NEWNET))
		r->err = read_jit_here(r);
	close(fd);
	return NULL;
}

/* Whether the kernel JIT-compiles a trivial program: 1, 0, or -1 when it cannot load one. */
static int probe_jit(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int fd, jit = -1;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, NULL, "GPL", insns, ARRAY_SIZE(insns),
			   NULL);
	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (!bpf_obj_get_info_by_fd(fd, &info, &len))
		jit = info.jited_prog_len > 0;
	close(fd);
	return jit;
}

static json_t *bpf_json(void)
{
	struct jit_read r = { -1, -1, 0 };
	pthread_t t;

	if (read_jit_here(&r) && !pthread_create(&t, NULL, read_jit_init_netns, &r))
		pthread_join(t, NULL);
	if (r.enable < 0)
		r.enable = probe_jit();
	return json_pack("{s:o, s:o}",
			 "jit_enable", r.enable >= 0 ? json_integer(r.enable) : json_null(),
			 "jit_harden", r.harden >= 0 ? json_integer(r.harden) : json_null());
}

static int ethtool_ioctl(const char *ifname, void *cmd)
{
	struct ifreq ifr;
	int fd, err = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr))
		err = -errno;
	close(fd);
	return err;
}

int inventory_driver(const char *ifname, char *driver, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	int err = ethtool_ioctl(ifname, &info);

	if (!err)
		snprintf(driver, len, "%.*s", (int)sizeof(info.driver), info.driver);
	return err;
}

uint32_t inventory_speed(const char *ifname)
{
	struct ethtool_cmd ecmd = { .cmd = ETHTOOL_GSET };
	uint32_t speed;

	if (ethtool_ioctl(ifname, &ecmd))
		return 0;
	speed = ethtool_cmd_speed(&ecmd);
	return speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
}

json_t *inventory_port(const char *role, const char *ifname)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ethtool_ringparam ring = { .cmd = ETHTOOL_GRINGPARAM };
	struct ifstats_link link;
	struct ifstats *rtnl;
	uint32_t speed;
	int ifindex = if_nametoindex(ifname);
	json_t *p;

	p = json_pack("{s:s, s:s}", "role", role, "name", ifname);
	if (!p)
		return NULL;
	if (!ifindex) {
		char msg[128];

		snprintf(msg, sizeof(msg), "interface '%s' does not exist", ifname);
		json_object_set_new(p, "error", json_string(msg));
		return p;
	}
	json_object_set_new(p, "ifindex", json_integer(ifindex));
	if (!ethtool_ioctl(ifname, &info)) {
		json_object_set_new(p, "driver", json_string(info.driver));
		if (info.fw_version[0] && strcmp(info.fw_version, "N/A"))
			json_object_set_new(p, "firmware", json_string(info.fw_version));
		if (info.bus_info[0] && strcmp(info.bus_info, "N/A"))
			json_object_set_new(p, "bus", json_string(info.bus_info));
	}
	rtnl = ifstats_new();
	if (rtnl && !ifstats_get(rtnl, ifindex, &link)) {
		if (link.mac_len == 6) {
			char mac[18];

			ifstats_format_mac(link.mac, mac);
			json_object_set_new(p, "mac", json_string(mac));
		}
		json_object_set_new(p, "mtu", json_integer(link.mtu));
	}
	ifstats_destroy(&rtnl);
	speed = inventory_speed(ifname);
	if (speed)
		json_object_set_new(p, "speed", json_integer(speed));
	if (!ethtool_ioctl(ifname, &ch)) {
		json_object_set_new(p, "rx_queues", json_integer(ch.rx_count + ch.combined_count));
		json_object_set_new(p, "tx_queues", json_integer(ch.tx_count + ch.combined_count));
	}
	if (!ethtool_ioctl(ifname, &ring)) {	/* veth has none */
		json_object_set_new(p, "rx_ring", json_integer(ring.rx_pending));
		json_object_set_new(p, "tx_ring", json_integer(ring.tx_pending));
		json_object_set_new(p, "rx_ring_max", json_integer(ring.rx_max_pending));
		json_object_set_new(p, "tx_ring_max", json_integer(ring.tx_max_pending));
	}
	{
		struct xdpcaps caps;

		xdpcaps_get(ifindex, ifname, &caps);
		json_object_set_new(p, "xdp", xdpcaps_json(&caps));
	}
	return p;
}

/* Which machine the host is: "id" is what the coordinator compares (hosts of one id are
 * measured one after another, docs/architecture.md): the `machine` label when there is
 * one, else /etc/machine-id and the boot id, which every namespace of a machine shares
 * and which tell apart clones of one image (same machine-id, other boot). NULL when
 * nothing is known: the host counts as a machine of its own. */
static json_t *machine_json(const struct inventory_config *cfg)
{
	char *mid = read_line("/etc/machine-id");
	char *boot = read_line("/proc/sys/kernel/random/boot_id");
	const char *label = NULL;
	json_t *m = json_object();
	char *id = NULL;
	int i;

	for (i = 0; i < cfg->n_labels; i++)
		if (!strcmp(cfg->labels[i].key, "machine"))
			label = cfg->labels[i].value;	/* the last one wins, as for labels */
	if (mid && !*mid) {
		free(mid);
		mid = NULL;
	}
	if (boot && !*boot) {
		free(boot);
		boot = NULL;
	}
	if (label)
		id = strdup(label);
	else if ((mid || boot) && asprintf(&id, "%s:%s", mid ? mid : "", boot ? boot : "") < 0)
		id = NULL;
	if (!m || !id) {
		json_decref(m);
		m = NULL;
		goto out;
	}
	json_object_set_new(m, "id", json_string(id));
	json_object_set_new(m, "source", json_string(label ? "label" : "boot"));
	if (mid)
		json_object_set_new(m, "machine_id", json_string(mid));
	if (boot)
		json_object_set_new(m, "boot_id", json_string(boot));
out:
	free(id);
	free(mid);
	free(boot);
	return m;
}

json_t *inventory_build(const struct inventory_config *cfg)
{
	char host[256] = "";
	json_t *inv, *labels, *ports, *machine;
	int i;

	gethostname(host, sizeof(host) - 1);
	/* agent_version: in the inventory and so in every result's env (docs/protocol.md) */
	inv = json_pack("{s:s, s:s, s:s}", "hostname", host, "agent", cfg->agent ? cfg->agent : host,
			"agent_version", AGENT_VERSION);
	labels = json_object();
	ports = json_array();
	if (!inv || !labels || !ports)
		goto nomem;
	json_object_set_new(inv, "kernel", kernel_json());
	json_object_set_new(inv, "cpu", cpu_json());
	json_object_set_new(inv, "bpf", bpf_json());
	json_object_set_new(inv, "timing", json_string(cfg->timing ? cfg->timing : "wall"));
	machine = machine_json(cfg);
	if (machine)
		json_object_set_new(inv, "machine", machine);
	for (i = 0; i < cfg->n_labels; i++)
		json_object_set_new(labels, cfg->labels[i].key, json_string(cfg->labels[i].value));
	for (i = 0; i < cfg->n_ports; i++)
		json_array_append_new(ports, inventory_port(cfg->ports[i].key,
							   cfg->ports[i].value));
	json_object_set_new(inv, "labels", labels);
	json_object_set_new(inv, "ports", ports);
	/* a copy: jansson's reference counts are not to be shared with the job thread */
	if (cfg->provider)
		json_object_set_new(inv, "provider", json_deep_copy(cfg->provider));
	return inv;
nomem:
	json_decref(inv);
	json_decref(labels);
	json_decref(ports);
	return NULL;
}
