-- schema.sql — the SQLite schema ptop-analyze loads captures into. Version 4.
--
-- The loader sets PRAGMA user_version = 4 and refuses a DB of another version.
-- Many captures share one DB. A capture is named by capture_id (32 hex
-- digits) in the capture table; every other row references it by cap, the
-- capture's small integer key (capture.cap), so rows and indexes stay small.
-- The views cpu, syscalls and memory carry capture_id too.
-- Times are CLOCK_MONOTONIC nanoseconds as recorded (*_ns); the views add t_s,
-- seconds since the capture started. A NULL is "not measured", never 0.
-- Every table and column is documented in man/ptop-capture.5.
--
-- The part after the line "-- @@ indexes @@" runs after the data is loaded.

CREATE TABLE IF NOT EXISTS capture (
	cap INTEGER PRIMARY KEY AUTOINCREMENT, -- the key other tables reference; never reused
	capture_id TEXT NOT NULL UNIQUE,
	format_version INTEGER NOT NULL,
	recorder_version TEXT,
	recorder_commit TEXT,
	recorder_build_date TEXT,
	hostname TEXT,
	kernel_release TEXT,
	kernel_version TEXT,
	boot_id TEXT,
	machine TEXT,
	cpus INTEGER,
	page_size INTEGER,
	clock_tick INTEGER,
	start_monotonic_ns INTEGER,   -- the clocks read together at the start
	start_realtime_ns INTEGER,
	start_boottime_ns INTEGER,
	recorder_argv TEXT,           -- JSON array
	interval_ns INTEGER,
	vma_interval_ns INTEGER,
	flush_interval_ns INTEGER,
	duration_ns INTEGER,
	no_ebpf INTEGER,
	disabled TEXT,                -- JSON array of --disable names
	first_event_ns INTEGER,       -- NULL if the capture holds no event
	last_event_ns INTEGER,
	complete INTEGER NOT NULL,    -- 1: ended with a trailer, read cleanly
	read_end TEXT NOT NULL,       -- clean | truncated | corrupt | io
	read_stopped_at INTEGER,      -- byte where reading stopped, if not clean
	read_message TEXT,
	has_index INTEGER,
	frames INTEGER,
	records INTEGER,              -- records read from the file
	end_reason TEXT,              -- from the trailer: target_exit | signal | duration | error | salvaged
	end_time_ns INTEGER,
	end_signal INTEGER,
	end_error TEXT,
	salvaged INTEGER,
	target_exited INTEGER,        -- NULL when the target did not exit during recording
	target_exit_code INTEGER,
	target_term_signal INTEGER,
	target_core_dumped INTEGER,
	target_status_known INTEGER,
	source_path TEXT,             -- the .ptop file loaded, its size and mtime
	source_size INTEGER,
	source_mtime_ns INTEGER,
	loaded_at TEXT,
	trailer_records INTEGER,      -- records the writer counted before the trailer
	trailer_events INTEGER        -- events among them; both NULL without a trailer
);

CREATE TABLE IF NOT EXISTS target (
	cap INTEGER PRIMARY KEY REFERENCES capture(cap),
	mode TEXT NOT NULL,           -- pid | cgroup | command
	pid INTEGER,
	comm TEXT,
	exe TEXT,
	exe_build_id TEXT,            -- hex; NULL when the executable has none
	exe_build_id_kind TEXT,       -- gnu | go; NULL with exe_build_id
	cmdline TEXT,                 -- JSON array
	cgroup_path TEXT,
	cgroup_id INTEGER,
	container_id TEXT
);

CREATE TABLE IF NOT EXISTS probe (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- order in the probe set
	name TEXT NOT NULL,
	state TEXT NOT NULL,          -- active | disabled | failed | unsupported
	source TEXT,                  -- ebpf | proc | preload
	reason TEXT,
	detail TEXT,
	PRIMARY KEY (cap, name)
);

