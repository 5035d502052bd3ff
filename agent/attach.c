// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* attach.c - see attach.h: an attach_set's life and the load of a variant (object
 * bytes, one object instance per use, autoload, the verifier log, what each load cost).
 * Map slots and counters are in attach_maps.c, links and tc filters in attach_link.c
 * (attach_int.h). Called by the job runner's thread; one attach_set per job. */
#include "attach.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attach_int.h"
#include "base/log.h"
#include "base/util.h"

#define ATTACH_MAX_OBJECT (64u << 20)

struct attach_set *attach_new(void)
{
	struct attach_set *set = calloc(1, sizeof(*set));
	int n = libbpf_num_possible_cpus();

	if (!set)
		return NULL;
	set->n_cpus = n > 0 ? n : 1;
	set->percpu = calloc(set->n_cpus, sizeof(*set->percpu));
	if (!set->percpu) {
		free(set);
		errno = ENOMEM;
		return NULL;
	}
	return set;
}

void attach_destroy(struct attach_set **setp)
{
	struct attach_set *set = *setp;
	int i;

	if (!set)
		return;
	attach_detach(set);
	for (i = 0; i < set->n; i++) {
		free(set->progs[i].subject);
		free(set->progs[i].program);
		free(set->progs[i].object);
		free(set->progs[i].role);
		free(set->progs[i].stats_log);
	}
	for (i = 0; i < set->n_counters; i++) {
		free(set->counters[i].name);
		free(set->counters[i].map);
	}
	free(set->counters);
	free(set->percpu);
	for (i = 0; i < set->n_insts; i++) {
		bpf_object__close(set->insts[i].obj);
		free(set->insts[i].name);
		free(set->insts[i].log_buf);
	}
	for (i = 0; i < set->n_bytes; i++) {
		free(set->bytes[i].name);
		free(set->bytes[i].data);
	}
	free(set->progs);
	free(set->prog_inst);
	free(set->insts);
	free(set->bytes);
	free(set);
	*setp = NULL;
}

int attach_count(const struct attach_set *set)
{
	return set->n;
}

const struct attach_prog *attach_get(const struct attach_set *set, int i)
{
	return i >= 0 && i < set->n ? &set->progs[i] : NULL;
}

/* The bytes of object NAME: from the job message, else from the BPF directory. */
static int object_bytes(struct attach_set *set, const char *name, const struct attach_opts *o,
			struct attach_bytes **out, struct err *err)
{
	struct attach_bytes *b, *nb;
	json_t *entry = o->objects ? json_object_get(o->objects, name) : NULL;
	char path[PATH_MAX];
	void *data = NULL;
	size_t len = 0;
	int i, e;

