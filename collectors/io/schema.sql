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
	kind TEXT NOT NULL,           -- denied, created, deleted, renamed, truncated
	syscall TEXT NOT NULL,
	path TEXT NOT NULL,           -- as the caller gave it (ftruncate: the fd's link)
	new_path TEXT,                -- a rename's new path; NULL otherwise
	flags INTEGER,                -- a denied or creating open's flags, unlinkat's; NULL otherwise
	error INTEGER,                -- a denied open's errno; NULL otherwise
	length INTEGER,               -- a truncation's length; NULL otherwise
	fd INTEGER                    -- ftruncate's fd; NULL otherwise
);

-- --io-files (the eBPF lane): per file (dev, ino), process and operation, each interval
-- with calls; aggregated in the kernel. path is the newest known (see ptop-capture(5)).
CREATE TABLE IF NOT EXISTS io_file (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	file TEXT NOT NULL,           -- the file's identity: 'MAJOR:MINOR:INODE'
	dev INTEGER NOT NULL,         -- st_dev (makedev(major, minor))
	ino INTEGER NOT NULL,
	path TEXT,                    -- the newest path known; NULL when never known
	type TEXT NOT NULL,           -- file, dir, pipe, socket, chr, blk, link, unknown
	op TEXT NOT NULL,             -- read, write, pread64, ..., fsync, io_uring:READ, ...
	calls INTEGER NOT NULL,       -- io_uring: completed requests
	errors INTEGER NOT NULL,      -- returned < 0
	bytes INTEGER NOT NULL,       -- the sum of the returns > 0
	call_ns INTEGER,              -- time in the calls (syscall entry to exit; io_uring: submission
	                              -- to completion); NULL: not measured
	timed INTEGER NOT NULL,       -- the calls whose time was measured
	max_ns INTEGER                -- the longest of them; NULL when none was timed
);

-- io_file's latency histograms: one row per non-zero log2 bucket of a row.
CREATE TABLE IF NOT EXISTS io_file_hist (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the io_file row's
	pid INTEGER,
	file TEXT NOT NULL,
	op TEXT NOT NULL,
	bucket INTEGER NOT NULL,      -- counts [2^bucket, 2^(bucket+1)) ns (31: and longer)
	count INTEGER NOT NULL
);

-- --io-files: the target's io_uring requests by opcode, each interval with some.
CREATE TABLE IF NOT EXISTS io_uring_op (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	pid INTEGER,
	opcode INTEGER NOT NULL,      -- IORING_OP_*
	op TEXT NOT NULL,             -- its name
	submitted INTEGER NOT NULL,
	completed INTEGER NOT NULL,
	errors INTEGER NOT NULL,      -- completions with res < 0
	bytes INTEGER NOT NULL        -- the sum of the completions' res > 0
);

CREATE VIEW IF NOT EXISTS io_files AS
	SELECT c.capture_id, f.*, (f.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM io_file f JOIN capture c USING (cap);
CREATE VIEW IF NOT EXISTS io_events AS
	SELECT c.capture_id, e.*, (e.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM io_event e JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS io_file_time ON io_file (cap, time_ns);
CREATE INDEX IF NOT EXISTS io_file_file ON io_file (cap, file, time_ns);
CREATE INDEX IF NOT EXISTS io_file_hist_time ON io_file_hist (cap, time_ns);
CREATE INDEX IF NOT EXISTS io_uring_op_time ON io_uring_op (cap, time_ns);
CREATE INDEX IF NOT EXISTS io_event_time ON io_event (cap, time_ns);
CREATE INDEX IF NOT EXISTS io_sample_time ON io_sample (cap, time_ns);