-- A probe that changed during the recording (ProbeChange): the header's probe row is
-- the state at the start; each change holds from its time_ns on, in seq order.
CREATE TABLE IF NOT EXISTS probe_change (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- order in the capture
	time_ns INTEGER NOT NULL,
	name TEXT NOT NULL,
	state TEXT NOT NULL,          -- active | disabled | failed | unsupported
	source TEXT,                  -- ebpf | proc | preload
	reason TEXT,
	detail TEXT,
	cause TEXT,                   -- "exec /usr/bin/prog"
	PRIMARY KEY (cap, seq)
);

CREATE TABLE IF NOT EXISTS record_count (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	kind TEXT NOT NULL,           -- header | event:cpu | event:syscalls | stack | drop ...
	count INTEGER NOT NULL,
	PRIMARY KEY (cap, kind)
);

CREATE TABLE IF NOT EXISTS cpu_sample (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,
	oncpu_ns INTEGER,             -- eBPF lane (sched_switch); NULL if it did not run
	switches INTEGER,
	user_ns INTEGER,              -- /proc lane (utime/stime deltas); NULL if unread
	system_ns INTEGER,
	threads INTEGER,
	voluntary_switches INTEGER,
	involuntary_switches INTEGER,
	user_ticks_total INTEGER,     -- cumulative utime/stime, clock ticks; NULL if unread
	system_ticks_total INTEGER,
	cg_usage_ns INTEGER,          -- cgroup lane (cpu.stat deltas, cgroup mode); NULL if unread
	cg_user_ns INTEGER,
	cg_system_ns INTEGER,
	cg_periods INTEGER,           -- cpu.max enforcement: NULL unless the v2 cpu controller
	cg_throttled_periods INTEGER, -- is enabled for the cgroup
	cg_throttled_ns INTEGER
);

CREATE TABLE IF NOT EXISTS syscall_stat (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	pid INTEGER,
	nr INTEGER NOT NULL,
	name TEXT NOT NULL,
	count INTEGER NOT NULL,       -- entries in the interval
	completed INTEGER NOT NULL,   -- exits (latency measured)
	errors INTEGER NOT NULL,
	total_ns INTEGER NOT NULL,    -- summed latency of completed calls
	unmatched INTEGER,            -- exits with no entry stamp (no latency)
	latency_hist TEXT             -- JSON array: element i counts latencies in [2^i, 2^(i+1)) ns,
	                              -- trailing zeros cut; NULL: no bucket counted (see syscall_hist)
);

-- The latency histograms as rows: one per non-zero bucket of a syscall_stat row.
-- They are stored in syscall_stat.latency_hist (one row per syscall and interval
-- instead of one per bucket: a sixth of the rows, no index of their own).
CREATE VIEW IF NOT EXISTS syscall_hist (cap, time_ns, pid, nr, bucket, count) AS
	SELECT s.cap, s.time_ns, s.pid, s.nr, j.key, j.value
	FROM syscall_stat s, json_each(s.latency_hist) j
	WHERE j.value != 0;

-- INSERT INTO syscall_hist adds COUNT to bucket BUCKET of the syscall_stat row(s)
-- with the same cap, time_ns, pid and nr, which must be inserted first.
CREATE TRIGGER IF NOT EXISTS syscall_hist_insert INSTEAD OF INSERT ON syscall_hist
BEGIN
	SELECT RAISE(ABORT, 'syscall_hist: bucket must be 0 to 63')
	WHERE NEW.bucket IS NULL OR NEW.bucket < 0 OR NEW.bucket > 63;
	SELECT RAISE(ABORT, 'syscall_hist: insert the syscall_stat row (cap, time_ns, pid, nr) first')
	WHERE NOT EXISTS (SELECT 1 FROM syscall_stat WHERE cap = NEW.cap AND
			  time_ns = NEW.time_ns AND pid IS NEW.pid AND nr = NEW.nr);
	UPDATE syscall_stat SET latency_hist = CASE
		WHEN NEW.bucket < json_array_length(coalesce(latency_hist, '[]'))
		THEN json_replace(latency_hist, '$[' || NEW.bucket || ']',
				  json_extract(latency_hist, '$[' || NEW.bucket || ']') + NEW.count)
		ELSE '[' || substr(coalesce(latency_hist, '[]'), 2,
				   length(coalesce(latency_hist, '[]')) - 2) ||
		     CASE WHEN json_array_length(coalesce(latency_hist, '[]')) > 0 THEN ',' ELSE '' END ||
		     replace(hex(zeroblob(NEW.bucket - json_array_length(coalesce(latency_hist, '[]')))),
			     '00', '0,') || NEW.count || ']'
		END
	WHERE cap = NEW.cap AND time_ns = NEW.time_ns AND pid IS NEW.pid AND nr = NEW.nr;
