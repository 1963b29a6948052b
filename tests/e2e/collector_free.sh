#!/bin/bash
# collector_free.sh — the check of issue 22's "Done means": the shared code names no
# collector. For each collector of collectors/collectors.def it takes
#   - the symbols its folder defines: the global symbols of its objects (nm of
#     $B/collectors/NAME/*.o, BPF objects left out; a static one cannot be named elsewhere),
#     and the macros, types and enumerators of its headers (collectors/NAME/*.h and the
#     headers generated from its .proto, $B/collectors/NAME/*.pb-c.h);
#   - its table and view names (collectors/NAME/schema.sql), looked for in the string
#     literals of C files (where SQL is: a view named "cpu" is not the variable cpu; and
#     a name without an underscore only in a literal holding an SQL keyword, so "out of
#     memory" does not name the view memory) and in the whole of the other files;
# and lists each occurrence, as a whole word, in the code outside collectors/NAME/: the
# files git knows (*.c, *.h, *.sql, *.proto, Makefile, mk/*), leaving out comments (C,
# SQL and make ones; strings are kept: SQL lives in them), tests (tests/, */e2e/,
# */test_*.c), bench/, man pages, *.md, collectors.def, mk/demo.sh (a demo is documentation by
# example, as a manual: it runs `report NAME` of the collectors it shows), and
# proto/ptop.proto (the older collectors' cases of the Event oneof stay there for the
# format's compatibility). A C string that is a kernel mapping's name ("[heap]", "[stack]")
# is the kernel's word, not a collector's: left out.
#
# Output: per collector, each file naming it with its count and the words it names; then
# the count per file over all collectors. Files under another collector's folder are
# listed apart ("in other collectors"): a collector may use another's loader by including
# its header by name (issue 22), so those are dependencies to read, not failures.
# Passes when no file outside collectors/ names a collector, fails when one does; needs
# the build ($PTOP_BUILD, default build: `make programs`) for the collectors' objects.
source tests/e2e/lib.sh
command -v nm >/dev/null || skip "nm is missing (binutils)"
command -v python3 >/dev/null || skip "python3 is missing"
[ -d "$B/collectors" ] || missing "$B/collectors is not built (make programs)"

python3 - "$B" <<'EOF' || fail "the shared code names a collector (the list above): move the word into collectors/NAME/"
import os, re, subprocess, sys
from collections import defaultdict

B = sys.argv[1]
names = re.findall(r'^COLLECTOR\((\w+)\)', open('collectors/collectors.def').read(), re.M)

def strip_c(text):
    """C text without its comments; strings and characters kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in '"\'':
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1]); i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2); j = n if j < 0 else j + 2
            out.append('\n' * text.count('\n', i, j)); i = j
        elif text.startswith('//', i):
            j = text.find('\n', i); i = n if j < 0 else j
        else:
            out.append(c); i += 1
    return ''.join(out)

def strip_line(text, mark):
    """Text without comments that run from MARK to the end of the line (SQL --, make #)."""
    return '\n'.join(l.split(mark, 1)[0] for l in text.split('\n'))

def code_of(path):
    text = open(path, errors='replace').read()
    if path.endswith(('.c', '.h', '.proto')):
        # a kernel mapping's name ("[heap]", "[stack]") is the kernel's word
        return re.sub(r'"\[\w+\]"', '""', strip_c(text))
    if path.endswith('.sql'):
        return strip_line(text, '--')
    return strip_line(text, '#')

def shared_files():
    files = subprocess.run(['git', 'ls-files'], capture_output=True, text=True,
                           check=True).stdout.split()
    keep = []
    for f in files:
        base = os.path.basename(f)
        if not (f.endswith(('.c', '.h', '.sql', '.proto')) or f == 'Makefile' or
                f.startswith('mk/')):
            continue
        if (f.startswith(('tests/', 'bench/', 'man/')) or '/e2e/' in f or
                base.startswith('test_') or f.endswith('.md') or
                f in ('collectors/collectors.def', 'mk/demo.sh')):
            continue
        # the envelope's oneof cases of the older collectors stay, for the format's sake
        # (issue 22): newer collectors travel in Event.collector_payload
        if f == 'proto/ptop.proto':
            continue
        keep.append(f)
    return keep

def header_words(path):
    """The macros, struct/union/enum tags, typedef names and enumerators of a header."""
    text = strip_c(open(path, errors='replace').read())
    words = set(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))
    words |= {m[1] for m in re.findall(r'\b(struct|union|enum)\s+(\w+)\s*\{', text)}
    words |= set(re.findall(r'\btypedef\b[^;{}]*?\b(\w+)\s*;', text))
    words |= set(re.findall(r'\btypedef\s+(?:struct|union|enum)\b[^{;]*\{[^{}]*\}\s*(\w+)\s*;',
                            text))
    for body in re.findall(r'\benum\b[^{;]*\{([^}]*)\}', text):
        words |= set(re.findall(r'(?:^|,)\s*([A-Za-z_]\w*)\s*(?==|,|$)', body.strip()))
    return words

