/* attach.h - load a variant's BPF programs and attach them through bpf_link.
 *
 * A job's "attach" entries name, per port role, a hook (xdp, tc-ingress, tc-egress), an
 * XDP mode, an object and a program. attach_load() takes each object's bytes from the
 * job message ("objects": {NAME: {sha256, data (base64)}}) or, when the message carries
 * none, from a local BPF directory; it refuses bytes whose SHA-256 is not the one the
 * attach entry names, opens them with bpf_object__open_mem(), turns autoload on only for
 * the programs used and loads. A load failure returns the kernel verifier's log.
 *
 * Map slots (an entry's "maps", docs/plans.md) are filled after the load and before any
 * link exists: devmap slots get struct bpf_devmap_val {ifindex of the role, optional
 * program fd}, cpumap slots struct bpf_cpumap_val {qsize, optional program fd}, array and
 * hash slots an integer in the map's value size. Programs named only by slots (devmap and
 * cpumap programs) are loaded but never attached. An entry's "counters" are recorded so
 * that the job can read them (attach_counter_read: per-CPU values summed).
 *
 * Object instances: the entries that use the same object share one bpf_object (and so
 * its maps), except that a program used a second time (the same program on two ports)
 * gets a second instance of the object, so each attachment has its own program fd and
 * its own bpf_stats. Nothing is shared across jobs: every attach_set loads afresh.
 *
 * attach_links() creates one bpf_link per entry: XDP with bpf_link_create(BPF_XDP) and
 * XDP_FLAGS_DRV_MODE (native) or XDP_FLAGS_SKB_MODE (generic); tc hooks as tcx links
 * (BPF_TCX_INGRESS / BPF_TCX_EGRESS, kernel 6.6+). Links are owned by file descriptors of
 * this process only (never pinned), so an agent that dies leaves nothing attached.
 *
 * Subjects: each attachment is reported under its program name, or "prog@role" when the
 * same program name appears more than once in the variant.
 */
#ifndef BPFLAB_AGENT_ATTACH_H
#define BPFLAB_AGENT_ATTACH_H

#include <jansson.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum attach_hook { ATTACH_XDP, ATTACH_TC_INGRESS, ATTACH_TC_EGRESS };
enum attach_mode { ATTACH_NATIVE, ATTACH_GENERIC, ATTACH_OFFLOAD };

/* A port role the job may attach to, resolved by the caller. */
struct attach_port {
	const char *role;
	const char *ifname;
	int ifindex;
};

/* One attachment, readable by the caller after attach_load(). */
struct attach_prog {
	char *subject;			/* program name, or "program@role" */
	char *program;
	char *object;
	char *role;
	char ifname[IF_NAMESIZE];
	int ifindex;
	enum attach_hook hook;
	enum attach_mode mode;
	int prog_fd;			/* owned by the object instance */
	int link_fd;			/* -1 until attach_links() */
};

struct attach_opts {
	size_t sz;
	const json_t *objects;		/* {NAME: {sha256, data}} from the job message, or NULL */
	const char *bpf_dir;		/* where to read objects the message does not carry */
	bool require_sha256;		/* refuse an entry without sha256 */
	const struct attach_port *ports;
	int n_ports;
};
#define attach_opts__last_field n_ports

/* A per-CPU u64 counter the plan exports (attach entry "counters"). */
struct attach_counter {
	char *name;			/* sample subject */
	char *map;
	int map_fd;			/* owned by the object instance */
	uint32_t key;
};

struct attach_set;

/* An empty set. NULL with errno set (ENOMEM). */
struct attach_set *attach_new(void);
/* Detach, unload and free; nulls the caller's pointer. NULL is fine. */
void attach_destroy(struct attach_set **set);

/* Check, open and load the programs of the job spec's ATTACH array. Returns 0 or -errno
 * with a message in ERR; when the kernel refused a program, *VERIFIER_LOG gets its log
 * (heap string, caller frees), else stays NULL. */
int attach_load(struct attach_set *set, const json_t *attach, const struct attach_opts *opts,
		char **verifier_log, char *err, size_t err_len);
/* Attach every loaded program. On failure detaches what it attached and returns -errno
 * with ERR set. */
int attach_links(struct attach_set *set, char *err, size_t err_len);
/* Close every link (the programs stay loaded). Safe to call twice. */
void attach_detach(struct attach_set *set);

/* Number of attach entries, and entry I (NULL when out of range); borrowed, valid until
 * attach_destroy(). */
int attach_count(const struct attach_set *set);
const struct attach_prog *attach_get(const struct attach_set *set, int i);

/* The counters of the variant (all entries), borrowed until attach_destroy(). */
int attach_counter_count(const struct attach_set *set);
const struct attach_counter *attach_counter_get(const struct attach_set *set, int i);
/* Counter I summed over all possible CPUs into *SUM. Returns 0 or -errno. */
int attach_counter_read(struct attach_set *set, int i, uint64_t *sum);

/* Names as plans write them ("tc-ingress", "generic"). */
const char *attach_hook_name(enum attach_hook hook);
const char *attach_mode_name(enum attach_mode mode);

#endif
