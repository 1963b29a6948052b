-- schema.sql — the vmas collector's tables, views and indexes: vma_snapshot,
-- vma_entry and vma_file, and the view vma.
--
-- collectors/vmas/load.c fills them. The build joins this file to schema/schema.sql
-- (see there); the part after the line "-- @@ indexes @@" runs after the data is
-- loaded. Every table and column is documented in man/ptop-capture.5.

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

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS vma_snapshot_id ON vma_entry (cap, snapshot_id);
