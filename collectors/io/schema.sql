-- schema.sql — the io collector's table: io_sample, the change of the target's I/O
-- counters over each interval (/proc/PID/io and /proc/PID/stat field 42).
--
-- collectors/io/load.c fills it. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS io_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	rchar INTEGER NOT NULL,       -- bytes read by read-like syscalls (page cache hits too)
	wchar INTEGER NOT NULL,       -- bytes written by write-like syscalls
	syscr INTEGER NOT NULL,       -- read syscalls
	syscw INTEGER NOT NULL,       -- write syscalls
	read_bytes INTEGER NOT NULL,  -- bytes fetched from storage for it
	write_bytes INTEGER NOT NULL, -- bytes it sent towards storage
	cancelled_write_bytes INTEGER NOT NULL, -- of those, dirty pages truncated away
	iowait_ns INTEGER             -- block I/O delay; NULL when not measured
);

-- --io-events (the eBPF lane): the target's file-system events, one row each.
CREATE TABLE IF NOT EXISTS io_event (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the syscall's exit
	pid INTEGER,
	tid INTEGER,
	kind TEXT NOT NULL,           -- denied, deleted, renamed, truncated
	syscall TEXT NOT NULL,
	path TEXT NOT NULL,           -- as the caller gave it (ftruncate: the fd's link)
	new_path TEXT,                -- a rename's new path; NULL otherwise
	flags INTEGER,                -- a denied open's flags, unlinkat's; NULL otherwise
	error INTEGER,                -- a denied open's errno; NULL otherwise
	length INTEGER,               -- a truncation's length; NULL otherwise
	fd INTEGER                    -- ftruncate's fd; NULL otherwise
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS io_event_time ON io_event (cap, time_ns);
CREATE INDEX IF NOT EXISTS io_sample_time ON io_sample (cap, time_ns);