	for (i = 0; i < set->n_bytes; i++) {
		if (!strcmp(set->bytes[i].name, name)) {
			*out = &set->bytes[i];
			return 0;
		}
	}
	if (entry) {
		const char *b64 = json_string_value(json_object_get(entry, "data"));
		const char *sha = json_string_value(json_object_get(entry, "sha256"));
		char hex[SHA256_HEX_LEN];

		if (!b64) {
			err_at(err, NULL, 0, 0, "object '%s' in the job message has no data", name);
			return -EINVAL;
		}
		e = util_base64_decode(b64, &data, &len);
		if (e) {
			err_at(err, NULL, 0, 0, "object '%s' in the job message is not base64", name);
			return e;
		}
		util_sha256_hex(data, len, hex);
		if (sha && strcmp(sha, hex)) {
			err_set(err, "object '%s' has sha256 %s, the job message says %s",
				name, hex, sha);
			free(data);
			return -EBADMSG;
		}
	} else {
		char *buf;

		if (strchr(name, '/')) {
			snprintf(path, sizeof(path), "%s", name);
		} else if (o->bpf_dir) {
			snprintf(path, sizeof(path), "%s/%s", o->bpf_dir, name);
		} else {
			err_set(err, "object '%s' is not in the job message and no bpf directory is set",
				name);
			return -ENOENT;
		}
		e = util_read_file(path, ATTACH_MAX_OBJECT, &buf, &len);
		if (e) {
			err_set(err, "cannot read object '%s': %s", path, util_strerror(e));
			return e;
		}
		data = buf;
	}
	nb = realloc(set->bytes, (set->n_bytes + 1) * sizeof(*nb));
	if (!nb) {
		free(data);
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	set->bytes = nb;
	b = &set->bytes[set->n_bytes];
	b->name = strdup(name);
	if (!b->name) {
		free(data);
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	b->data = data;
	b->len = len;
	set->n_bytes++;
	*out = b;
	return 0;
}

/* Check entry I of the attach array, A (decoded: jobspec.h), against this host and the
 * job's ports, into set->progs[I]. */
static int parse_entry(struct attach_set *set, int i, const struct job_attach *a,
		       const struct attach_opts *o, struct err *err)
{
	struct attach_prog *p = &set->progs[i];
	const char *port = a->port, *want = a->sha256;
	struct attach_bytes *bytes;
	char hex[SHA256_HEX_LEN];
	int j, e;

	p->hook = a->hook;
	p->mode = a->mode;
	p->mode_used = a->mode;		/* auto: native or generic once attached */
	if (p->hook == JOB_HOOK_XDP && p->mode == JOB_XDP_OFFLOAD) {
		err_at(err, NULL, 0, 0, "xdp mode 'offload' is not supported yet");
		return -EOPNOTSUPP;
	}
	p->tc_mode = a->tc_mode;
	p->ifindex = 0;
	for (j = 0; j < o->n_ports; j++) {
		if (!strcmp(o->ports[j].role, port)) {
			p->ifindex = o->ports[j].ifindex;
			snprintf(p->ifname, sizeof(p->ifname), "%s",
				 o->ports[j].ifname ? o->ports[j].ifname : "?");
		}
	}
	if (p->ifindex <= 0) {
		err_at(err, NULL, 0, 0, "port role '%s' is not one of the job's ports", port);
		return -ENODEV;
	}
	p->program = strdup(a->program);
	p->object = strdup(a->object);
	p->role = strdup(port);
	if (!p->program || !p->object || !p->role) {
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	if (!want && o->require_sha256) {
		err_at(err, NULL, 0, 0, "attach entry %d ('%s') has no sha256", i, a->object);
		return -EINVAL;
	}
	e = object_bytes(set, a->object, o, &bytes, err);
	if (e)
		return e;
	if (want) {
		util_sha256_hex(bytes->data, bytes->len, hex);
		if (strcmp(hex, want)) {
			err_set(err, "object '%s' has sha256 %s, the job wants %s",
				a->object, hex, want);
			return -EBADMSG;
		}
	}
	return 0;
}

/* Give every prog its object instance (see attach.h) and its subject. */
static int plan_instances(struct attach_set *set, struct err *err)
{
	int i, j;

	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];
		int uses = 0, names = 0, k = -1;

		for (j = 0; j < set->n; j++) {
			if (!strcmp(set->progs[j].program, p->program))
				names++;
			if (j < i && !strcmp(set->progs[j].program, p->program) &&
			    !strcmp(set->progs[j].object, p->object))
				uses++;
		}
		for (j = 0; j < set->n_insts; j++) {
			if (!strcmp(set->insts[j].name, p->object) && set->insts[j].instance == uses)
				k = j;
		}
		if (k < 0) {
			struct attach_inst *ni;

			ni = realloc(set->insts, (set->n_insts + 1) * sizeof(*ni));
			if (!ni)
				goto nomem;
			set->insts = ni;
			k = set->n_insts;
			memset(&ni[k], 0, sizeof(ni[k]));
			ni[k].name = strdup(p->object);
			ni[k].instance = uses;
			set->n_insts++;
			if (!ni[k].name)
				goto nomem;
		}
		set->prog_inst[i] = k;
		if (names > 1) {
			if (asprintf(&p->subject, "%s@%s", p->program, p->role) < 0)
				p->subject = NULL;
		} else {
			p->subject = strdup(p->program);
		}
		if (!p->subject)
			goto nomem;
	}
	return 0;
nomem:
	err_set(err, "out of memory");
	return -ENOMEM;
}

static const char *prog_type_want(enum job_hook hook)
{
	return hook == JOB_HOOK_XDP ? "an xdp" : "a tc (sched_cls)";
}

/* Turn autoload on for the programs that ENTRY's map slots name (devmap and cpumap
 * programs: loaded, never attached). libbpf takes their expected attach type
 * (BPF_XDP_DEVMAP, BPF_XDP_CPUMAP) from the section name, SEC("xdp/devmap") or
 * SEC("xdp/cpumap"); a program without one is loaded as a plain XDP program and the
 * kernel refuses it when the slot is filled. */
static int autoload_slot_programs(struct attach_inst *in, const struct job_attach *a,
				  struct err *err)
{
	int m, j;

