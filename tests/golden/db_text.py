#!/usr/bin/env python3
"""db_text.py DB: every table of a ptop DB as text, for the golden test: the tables by
name, each with its columns and its rows ordered by every column (so that the order the
loader inserted them in does not matter, but every value does). Two columns say when and
from which file's mtime the DB was loaded: they are masked."""
import sqlite3
import sys

MASKED = {("capture", "loaded_at"), ("capture", "source_mtime_ns")}


def text(v):
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "x'" + v.hex() + "'"
    if isinstance(v, float):
        return repr(v)
    return repr(v) if isinstance(v, str) else str(v)


db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
tables = [r[0] for r in db.execute(
    "select name from sqlite_master where type = 'table' order by name")]
for t in tables:
    cols = [r[1] for r in db.execute("select * from pragma_table_info(?) order by cid", (t,))]
    sel = ", ".join("'(masked)'" if (t, c) in MASKED else '"%s"' % c for c in cols)
    order = ", ".join(str(k + 1) for k in range(len(cols)))
    rows = db.execute('select %s from "%s" order by %s' % (sel, t, order)).fetchall()
    print("== %s (%d rows)" % (t, len(rows)))
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(text(v) for v in r))
