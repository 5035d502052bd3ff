// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* progstats.c - see progstats.h. */
#include "progstats.h"

#include <bpf/bpf.h>
#include <string.h>
#include <unistd.h>

int progstats_enable(void)
{
	/* libbpf 1.x returns -errno itself */
	return bpf_enable_stats(BPF_STATS_RUN_TIME);
}

void progstats_disable(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int progstats_read(int prog_fd, struct progstats *out)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(prog_fd, &info, &len);
	if (err)
		return err;
	out->run_cnt = info.run_cnt;
	out->run_time_ns = info.run_time_ns;
	return 0;
}