def symbols_of(name):
    words = set()
    d = f'{B}/collectors/{name}'
    objs = [os.path.join(d, f) for f in sorted(os.listdir(d))
            if f.endswith('.o') and not f.endswith('.bpf.o')] if os.path.isdir(d) else []
    if objs:
        out = subprocess.run(['nm', '-g', '--defined-only'] + objs, capture_output=True,
                             text=True, check=True).stdout
        words |= {l.split()[-1] for l in out.splitlines() if len(l.split()) == 3}
    heads = [f'collectors/{name}/{f}' for f in sorted(os.listdir(f'collectors/{name}'))
             if f.endswith('.h')]
    if os.path.isdir(d):
        heads += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith('.pb-c.h')]
    for h in heads:
        words |= header_words(h)
    # include guards and the like name nothing: only words of 4 characters or more
    return {w for w in words if len(w) >= 4}

def tables_of(name):
    p = f'collectors/{name}/schema.sql'
    if not os.path.exists(p):
        return set()
    return set(re.findall(r'CREATE\s+(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)',
                          strip_line(open(p).read(), '--'), re.I))

SQL_WORD = re.compile(r'\b(SELECT|FROM|JOIN|INTO|UPDATE|TABLE|WHERE|INSERT)\b')

def strings_of(path, text):
    """Where a table can be named: a C file's string literals (its SQL), any other whole;
    a literal without an SQL keyword only for names with an underscore (so that a view
    named "memory" is not the word memory in a message)."""
    if not path.endswith(('.c', '.h')):
        return text
    out = []
    for lit in re.findall(r'"(?:[^"\\\n]|\\.)*"', text):
        out.append(lit if SQL_WORD.search(lit) else
                   ' '.join(re.findall(r'\w*_\w*', lit)))
    return '\n'.join(out)

files = shared_files()
code = {f: code_of(f) for f in files}
sql = {f: strings_of(f, code[f]) for f in files}
per_file = defaultdict(int)
core_hits = 0
for name in names:
    syms, tables = symbols_of(name), tables_of(name)
    words = syms | tables
    if not words:
        continue
    def alt(ws):
        return re.compile(r'\b(' + '|'.join(sorted(map(re.escape, ws), key=len,
                                                   reverse=True)) + r')\b') if ws else None
    rx_sym, rx_tab = alt(syms), alt(tables - syms)
    own = f'collectors/{name}/'
    hits = []
    for f in files:
        if f.startswith(own):
            continue
        found = (rx_sym.findall(code[f]) if rx_sym else []) + \
                (rx_tab.findall(sql[f]) if rx_tab else [])
        if found:
            hits.append((f, found))
    core = [(f, x) for f, x in hits if not f.startswith('collectors/')]
    other = [(f, x) for f, x in hits if f.startswith('collectors/')]
    n_core = sum(len(x) for _, x in core)
    core_hits += n_core
    print(f'== {name}: {len(words)} words; {n_core} in shared code'
          f'{", %d in other collectors" % sum(len(x) for _, x in other) if other else ""}')
    for title, group in (('', core), ('in other collectors: ', other)):
        for f, found in sorted(group, key=lambda h: (-len(h[1]), h[0])):
            per_file[f] += len(found)
            uniq = sorted(set(found))
            shown = ', '.join(uniq[:6]) + (', ...' if len(uniq) > 6 else '')
            print(f'  {title}{len(found):5d}  {f}  ({shown})')
print('== per file, all collectors')
for f, n in sorted(per_file.items(), key=lambda x: (-x[1], x[0])):
    print(f'{n:6d}  {f}{"" if not f.startswith("collectors/") else "  (another collector)"}')
print(f'== {core_hits} occurrences in shared code (outside collectors/)')
sys.exit(1 if core_hits else 0)
EOF