	for (m = 0; m < a->n_maps; m++) {
		const char *map = a->maps[m].name;

		for (j = 0; j < a->maps[m].n_slots; j++) {
			const char *name = a->maps[m].slots[j].program;
			struct bpf_program *prog;

			if (!name)
				continue;
			prog = bpf_object__find_program_by_name(in->obj, name);
			if (!prog) {
				err_at(err, NULL, 0, 0, "map '%s': object '%s' has no program '%s'", map,
				       in->name, name);
				return -ENOENT;
			}
			if (bpf_program__type(prog) != BPF_PROG_TYPE_XDP) {
				err_at(err, NULL, 0, 0, "map '%s': program '%s' in '%s' is not an xdp program",
				       map, name, in->name);
				return -EINVAL;
			}
			bpf_program__set_autoload(prog, true);
		}
	}
	return 0;
}

/* What the kernel says of loaded program P (bpf_prog_info) and, when it was loaded with
 * a stats log, the log's summary. A kernel that will not say leaves has_info false. */
static void prog_figures(struct attach_prog *p)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (p->prog_fd >= 0 && !bpf_obj_get_info_by_fd(p->prog_fd, &info, &len)) {
		p->has_info = true;
		/* a kernel before 5.16 returns a shorter info: verified_insns stays 0 */
		p->verified_insns = len > offsetof(struct bpf_prog_info, verified_insns) ?
				    info.verified_insns : 0;
		p->jited_bytes = info.jited_prog_len;
		p->xlated_insns = info.xlated_prog_len / 8;
	} else {
		pr_warn("cannot read the bpf_prog_info of '%s': %s", p->program, strerror(errno));
	}
	if (p->stats_log && verifier_log_parse(p->stats_log, ATTACH_STATS_LOG_SIZE, &p->stats))
		pr_warn("the verifier log of '%s' has no 'processed N insns' line", p->program);
	free(p->stats_log);
	p->stats_log = NULL;
}

/* ERR's message (the load's error) followed by the last lines of the verifier log LOG,
 * when there is room for them. */
static void add_log_tail(struct err *err, const char *log)
{
	char tail[512];
	size_t n = err ? strlen(err->msg) : 0;

	if (!err || !log[0] || n + 16 >= sizeof(err->msg))
		return;
	if (verifier_log_tail(log, ATTACH_LOG_SIZE, 3, tail, sizeof(tail)))
		snprintf(err->msg + n, sizeof(err->msg) - n, " (verifier: %s)", tail);
}

/* Open instance K, set autoload and attach types (and, with STATS, a stats log per
 * program), load. A refusal under STATS is loaded again without, for the reason: a
 * stats-only log has none. */
static int load_instance(struct attach_set *set, int k, bool stats, char **verifier_log,
			 struct err *err)
{
	struct attach_inst *in = &set->insts[k];
	struct attach_bytes *bytes = NULL;
	struct bpf_program *prog;
	const char *base;
	int i, e;

