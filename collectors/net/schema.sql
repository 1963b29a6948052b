-- schema.sql — the net collector's tables: net_socket, one row per socket and interval,
-- net_error, one row per socket, kind of error and interval; net_state, one row per TCP
-- state change; the views net_sockets, net_errors and net_states. collectors/net/load.c fills them; man/ptop-capture.5 documents them.

CREATE TABLE IF NOT EXISTS net_socket (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,
	interval_ns INTEGER,
	pid INTEGER,
	sock INTEGER NOT NULL,        -- the socket's key in the capture: its inode, else its
	                              -- cookie negated (an eBPF socket without an inode)
	cookie INTEGER,               -- the kernel's socket cookie (eBPF lane); NULL: /proc only
	inode INTEGER,                -- socket inode (/proc/PID/fd "socket:[N]"); NULL: unknown
	proto TEXT NOT NULL,          -- tcp, tcp6, udp, udp6, unix, other
	local TEXT NOT NULL,          -- "127.0.0.1:8080", "[::1]:8080", a unix path, ""
	remote TEXT NOT NULL,         -- "" when none (a listener, an unconnected socket)
	state TEXT NOT NULL,          -- TCP state, UDP CONNECTED/UNCONNECTED, unix type, ""
	tx_bytes INTEGER,             -- eBPF lane, in the interval; NULL: not measured
	rx_bytes INTEGER,
	tx_calls INTEGER,             -- sends with a positive length (UDP: datagrams)
	rx_calls INTEGER,
	tx_errors INTEGER,            -- sends and receives that failed (not EAGAIN)
	rx_errors INTEGER,
	segs_out INTEGER,             -- TCP segments in the interval; NULL for other protocols
	segs_in INTEGER,
	retransmits INTEGER,          -- TCP retransmits in the interval
	srtt_us INTEGER,              -- TCP smoothed RTT at the newest send or receive; NULL: none
	connect_ns INTEGER,           -- TCP SYN_SENT to ESTABLISHED, on the interval it happened
	closed INTEGER NOT NULL,      -- 1: TCP reached CLOSE in the interval
	tx_queue INTEGER,             -- /proc lane at the poll; NULL: not in the fd table
	rx_queue INTEGER,             -- (LISTEN: connections waiting to be accepted)
	fd INTEGER                    -- the target's (lowest) fd for it; NULL: none seen
);

CREATE TABLE IF NOT EXISTS net_error (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- the newest such error (retransmit: the poll)
	pid INTEGER,
	sock INTEGER NOT NULL,        -- net_socket.sock
	cookie INTEGER,
	inode INTEGER,
	proto TEXT NOT NULL,
	local TEXT NOT NULL,
	remote TEXT NOT NULL,
	kind TEXT NOT NULL,           -- refused, reset_by_peer, reset_sent, timeout, unreachable,
	                              -- error, retransmit
	count INTEGER NOT NULL,       -- in the interval
	total INTEGER NOT NULL,       -- on this socket so far
	latency_ns INTEGER,           -- refused, timeout, unreachable: SYN to the error; NULL: none
	err INTEGER,                  -- the socket's errno; NULL: none
	in_call INTEGER NOT NULL      -- 1: the connect() call itself failed with err (no SYN
	                              -- answered: no route, a UNIX socket nobody listens on)
);

CREATE TABLE IF NOT EXISTS net_state (
	cap INTEGER NOT NULL REFERENCES capture(cap),
	time_ns INTEGER NOT NULL,     -- when the socket changed state
	pid INTEGER,
	sock INTEGER NOT NULL,        -- net_socket.sock
	cookie INTEGER,
	old_state TEXT NOT NULL,      -- CLOSE, SYN_SENT, ESTABLISHED, FIN_WAIT1, ... (TCP)
	new_state TEXT NOT NULL
);

-- The views with capture_id and t_s: seconds since the capture started.
CREATE VIEW IF NOT EXISTS net_sockets AS
	SELECT c.capture_id, s.*, (s.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM net_socket s JOIN capture c USING (cap);
CREATE VIEW IF NOT EXISTS net_errors AS
	SELECT c.capture_id, e.*, (e.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM net_error e JOIN capture c USING (cap);
CREATE VIEW IF NOT EXISTS net_states AS
	SELECT c.capture_id, t.*, (t.time_ns - c.start_monotonic_ns) / 1e9 AS t_s
	FROM net_state t JOIN capture c USING (cap);

-- @@ indexes @@
CREATE INDEX IF NOT EXISTS net_socket_time ON net_socket (cap, time_ns);
CREATE INDEX IF NOT EXISTS net_error_time ON net_error (cap, time_ns);
CREATE INDEX IF NOT EXISTS net_state_sock ON net_state (cap, sock, time_ns);
