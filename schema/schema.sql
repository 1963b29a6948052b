-- schema.sql — the SQLite schema ptop-analyze loads captures into. Version 7.
--
-- The loader sets PRAGMA user_version = 7 and refuses a DB of another version.
-- Many captures share one DB. A capture is named by capture_id (32 hex
-- digits) in the capture table; every other row references it by cap, the
-- capture's small integer key (capture.cap), so rows and indexes stay small.
-- The views cpu, syscalls and memory carry capture_id too.
-- Times are CLOCK_MONOTONIC nanoseconds as recorded (*_ns); the views add t_s,
-- seconds since the capture started. A NULL is "not measured", never 0.
-- Every table and column is documented in man/ptop-capture.5.
--
-- This file holds the core tables: the capture, its probes and record counts, stacks,
-- mappings, perf maps and embedded symbols, symbolization, drops. Each collector's
-- tables, views and indexes are in collectors/NAME/schema.sql: the build joins this
-- file and those, in collectors/collectors.def order, into one schema (the Makefile's
-- rule for schema_sql.c), every file's part before its "-- @@ indexes @@" line first,
-- then one such line, then every file's indexes.
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
	trailer_events INTEGER,       -- events among them; both NULL without a trailer
	user_stacks TEXT              -- --user-stacks: fp | dwarf | auto; NULL before the option
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

-- A collector's lanes at the start (Probe.lanes): which ran, and why the others did not.
-- Captures of earlier recorders have none.
CREATE TABLE IF NOT EXISTS probe_lane (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	probe TEXT NOT NULL,          -- the collector (probe.name)
	seq INTEGER NOT NULL,         -- order among the collector's lanes
	lane TEXT NOT NULL,           -- uprobe_multi | perf_uprobe | sock_length | io_uring | ...
	state TEXT NOT NULL,          -- active | standby | failed | unsupported | disabled
	source TEXT,                  -- ebpf | proc | preload
	reason TEXT,                  -- why not active
	instead TEXT,                 -- the lane that runs in its place (measuring the same)
	PRIMARY KEY (cap, probe, seq)
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

CREATE TABLE IF NOT EXISTS stack (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	stack_id INTEGER NOT NULL,
	kernel INTEGER NOT NULL,
	depth INTEGER NOT NULL,
	ips TEXT,                     -- JSON array of the frames' addresses, innermost first
	                              -- (see stack_frame); NULL: no frame
	PRIMARY KEY (cap, stack_id)
);

-- A user stack taken as a copy of its top (--user-stacks dwarf, Stack.copy): the
-- registers and the stack bytes as recorded (words other than return and stack
-- addresses zeroed by the recorder). symbolize unwinds it from the modules' CFI
-- (.eh_frame, .debug_frame) into its stack row's ips, and says how that went.
CREATE TABLE IF NOT EXISTS stack_copy (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	stack_id INTEGER NOT NULL,    -- stack.stack_id
	pid INTEGER,
	tid INTEGER,
	time_ns INTEGER,              -- when it was first taken
	ip INTEGER,
	sp INTEGER,
	bp INTEGER,                   -- 0 unless rbp pointed into the copy
	flags INTEGER,                -- 1 short read (the stack's end), 2/4 words unclassified
	stack BLOB,                   -- from sp up
	unwound INTEGER,              -- frames found; NULL: not unwound yet
	unwind_end TEXT,              -- why the walk stopped ("end of the stack copy", ...)
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

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS drop_notice_time ON drop_notice (cap, time_ns);
CREATE INDEX IF NOT EXISTS mapping_start ON mapping (cap, pid, start);
CREATE INDEX IF NOT EXISTS module_symbols_build_id ON module_symbols (build_id);
