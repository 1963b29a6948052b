-- schema.sql — the mark collector's table: mark_sample, one row per mark per interval.
--
-- collectors/mark/load.c fills it from MarkSample payloads. A mark is a function of the
-- target whose calls ptop-record --mark NAME=FUNC counted: a unit of work.

CREATE TABLE IF NOT EXISTS mark_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval (CLOCK_MONOTONIC ns)
	interval_ns INTEGER,          -- its length; NULL when unknown
	pid INTEGER,
	name TEXT NOT NULL,           -- the mark's NAME
	function TEXT,                -- the function counted
	count INTEGER NOT NULL,       -- its calls over the interval
	total INTEGER NOT NULL        -- its calls since the recording started
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS mark_sample_time ON mark_sample (cap, name, time_ns);