END;

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
	rollup_skipped INTEGER        -- 1: smaps_rollup not read (budget spent); its columns NULL
);

CREATE TABLE IF NOT EXISTS vma_snapshot (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	snapshot_id INTEGER NOT NULL, -- 0, 1, 2... in time order
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	walk_ns INTEGER,
	final INTEGER,
	vma_count INTEGER,
	budget_ns INTEGER,            -- --smaps-budget in force; NULL: none
	skipped_walks INTEGER,        -- walks due since the previous snapshot the budget skipped
	PRIMARY KEY (cap, snapshot_id)
);

-- The VMAs of each snapshot: vma_entry holds the per-VMA figures and points to
-- the (perms, dev, inode, path) they share in vma_file; the view vma joins them.
CREATE TABLE IF NOT EXISTS vma_file (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	file_id INTEGER NOT NULL,     -- 1, 2, 3... per capture
	perms TEXT,
	dev TEXT,
	inode INTEGER,
	path TEXT,                    -- '' for anonymous mappings
	PRIMARY KEY (cap, file_id)
);

CREATE TABLE IF NOT EXISTS vma_entry (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	snapshot_id INTEGER NOT NULL,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	offset INTEGER,
	file_id INTEGER NOT NULL,     -- vma_file.file_id
	size INTEGER,
	rss INTEGER,
	pss INTEGER,
	uss INTEGER,
	shared_clean INTEGER,
	shared_dirty INTEGER,
	anon INTEGER,
	swap INTEGER,
	swap_pss INTEGER,
	locked INTEGER
);

CREATE VIEW IF NOT EXISTS vma (cap, snapshot_id, start, end, perms, offset, dev, inode, path,
			       size, rss, pss, uss, shared_clean, shared_dirty, anon, swap,
			       swap_pss, locked) AS
	SELECT v.cap, v.snapshot_id, v.start, v.end, f.perms, v.offset, f.dev, f.inode, f.path,
	       v.size, v.rss, v.pss, v.uss, v.shared_clean, v.shared_dirty, v.anon, v.swap,
	       v.swap_pss, v.locked
	FROM vma_entry v JOIN vma_file f ON f.cap = v.cap AND f.file_id = v.file_id;

-- INSERT INTO vma stores the row in vma_entry, and its (perms, dev, inode, path)
-- in vma_file unless the capture has it already.
CREATE TRIGGER IF NOT EXISTS vma_insert INSTEAD OF INSERT ON vma
BEGIN
	INSERT INTO vma_file (cap, file_id, perms, dev, inode, path)
	SELECT NEW.cap, coalesce((SELECT max(file_id) FROM vma_file WHERE cap = NEW.cap), 0) + 1,
	       NEW.perms, NEW.dev, NEW.inode, NEW.path
	WHERE NOT EXISTS (SELECT 1 FROM vma_file WHERE cap = NEW.cap AND perms IS NEW.perms AND
			  dev IS NEW.dev AND inode IS NEW.inode AND path IS NEW.path);
	INSERT INTO vma_entry (cap, snapshot_id, start, end, offset, file_id, size, rss, pss, uss,
			       shared_clean, shared_dirty, anon, swap, swap_pss, locked)
	VALUES (NEW.cap, NEW.snapshot_id, NEW.start, NEW.end, NEW.offset,
		(SELECT min(file_id) FROM vma_file WHERE cap = NEW.cap AND perms IS NEW.perms AND
		 dev IS NEW.dev AND inode IS NEW.inode AND path IS NEW.path),
		NEW.size, NEW.rss, NEW.pss, NEW.uss, NEW.shared_clean, NEW.shared_dirty, NEW.anon,
		NEW.swap, NEW.swap_pss, NEW.locked);
