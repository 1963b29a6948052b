-- schema.sql — the heap collector's tables and indexes (the goalloc collector's Go
-- lane writes heap snapshots too): heap_snapshot, heap_site and heap_event.
--
-- collectors/heap/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

-- The heap profile (collector heap): one row per interval (HeapSnapshot).
-- When live_measured is 0 (the Go lane) the live, leak and lifetime columns
-- are NULL: not measured, never 0.
CREATE TABLE IF NOT EXISTS heap_snapshot (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- 0, 1, 2... in file order; heap_site refers to it
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,                  -- NULL on a cgroup aggregate
	lane TEXT,                    -- uprobe | preload | go
	module TEXT,                  -- the allocator module probed
	sample_bytes INTEGER NOT NULL, -- mean bytes between stack samples; 0: every allocation
	live_measured INTEGER NOT NULL, -- 0: live/leak/lifetime columns are NULL (not measured)
	alloc_count INTEGER NOT NULL, -- exact, over the interval
	alloc_bytes INTEGER NOT NULL,
	free_count INTEGER,           -- NULL when not live_measured
	free_bytes INTEGER,
	live_bytes INTEGER,           -- state at the end of the interval; NULL when not measured
	live_count INTEGER,
	leak_bytes INTEGER,           -- live bytes in allocations older than leak_age_ns
	leak_count INTEGER,
	leak_age_ns INTEGER,          -- --leak-age
	sites INTEGER NOT NULL,       -- heap_site rows of the interval (the list's length)
	total_call_sites INTEGER NOT NULL, -- distinct sites before the cut
	omitted_alloc_count INTEGER NOT NULL, -- what the sites left out carried
	omitted_alloc_bytes INTEGER NOT NULL,
	omitted_live_bytes INTEGER,   -- NULL when not measured
	live_untracked INTEGER,       -- allocations not tracked (live map full); NULL when not measured
	stack_failures INTEGER NOT NULL, -- sampled allocations whose stack could not be taken
	free_untracked INTEGER,       -- frees of pointers not in the live set (allocated before the
	                              -- probes attached, or not tracked); NULL when not measured
	peak_live_bytes INTEGER,      -- the most live bytes at any moment so far (every tracked
	                              -- allocation and free); NULL: not measured (Go lane, old)
	peak_time_ns INTEGER,         -- when (monotonic); NULL: not measured
	peak_sites_live_bytes INTEGER, -- live total where heap_peak_site rows of this seq were
	peak_sites_time_ns INTEGER,   -- taken, and when; NULL: none taken in this interval
	temporary_count INTEGER,      -- allocations freed before their thread's next allocation
	                              -- or free, over the interval (exact); NULL: not measured
	user_stacks TEXT,             -- uprobe lane: fp | dwarf, how its stacks were taken; NULL:
	                              -- another lane, or a capture from before --user-stacks
	PRIMARY KEY (cap, seq)
);

-- One call site (a user stack) in one interval: allocations over the interval,
-- live figures at its end (NULL when the snapshot is not live_measured).
CREATE TABLE IF NOT EXISTS heap_site (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- heap_snapshot.seq
	stack_id INTEGER,             -- stack.stack_id; NULL: no stack
	alloc_count INTEGER NOT NULL, -- estimated when sample_bytes > 0
	alloc_bytes INTEGER NOT NULL,
	live_count INTEGER,
	live_bytes INTEGER,
	freed_count INTEGER,          -- frees in the interval of this site's allocations
	lifetime_ns_sum INTEGER,      -- their summed lifetime: mean = sum / freed_count
	oldest_live_ns INTEGER,       -- monotonic time of the oldest live allocation; NULL: none
	temporary_count INTEGER       -- temporaries of this site in the interval (estimated when
	                              -- sample_bytes > 0); NULL: not measured
);

-- The sites holding the most live bytes at the heap's peak (heap_snapshot.peak_sites_*):
-- written by the interval that moved the peak's mark; the last such seq is the peak's.
CREATE TABLE IF NOT EXISTS heap_peak_site (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- heap_snapshot.seq
	stack_id INTEGER,             -- stack.stack_id; NULL: no stack
	live_count INTEGER NOT NULL,  -- at the mark (estimated when sample_bytes > 0)
	live_bytes INTEGER NOT NULL
);

-- --heap-events: one sampled allocation or free.
CREATE TABLE IF NOT EXISTS heap_event (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	tid INTEGER,
	kind TEXT,                    -- alloc | free; NULL when unspecified
	address INTEGER NOT NULL,
	size INTEGER NOT NULL,
	stack_id INTEGER,             -- the allocation's stack; NULL: none taken
	function TEXT                 -- malloc | calloc | realloc | ...
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS heap_snapshot_time ON heap_snapshot (cap, time_ns);
CREATE INDEX IF NOT EXISTS heap_site_seq ON heap_site (cap, seq);
CREATE INDEX IF NOT EXISTS heap_site_stack ON heap_site (cap, stack_id);
CREATE INDEX IF NOT EXISTS heap_peak_site_seq ON heap_peak_site (cap, seq);
CREATE INDEX IF NOT EXISTS heap_event_time ON heap_event (cap, time_ns);
