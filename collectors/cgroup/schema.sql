-- schema.sql — the cgroup collector's tables and indexes: cgroup_sample,
-- cgroup_stat, cgroup_psi and cgroup_proc.
--
-- collectors/cgroup/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

-- The cgroup collector (--cgroup): one row per interval.
CREATE TABLE IF NOT EXISTS cgroup_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- 0, 1, 2... in file order; cgroup_stat/_psi/_proc refer to it
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	path TEXT,                    -- the cgroup, root-relative
	lane TEXT,                    -- v2 | v1: which memory controller was read; NULL: none
	v1_path TEXT,                 -- the v1 memory cgroup read (v1 lane)
	current INTEGER,              -- v2 memory.current / v1 memory.usage_in_bytes
	limit_bytes INTEGER,          -- v2 memory.max / v1 memory.limit_in_bytes; NULL: no limit
	peak INTEGER,                 -- v2 memory.peak / v1 memory.max_usage_in_bytes; NULL: unknown
	oom_delta INTEGER,            -- v2 memory.events oom over the interval; NULL on v1
	oom_kill_delta INTEGER,       -- v2 memory.events / v1 memory.oom_control oom_kill
	oom_kill_total INTEGER,
	high_delta INTEGER,           -- v2 memory.events high; NULL on v1
	max_delta INTEGER,            -- v2 memory.events max; NULL on v1
	failcnt_delta INTEGER,        -- v1 memory.failcnt over the interval; NULL on v2
	under_oom INTEGER,            -- v1 memory.oom_control; NULL on v2
	processes INTEGER,            -- coverage of the per-process table
	covered INTEGER,
	denied INTEGER,
	gone INTEGER,
	skipped INTEGER,
	walk_ns INTEGER,
	budget_ns INTEGER,
	PRIMARY KEY (cap, seq)
);

CREATE TABLE IF NOT EXISTS cgroup_stat (   -- memory.stat, one row per key
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,
	key TEXT NOT NULL,
	value INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS cgroup_psi (    -- RESOURCE.pressure, one row per line
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,
	resource TEXT NOT NULL,       -- memory | cpu | io
	kind TEXT NOT NULL,           -- some | full
	avg10 REAL,
	avg60 REAL,
	avg300 REAL,
	total_us INTEGER,
	total_delta_us INTEGER
);

CREATE TABLE IF NOT EXISTS cgroup_proc (   -- the processes in the subtree, each interval
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,
	pid INTEGER NOT NULL,         -- root-namespace pid
	comm TEXT,
	exe TEXT,
	unit TEXT,                    -- systemd unit (app-*.scope...); NULL if none
	cgroup_path TEXT,
	state TEXT NOT NULL,          -- covered | denied | gone | skipped
	rss INTEGER,                  -- NULL unless covered
	pss INTEGER,
	uss INTEGER,
	swap INTEGER,
	read_ns INTEGER
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS cgroup_stat_seq ON cgroup_stat (cap, seq);
CREATE INDEX IF NOT EXISTS cgroup_psi_seq ON cgroup_psi (cap, seq);
CREATE INDEX IF NOT EXISTS cgroup_proc_seq ON cgroup_proc (cap, seq);
