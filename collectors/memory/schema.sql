-- schema.sql — the memory collector's tables, views and indexes: memory_sample,
-- one row per interval, and the view memory.
--
-- collectors/memory/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

CREATE TABLE IF NOT EXISTS memory_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	pid INTEGER,
	vsize INTEGER,                -- statm group (bytes); NULL if unread
	statm_rss INTEGER,
	statm_shared INTEGER,
	statm_text INTEGER,
	statm_data INTEGER,
	rss INTEGER,                  -- smaps_rollup group (bytes); NULL if unread
	pss INTEGER,
	uss INTEGER,
	pss_anon INTEGER,
	pss_file INTEGER,
	pss_shmem INTEGER,
	shared_clean INTEGER,
	shared_dirty INTEGER,
	private_clean INTEGER,
	private_dirty INTEGER,
	anon INTEGER,
	swap INTEGER,
	swap_pss INTEGER,
	locked INTEGER,
	rollup_read_ns INTEGER,
	minflt INTEGER,               -- stat group: deltas and totals; NULL if unread
	majflt INTEGER,
	minflt_total INTEGER,
	majflt_total INTEGER,
	smaps_budget_ns INTEGER,      -- smaps budget group: NULL when no budget applied
	smaps_spent_ns INTEGER,       -- time spent reading smaps files in the interval
	rollup_skipped INTEGER,       -- 1: smaps_rollup not read (budget spent); its columns NULL
	probe_rss INTEGER,            -- ptop's own mappings in the target (the preload memfd),
	probe_pss INTEGER,            -- already out of rss..private_dirty; NULL: none mapped
	probe_uss INTEGER             -- (or a capture from before they were measured apart)
);

-- The view with capture_id and t_s: seconds since the capture started.
CREATE VIEW IF NOT EXISTS memory AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM memory_sample s JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS memory_sample_time ON memory_sample (cap, time_ns);