	for (i = 0; i < set->n_bytes; i++) {
		if (!strcmp(set->bytes[i].name, in->name))
			bytes = &set->bytes[i];
	}
	if (!bytes) {
		err_set(err, "object '%s' has no bytes", in->name);
		return -EINVAL;
	}
	in->log_buf = calloc(1, ATTACH_LOG_SIZE);
	if (!in->log_buf) {
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	base = strrchr(in->name, '/') ? strrchr(in->name, '/') + 1 : in->name;
	{
		LIBBPF_OPTS(bpf_object_open_opts, oo,
			.object_name = base,
			.kernel_log_buf = in->log_buf,
			.kernel_log_size = ATTACH_LOG_SIZE,
			.kernel_log_level = 0,	/* libbpf retries with level 1 on failure */
		);

		in->obj = bpf_object__open_mem(bytes->data, bytes->len, &oo);
	}
	if (!in->obj) {
		e = -errno;
		in->obj = NULL;
		err_set(err, "cannot open object '%s': %s", in->name, strerror(-e));
		return e;
	}
	bpf_object__for_each_program(prog, in->obj)
		bpf_program__set_autoload(prog, false);
	for (i = 0; i < set->n; i++) {
		struct attach_prog *p = &set->progs[i];
		enum bpf_prog_type type;

		if (set->prog_inst[i] != k)
			continue;
		prog = bpf_object__find_program_by_name(in->obj, p->program);
		if (!prog) {
			err_at(err, NULL, 0, 0, "object '%s' has no program '%s'", in->name,
			       p->program);
			return -ENOENT;
		}
		type = bpf_program__type(prog);
		if (p->hook != JOB_HOOK_XDP && type == BPF_PROG_TYPE_UNSPEC) {
			/* a section name libbpf 1.1 does not know, such as "tcx/ingress" */
			bpf_program__set_type(prog, BPF_PROG_TYPE_SCHED_CLS);
			type = BPF_PROG_TYPE_SCHED_CLS;
		}
		if ((p->hook == JOB_HOOK_XDP && type != BPF_PROG_TYPE_XDP) ||
		    (p->hook != JOB_HOOK_XDP && type != BPF_PROG_TYPE_SCHED_CLS)) {
			err_at(err, NULL, 0, 0, "program '%s' in '%s' is not %s program",
			       p->program, in->name, prog_type_want(p->hook));
			return -EINVAL;
		}
		if (p->hook == JOB_HOOK_TC_INGRESS)
			bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)ATTACH_BPF_TCX_INGRESS);
		else if (p->hook == JOB_HOOK_TC_EGRESS)
			bpf_program__set_expected_attach_type(
				prog, (enum bpf_attach_type)ATTACH_BPF_TCX_EGRESS);
		bpf_program__set_autoload(prog, true);
		if (stats) {
			p->stats_log = calloc(1, ATTACH_STATS_LOG_SIZE);
			if (!p->stats_log) {
				err_set(err, "out of memory");
				return -ENOMEM;
			}
			bpf_program__set_log_buf(prog, p->stats_log, ATTACH_STATS_LOG_SIZE);
			bpf_program__set_log_level(prog, VERIFIER_LOG_STATS);
		}
		e = autoload_slot_programs(in, &set->entries[i], err);
		if (e)
			return e;
	}
	e = bpf_object__load(in->obj);
	if (e && stats) {
		for (i = 0; i < set->n; i++) {
			free(set->progs[i].stats_log);
			set->progs[i].stats_log = NULL;
		}
		bpf_object__close(in->obj);
		in->obj = NULL;
		free(in->log_buf);
		in->log_buf = NULL;
		return load_instance(set, k, false, verifier_log, err);
	}
	if (e) {
		const char *failed = NULL;

		for (i = 0; i < set->n; i++) {
			prog = set->prog_inst[i] == k ?
				bpf_object__find_program_by_name(in->obj, set->progs[i].program) :
				NULL;
			if (prog && bpf_program__fd(prog) < 0) {
				failed = set->progs[i].program;
				break;
			}
		}
		if (failed)
			err_set(err, "cannot load program '%s' of object '%s': %s", failed,
				in->name, strerror(-e));
		else
			err_set(err, "cannot load object '%s': %s", in->name, strerror(-e));
		add_log_tail(err, in->log_buf);
		if (in->log_buf[0] && verifier_log)
			*verifier_log = strdup(in->log_buf);
		return e;
	}
	for (i = 0; i < set->n; i++) {
		if (set->prog_inst[i] != k)
			continue;
		prog = bpf_object__find_program_by_name(in->obj, set->progs[i].program);
		set->progs[i].prog_fd = bpf_program__fd(prog);
		prog_figures(&set->progs[i]);
	}
	/* the log buffer is only needed while loading */
	free(in->log_buf);
	in->log_buf = NULL;
	return 0;
}

/* attach_load_spec() while set->entries is ATTACH. */
static int load_entries(struct attach_set *set, int n, const struct attach_opts *opts,
			char **verifier_log, struct err *err)
{
	int i, e;

	set->progs = calloc(n, sizeof(*set->progs));
	set->prog_inst = calloc(n, sizeof(*set->prog_inst));
	if (!set->progs || !set->prog_inst) {
		err_set(err, "out of memory");
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		set->progs[i].link_fd = -1;
		set->progs[i].prog_fd = -1;
	}
	set->n = n;
	for (i = 0; i < n; i++) {
		e = parse_entry(set, i, &set->entries[i], opts, err);
		if (e)
			return e;
	}
	e = plan_instances(set, err);
	if (e)
		return e;
	for (i = 0; i < set->n_insts; i++) {
		e = load_instance(set, i, opts->verifier_stats, verifier_log, err);
		if (e)
			return e;
	}
	for (i = 0; i < set->n; i++) {
		e = attach_fill_maps(set, i, opts, err);
		if (!e)
			e = attach_add_counters(set, i, err);
		if (e)
			return e;
	}
	return 0;
}

int attach_load_spec(struct attach_set *set, const struct job_attach *attach, int n,
		     const struct attach_opts *opts, char **verifier_log, struct err *err)
{
	int e;

	if (verifier_log)
		*verifier_log = NULL;
	if (set->n) {
		err_set(err, "attach set already loaded");
		return -EALREADY;
	}
	if (!n)
		return 0;
	set->entries = attach;
	e = load_entries(set, n, opts, verifier_log, err);
	set->entries = NULL;
	return e;
}

int attach_load(struct attach_set *set, const json_t *attach, const struct attach_opts *opts,
		char **verifier_log, struct err *err)
{
	struct job_attach *entries;
	int n, e;

	if (verifier_log)
		*verifier_log = NULL;
	if (!json_is_array(attach))
		return err_at(err, NULL, 0, 0, "job spec has no attach array");
	e = jobspec_decode_attach(attach, &entries, &n, err);
	if (e) {
		if (err)
			err->input = e == -EINVAL;	/* the entries are wrong, not this host */
		return e;
	}
	e = attach_load_spec(set, entries, n, opts, verifier_log, err);
	jobspec_attach_free(entries, n);
	return e;
}
