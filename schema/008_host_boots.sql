-- 008_host_boots.sql - kernel switches through the hosts' kernel providers
-- (docs/protocol.md, "Kernel providers"; coordinator/boot.c, lib/store/store_boot.c). One row
-- per switch the coordinator asked an agent for (`bpflab host boot HOST KERNEL`): it is
-- 'booting' until the host's hello with the new kernel ('done'), a hello with another
-- kernel ('mismatch'), the provider's failure or no hello within the coordinator's
-- timeout ('failed'). At most one switch per host is open. A coordinator that starts
-- reads the latest switch of each host back, so that one restarted in the middle of a
-- switch still holds back dispatch to that host and ends the switch at its hello or at
-- the timeout, counted from started_ms.

CREATE TABLE host_boots (
	id             INTEGER PRIMARY KEY,
	host_id        INTEGER NOT NULL REFERENCES hosts (id),
	kernel         TEXT NOT NULL,              -- the release asked for
	from_kernel    TEXT NOT NULL,              -- the release the host ran when asked
	state          TEXT NOT NULL DEFAULT 'booting'
	               CHECK (state IN ('booting', 'done', 'failed', 'mismatch')),
	error          TEXT,                       -- why it failed or mismatched
	started_ms     INTEGER NOT NULL,
	ended_ms       INTEGER
);
CREATE UNIQUE INDEX host_boots_open ON host_boots (host_id) WHERE state = 'booting';
CREATE INDEX host_boots_host ON host_boots (host_id, id);
