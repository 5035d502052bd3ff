-- 006_links.sql - the lab's wiring as `bpflab link discover` found it (docs/protocol.md,
-- "Links"): one row per pair of ports of two different hosts that received each other's
-- probe frames. A discovery replaces all rows in one transaction. Each link is stored
-- once, its lower (host id, port role) end as host_a/port_a.
CREATE TABLE links (
	id             INTEGER PRIMARY KEY,
	host_a         INTEGER NOT NULL REFERENCES hosts (id),
	port_a         TEXT NOT NULL,
	host_b         INTEGER NOT NULL REFERENCES hosts (id),
	port_b         TEXT NOT NULL,
	discovered_ms  INTEGER NOT NULL,
	UNIQUE (host_a, port_a, host_b, port_b)
);
