-- schema.sql — the locks collector's tables: lock_word (each futex word of the target with
-- its waits and wakes), lock_thread (each thread's waits and wakes on it) and lock_site
-- (the waiters' call sites), per interval: what grew in it, one row per word, share and
-- site that grew (a capture of an earlier recorder: one row each, the whole recording's
-- totals, read at its end).
--
-- collectors/locks/load.c fills them. Every table starts with cap, the capture's key.

CREATE TABLE IF NOT EXISTS lock_word (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- end of the interval: when the counts were read (every
	                              -- call counted ended at or before it)
	interval_ns INTEGER,          -- its length; NULL when unknown
	tgid INTEGER NOT NULL,        -- the process
	uaddr INTEGER NOT NULL,       -- the futex word's address in it
	waits INTEGER NOT NULL,       -- wait calls
	wait_ns INTEGER NOT NULL,     -- time inside them
	wait_max_ns INTEGER,          -- the longest of them; NULL without waits
	eagain INTEGER NOT NULL,      -- waits that returned at once (the word had changed)
	timeouts INTEGER NOT NULL,    -- waits that timed out
	wakes INTEGER NOT NULL,       -- wake calls
	woken INTEGER NOT NULL,       -- threads they woke
	hist TEXT                     -- waits by time, a JSON array: [b] holds [2^b, 2^(b+1)) ns
);

CREATE TABLE IF NOT EXISTS lock_thread (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	tgid INTEGER NOT NULL,
	uaddr INTEGER NOT NULL,
	tid INTEGER NOT NULL,
	role TEXT NOT NULL,           -- 'wait' or 'wake'
	calls INTEGER NOT NULL,
	ns INTEGER NOT NULL           -- time inside them
);

-- The waiting call sites: a word and the waiter's user stack (stack.stack_id).
CREATE TABLE IF NOT EXISTS lock_site (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	tgid INTEGER NOT NULL,
	uaddr INTEGER NOT NULL,
	stack_id INTEGER,             -- the user stack; NULL when it was lost
	user_stacks TEXT,             -- how it was taken: 'fp' or 'dwarf'
	waits INTEGER NOT NULL,
	ns INTEGER NOT NULL           -- time inside them
);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS lock_word_addr ON lock_word (cap, tgid, uaddr);
CREATE INDEX IF NOT EXISTS lock_thread_addr ON lock_thread (cap, tgid, uaddr);
CREATE INDEX IF NOT EXISTS lock_site_addr ON lock_site (cap, tgid, uaddr);