END;

CREATE TABLE IF NOT EXISTS proc_context (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	ppid INTEGER,
	comm TEXT,
	uid INTEGER,
	euid INTEGER,
	gid INTEGER,
	egid INTEGER,
	cgroup_path TEXT,
	cgroup_id INTEGER,
	container_id TEXT,
	nspid TEXT                    -- JSON array, outermost namespace first
);

CREATE TABLE IF NOT EXISTS namespace (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	pid INTEGER,
	type TEXT NOT NULL,
	inode INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS stack (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	stack_id INTEGER NOT NULL,
	kernel INTEGER NOT NULL,
	depth INTEGER NOT NULL,
	ips TEXT,                     -- JSON array of the frames' addresses, innermost first
	                              -- (see stack_frame); NULL: no frame
	PRIMARY KEY (cap, stack_id)
);

-- The frames as rows: stored in stack.ips (one row per stack instead of one per
-- frame, and no index of their own).
CREATE VIEW IF NOT EXISTS stack_frame (cap, stack_id, depth, ip) AS
	SELECT s.cap, s.stack_id, j.key, j.value
	FROM stack s, json_each(s.ips) j;

-- INSERT INTO stack_frame appends the frame to its stack row, which must be
-- inserted first; frames come in depth order (0, 1, 2...).
CREATE TRIGGER IF NOT EXISTS stack_frame_insert INSTEAD OF INSERT ON stack_frame
BEGIN
	SELECT RAISE(ABORT, 'stack_frame: insert the stack row (cap, stack_id) first')
	WHERE NOT EXISTS (SELECT 1 FROM stack WHERE cap = NEW.cap AND stack_id = NEW.stack_id);
	SELECT RAISE(ABORT, 'stack_frame: frames are inserted in depth order from 0')
	WHERE NEW.depth IS NOT (SELECT json_array_length(coalesce(ips, '[]')) FROM stack
				WHERE cap = NEW.cap AND stack_id = NEW.stack_id);
	UPDATE stack SET ips = json_insert(coalesce(ips, '[]'), '$[#]', NEW.ip)
	WHERE cap = NEW.cap AND stack_id = NEW.stack_id;
END;

CREATE TABLE IF NOT EXISTS mapping (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER,
	pid INTEGER,
	start INTEGER NOT NULL,
	end INTEGER NOT NULL,
	offset INTEGER,
	path TEXT,
	build_id TEXT,                -- hex; NULL when the file has none (build_id_error says why)
	perms TEXT,                   -- "r-xp"
	inode INTEGER,
	dev TEXT,                     -- "fd:01"
	build_id_error TEXT,          -- why build_id is NULL: "no build-id note", "unreadable: ..."
	event TEXT,                   -- start | new | gone | end: why the record was written
	build_id_kind TEXT,           -- gnu | go (Go's own build ID note); NULL without a build-id
	elf_vaddr INTEGER             -- ELF virtual address of the byte at offset (from the file's
	                              -- program headers at record time); NULL when unknown
);

-- JIT perf maps (/tmp/perf-PID.map), chunks joined: one row per (pid, time_ns).
CREATE TABLE IF NOT EXISTS perf_map (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	pid INTEGER,
	time_ns INTEGER,
	path TEXT,
	content BLOB,                 -- the map's text; chunks that did not arrive are left out
	chunks INTEGER NOT NULL,      -- chunks announced
	complete INTEGER NOT NULL     -- 1: every chunk arrived
);

-- --embed-symbols: per capture, the symbol-only ELF of each module, chunks joined.
CREATE TABLE IF NOT EXISTS module_symbols (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	build_id TEXT NOT NULL,       -- hex: the module it describes
	path TEXT,
	debug INTEGER NOT NULL,       -- 1: DWARF included (--embed-symbols=debug)
	size INTEGER,                 -- announced size of the ELF
	elf BLOB,
	chunks INTEGER NOT NULL,
	complete INTEGER NOT NULL,    -- 1: every chunk arrived and the size matches
	build_id_kind TEXT NOT NULL   -- gnu | go
);

-- The CPU profile (collector cpuprof): one row per interval.
CREATE TABLE IF NOT EXISTS cpu_profile (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- 0, 1, 2... in file order; cpu_profile_stack refers to it
	time_ns INTEGER NOT NULL,     -- end of the interval
	interval_ns INTEGER,
	pid INTEGER,                  -- NULL on a cgroup aggregate
	requested_hz INTEGER,
	ticks INTEGER,                -- timer samples on all CPUs sampled (target or not)
	delivered_hz REAL,
	cpus INTEGER,
	samples INTEGER,              -- samples that landed on a target thread
	no_user_stack INTEGER,
	no_kernel_stack INTEGER,
	lost INTEGER,                 -- samples not aggregated (map full)
	PRIMARY KEY (cap, seq)
);

-- Cgroup mode: the comm of each process with samples in a cpu_profile interval, as
-- the kernel had it when sampling (CpuProfile.processes).
CREATE TABLE IF NOT EXISTS cpu_profile_process (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- cpu_profile.seq
	pid INTEGER NOT NULL,
	comm TEXT,
	PRIMARY KEY (cap, seq, pid)
);

CREATE TABLE IF NOT EXISTS cpu_profile_stack (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	seq INTEGER NOT NULL,         -- cpu_profile.seq
	user_stack_id INTEGER,        -- stack.stack_id; NULL: no user stack
	kernel_stack_id INTEGER,      -- stack.stack_id; NULL: none
	count INTEGER NOT NULL,
	pid INTEGER                   -- the process sampled (cgroup mode); NULL: cpu_profile.pid
);

-- Symbolization, written by `ptop-analyze symbolize` (and by reports on demand).
-- frame_module: per capture, each stack frame placed in its module. A user
-- frame at depth > 0 is a return address: addr is ip - 1 there, so the call
-- is named, not the instruction after it.
CREATE TABLE IF NOT EXISTS frame_module (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	stack_id INTEGER NOT NULL,
	depth INTEGER NOT NULL,       -- 0 innermost
	pid INTEGER,                  -- whose mappings were used
	ip INTEGER NOT NULL,          -- as recorded
	addr INTEGER NOT NULL,        -- the address resolved: ip, or ip - 1 for callers
	kind TEXT NOT NULL,           -- user | jit | kernel | unknown (no mapping covers it)
	module TEXT NOT NULL,         -- the mapping's path, [jit], [kernel] or [unknown]
	build_id TEXT,                -- hex, user frames whose mapping has one
	file_offset INTEGER,          -- user frames: addr - mapping.start + mapping.offset
	sym_space TEXT,               -- the symbol row naming it (symbol.space, key, addr);
	sym_key TEXT,                 --   NULL when nothing can be looked up (miss says why)
	sym_addr INTEGER,
	miss TEXT,                    -- no_mapping | no_build_id when sym_space is NULL
	PRIMARY KEY (cap, stack_id, depth)
);

-- The symbol store, independent of captures: what an address is named, once.
-- space elf: key is the module's build-id (hex; 'go:' before a Go build ID), addr
-- the file offset;
-- space jit: key 'CAP:PID', addr the address (from the capture's perf map);
-- space kernel: key the boot id, addr the kernel address.
CREATE TABLE IF NOT EXISTS symbol (
	space TEXT NOT NULL,
	key TEXT NOT NULL,
	addr INTEGER NOT NULL,
	source TEXT,                  -- gopclntab | dwarf | symtab | dynsym | perfmap | kallsyms; NULL: unnamed
	miss TEXT,                    -- when unnamed: no_file | build_id_mismatch | no_build_id |
				      -- no_symbols | not_covered | other_boot
	func_offset INTEGER,          -- addr - start of the outermost function
	PRIMARY KEY (space, key, addr)
);

-- The names of a symbol: the inline chain, depth 0 innermost; the last row is
-- the function the address is in.
CREATE TABLE IF NOT EXISTS symbol_frame (
	space TEXT NOT NULL,
	key TEXT NOT NULL,
	addr INTEGER NOT NULL,
	depth INTEGER NOT NULL,
	func TEXT NOT NULL,
	file TEXT,
	line INTEGER,                 -- NULL when unknown
	inlined INTEGER NOT NULL,     -- 1: inlined into the next row
	PRIMARY KEY (space, key, addr, depth)
);

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
	oldest_live_ns INTEGER        -- monotonic time of the oldest live allocation; NULL: none
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

CREATE TABLE IF NOT EXISTS drop_notice (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER,
	collector TEXT NOT NULL,
	kind TEXT NOT NULL,
	lost INTEGER NOT NULL,
	detail TEXT
);

CREATE TABLE IF NOT EXISTS drop_total (   -- from the trailer
	cap INTEGER NOT NULL REFERENCES capture(cap),
	collector TEXT NOT NULL,
	kind TEXT NOT NULL,
	lost INTEGER NOT NULL
);

-- Views with capture_id and t_s: seconds since the capture started.
CREATE VIEW IF NOT EXISTS cpu AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM cpu_sample s JOIN capture c USING (cap);
CREATE VIEW IF NOT EXISTS syscalls AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM syscall_stat s JOIN capture c USING (cap);
CREATE VIEW IF NOT EXISTS memory AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM memory_sample s JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS cpu_sample_time ON cpu_sample (cap, time_ns);
CREATE INDEX IF NOT EXISTS syscall_stat_time ON syscall_stat (cap, time_ns);
CREATE INDEX IF NOT EXISTS memory_sample_time ON memory_sample (cap, time_ns);
CREATE INDEX IF NOT EXISTS vma_snapshot_id ON vma_entry (cap, snapshot_id);
CREATE INDEX IF NOT EXISTS drop_notice_time ON drop_notice (cap, time_ns);
CREATE INDEX IF NOT EXISTS mapping_start ON mapping (cap, pid, start);
CREATE INDEX IF NOT EXISTS cpu_profile_time ON cpu_profile (cap, time_ns);
CREATE INDEX IF NOT EXISTS cpu_profile_stack_seq ON cpu_profile_stack (cap, seq);
CREATE INDEX IF NOT EXISTS module_symbols_build_id ON module_symbols (build_id);
CREATE INDEX IF NOT EXISTS heap_snapshot_time ON heap_snapshot (cap, time_ns);
CREATE INDEX IF NOT EXISTS heap_site_seq ON heap_site (cap, seq);
CREATE INDEX IF NOT EXISTS heap_site_stack ON heap_site (cap, stack_id);
CREATE INDEX IF NOT EXISTS heap_event_time ON heap_event (cap, time_ns);
CREATE INDEX IF NOT EXISTS cgroup_stat_seq ON cgroup_stat (cap, seq);
CREATE INDEX IF NOT EXISTS cgroup_psi_seq ON cgroup_psi (cap, seq);
CREATE INDEX IF NOT EXISTS cgroup_proc_seq ON cgroup_proc (cap, seq);
