# ptop — the one entry point: dependency check, code generation, build, tests.
#
#   make            check deps, build build/ptop-record and build/ptop-analyze
#   make test       unit tests (plain and ASan+UBSan), end-to-end tests,
#                   and the kernel smoke set under QEMU (TEST_KERNELS=6.1, the default)
#   make test-kernels  the e2e smoke set on this kernel and on Debian 12's 6.1 under QEMU
#   make demo       record the demo workload for ~5 s, print info and a report
#   make bench      overhead, codec and load benchmarks (see bench/README.md)
#   make fuzz       libFuzzer targets: the capture reader, records into reports, DBs
#   make deps       check build dependencies; as root on Debian, install them
#   make format     clang-format every C and BPF source
#   make install    PREFIX=/usr/local (default), DESTDIR=staging root; make uninstall
#
# B=DIR puts the build elsewhere (default build/); V=1 shows full commands.

B ?= build
V ?= 0
SAN ?= 0
ifeq ($(V),1)
Q :=
else
Q := @
endif
msg = $(if $(Q),@printf '  %-8s %s\n' '$(1)' '$(2)';)

PTOP_VERSION := 0.1.0
PTOP_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
PTOP_BUILD_DATE := $(shell date -u -d @$${SOURCE_DATE_EPOCH:-$$(date +%s)} +%Y-%m-%dT%H:%M:%SZ)

CC ?= cc
CLANG ?= clang
BPFTOOL ?= $(shell PATH="$$PATH:/usr/local/sbin:/usr/sbin:/sbin" command -v bpftool || echo bpftool)
PROTOC_C ?= protoc-c
PKG_CONFIG ?= pkg-config
ARCH := $(shell uname -m | sed 's/x86_64/x86/; s/aarch64/arm64/')

PKGS := libbpf libdw libelf libzstd libprotobuf-c sqlite3 ncursesw libdebuginfod
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)

WARN := -Wall -Wextra -Werror -Wno-missing-field-initializers
CFLAGS ?= -O2 -g
override CFLAGS += -std=gnu11 $(WARN) -fno-omit-frame-pointer -D_GNU_SOURCE \
	-I. -I$(B) $(PKG_CFLAGS) -MMD -MP
LDLIBS := $(PKG_LIBS) -lz -lm
ifeq ($(SAN),1)
override CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
endif

BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Wextra -Werror \
	-Wno-unused-parameter -I$(B) -I. -Ibpf

# ---------------------------------------------------------------- sources

# proto/ptop.proto (the envelope) imports each collector's payloads, collectors/NAME/NAME.proto,
# by their path from the top (protoc-c -I.): found by wildcard, generated beside the others in
# $(B) under the same path, compiled into libptop-proto.a.
PROTOS := $(wildcard proto/*.proto collectors/*/*.proto)
PROTO_GEN := $(foreach p,$(PROTOS:%.proto=%),$(B)/$(p).pb-c.c $(B)/$(p).pb-c.h)
# Each collector is a folder collectors/NAME/ (collectors/README.md): its kernel side
# NAME.bpf.c, its recorder side record*.c, its analyzer side load/report/view/replay/figures/part*.c,
# its tests test_*.c. bpf/ keeps what the kernel sides share and the bench programs.
COLLECTOR_DIRS := $(sort $(dir $(wildcard collectors/*/)))
BPF_SRCS := $(wildcard bpf/*.bpf.c collectors/*/*.bpf.c)
SKELS := $(patsubst %.bpf.c,$(B)/%.skel.h,$(BPF_SRCS))

PROTO_OBJS := $(PROTOS:%.proto=$(B)/%.pb-c.o) $(patsubst %.c,$(B)/%.o,$(wildcard proto/*.c \
	collectors/*/names.c))
SYMBOL_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard symbol/*.c))
RECORD_OBJS := $(patsubst %.c,$(B)/%.o,$(filter-out record/main.c,$(wildcard record/*.c)) \
	$(wildcard collectors/*/record*.c))
ANALYZE_OBJS := $(patsubst %.c,$(B)/%.o,$(filter-out analyze/main.c,$(wildcard analyze/*.c)) \
	$(wildcard $(addprefix collectors/*/,load*.c report*.c view*.c figures*.c replay*.c stacks*.c part*.c))) \
	$(B)/schema/schema_sql.o
COMMON_OBJS := $(B)/version.o $(patsubst %.c,$(B)/%.o,$(wildcard common/*.c))

LIBS := $(B)/libptop-analyze.a $(B)/libptop-record.a $(B)/libptop-symbol.a \
	$(B)/libptop-proto.a

# A collector's tests build to $(B)/tests/ beside the cross-cutting ones (found by vpath).
TEST_SRCS := $(wildcard tests/test_*.c collectors/*/test_*.c)
TEST_BINS := $(patsubst %.c,$(B)/tests/%,$(notdir $(TEST_SRCS)))
vpath test_%.c tests $(COLLECTOR_DIRS)
FIXTURES := $(patsubst tests/fixtures/%.c,$(B)/tests/fixtures/%,$(wildcard tests/fixtures/*.c))
FIXTURES += $(B)/tests/fixtures/libhdl_a.so $(B)/tests/fixtures/libhdl_b.so
FIXTURES += $(B)/tests/fixtures/nofp_attach $(B)/tests/fixtures/fds_nofp $(B)/tests/fixtures/fds_nofp_attach
FIXTURES += $(B)/tests/fixtures/threads_nofp
BENCH_BINS := $(patsubst bench/%.c,$(B)/bench/%,$(wildcard bench/*.c))
BENCH_WORKLOADS := $(filter $(B)/bench/workload_%,$(BENCH_BINS))

.PHONY: all programs deps test test-kernels unit-tests e2e-tests demo bench fuzz fuzzers format clean install \
	uninstall \
	tests-build kernels-build FORCE
.DELETE_ON_ERROR:
# Keep generated intermediates (BPF objects, skeletons): they are cheap to keep
# and costly to remake.
.SECONDARY:
.SUFFIXES:

all: deps
	$(Q)$(MAKE) --no-print-directory programs

programs: $(B)/ptop-record $(B)/ptop-analyze $(B)/libptop-preload.so

deps:
	$(Q)./mk/deps.sh

# ---------------------------------------------------------------- generation

$(B)/vmlinux.h: | $(B)
	$(call msg,GEN,$@)
	$(Q)if [ ! -r /sys/kernel/btf/vmlinux ]; then \
		echo "error: this kernel has no BTF (/sys/kernel/btf/vmlinux is missing);" \
		     "build on a kernel with CONFIG_DEBUG_INFO_BTF=y" >&2; exit 1; fi
	$(Q)$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $@

$(B)/%.bpf.o: %.bpf.c $(B)/vmlinux.h
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MMD -MP -c $< -o $@

$(B)/%.skel.h: $(B)/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst -,_,$(notdir $*))_bpf > $@

$(B)/%.pb-c.c $(B)/%.pb-c.h &: %.proto | $(B)
	$(call msg,PROTOC,$<)
	$(Q)$(PROTOC_C) -I. --c_out=$(B) $<

# The schema: the core tables (schema/schema.sql), then each collector's
# collectors/NAME/schema.sql in collectors.def order (a folder without one has no
# tables): every file's part before its "-- @@ indexes @@" line, then that line once,
# then every file's indexes (analyze/db.c makes the tables, the loader the indexes).
SCHEMA_SQL := schema/schema.sql $(wildcard $(patsubst %,collectors/%/schema.sql,\
	$(shell sed -n 's/^COLLECTOR(\([A-Za-z0-9_]*\)).*/\1/p' collectors/collectors.def)))

$(B)/schema/schema_sql.c: $(SCHEMA_SQL) collectors/collectors.def | $(B)/schema
	$(call msg,GEN,$@)
	$(Q){ echo '/* generated from $(SCHEMA_SQL) */'; \
	  echo 'const char ptop_schema_sql[] ='; \
	  awk 'FNR == 1 { post = 0; if (NR > 1) print "" } \
	       $$0 == "-- @@ indexes @@" { post = 1; next } \
	       post { indexes = indexes $$0 "\n"; next } \
	       { print } \
	       END { print "-- @@ indexes @@"; printf "%s", indexes }' $(SCHEMA_SQL) | \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/'; echo ';'; } > $@

# Rewritten only when the version strings change, so nothing relinks needlessly.
$(B)/version.c: FORCE | $(B)
	$(Q)printf '%s\n' '/* generated by the Makefile */' \
	  'const char ptop_version[] = "$(PTOP_VERSION)";' \
	  'const char ptop_commit[] = "$(PTOP_COMMIT)";' \
	  'const char ptop_build_date[] = "$(PTOP_BUILD_DATE)";' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# ---------------------------------------------------------------- compile

# ptop.pb-c.h includes the collectors' generated headers: all of them first.
$(B)/%.pb-c.o: $(B)/%.pb-c.c | $(PROTO_GEN)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: $(B)/%.c
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/%.o: %.c | $(PROTO_GEN) $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(B)/libptop-proto.a: $(PROTO_OBJS)
$(B)/libptop-symbol.a: $(SYMBOL_OBJS)
$(B)/libptop-record.a: $(RECORD_OBJS)
$(B)/libptop-analyze.a: $(ANALYZE_OBJS)
$(B)/libptop-%.a:
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(B)/ptop-record: $(B)/record/main.o $(LIBS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIBS) $(COMMON_OBJS) $(LDLIBS)

$(B)/ptop-analyze: $(B)/analyze/main.o $(LIBS) $(COMMON_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(LIBS) $(COMMON_OBJS) $(LDLIBS)

# The heap's preload lane puts this library into a launched command (collectors/heap/record_preload.c).
# Its own flags, never sanitized: it runs inside other programs.
$(B)/libptop-preload.so: preload/ptop_preload.c preload/ptop_preload.h preload/ptop_unwind.h \
		common/alloc_funcs.h \
		common/hash.h | $(B)
	$(call msg,LIB,$@)
	$(Q)$(CC) -O2 -g -fPIC -shared -fno-omit-frame-pointer -std=gnu11 $(WARN) -D_GNU_SOURCE \
		-I. -o $@ $< -ldl

$(B) $(B)/bpf $(B)/proto $(B)/schema:
	$(Q)mkdir -p $@

# ---------------------------------------------------------------- tests

$(B)/tests/test_%: test_%.c $(LIBS) $(COMMON_OBJS) | $(PROTO_GEN)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBS) $(COMMON_OBJS) $(LDLIBS) -lcmocka

# Fixture programs: plain -O1 -g with frame pointers, never sanitized, so that
# their behaviour (and their syscalls) is exactly what the source says.
$(B)/tests/fixtures/%: tests/fixtures/%.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread

# heap_nofp: without frame pointers, optimized, as distributions build (the preload
# lane's unwinding from .eh_frame); heap_hostile likewise (the unwinder's safety).
$(B)/tests/fixtures/heap_nofp $(B)/tests/fixtures/heap_hostile: $(B)/tests/fixtures/%: tests/fixtures/%.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread

# libhdl_a.so, libhdl_b.so: one module's code twice, with frames of two sizes, without
# frame pointers (heap_dlreload loads one where the other was)
$(B)/tests/fixtures/libhdl_a.so: tests/fixtures/dl/hdl.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fPIC -shared -fomit-frame-pointer -DPAD=136 -DSIZE=201 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/fixtures/libhdl_b.so: tests/fixtures/dl/hdl.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fPIC -shared -fomit-frame-pointer -DPAD=264 -DSIZE=202 -Wall -Wextra -Werror -o $@ $<
# nofp_attach: heap_nofp's chain, waiting for SIGUSR1 (the eBPF lanes attached by --pid)
$(B)/tests/fixtures/nofp_attach: tests/fixtures/heap_nofp.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -DNOFP_ATTACH -Wall -Wextra -Werror -o $@ $< -lpthread
# fds_nofp: heap_nofp's chain opening eventfds instead of allocating (--fd-stacks);
# fds_nofp_attach: the same waiting for SIGUSR1
$(B)/tests/fixtures/fds_nofp: tests/fixtures/heap_nofp.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -DNOFP_FDS -Wall -Wextra -Werror -o $@ $< -lpthread
$(B)/tests/fixtures/fds_nofp_attach: tests/fixtures/heap_nofp.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -DNOFP_FDS -DNOFP_ATTACH -Wall -Wextra -Werror -o $@ $< -lpthread

# threads_nofp: threads_mix without frame pointers, optimized, as distributions build
# (the off-CPU stacks through copies: threads_stacks_nofp)
$(B)/tests/fixtures/threads_nofp: tests/fixtures/threads_mix.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread

# heap_static: glibc linked statically (libc.a, from libc6-dev), so malloc and the rest
# are defined in the executable itself, the module the heap collector must probe.
$(B)/tests/fixtures/heap_static: tests/fixtures/heap_static.c tests/fixtures/heap_kinds.c
	$(call msg,FIXTURE,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O1 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -static -o $@ $< -lpthread

# bench/workload_*.c are targets to measure: plain programs, no ptop code.
# Every other bench/*.c is a harness linked with ptop's libraries.
$(BENCH_WORKLOADS): $(B)/bench/workload_%: bench/workload_%.c bench/workload.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fno-omit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread -lm

# workload_alloc's twin built as distributions build (no frame pointers): the preload
# lane's stacks then come from .eh_frame (bench/overhead_heap.sh WORKLOAD=...)
$(B)/bench/workload_alloc_nofp: bench/workload_alloc.c bench/workload.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread -lm

$(filter-out $(BENCH_WORKLOADS),$(BENCH_BINS)): $(B)/bench/%: bench/%.c $(LIBS) $(COMMON_OBJS)
# workload_cpu_nofp: workload_cpu built as distributions build, without frame pointers
# (bench/overhead_user_stacks.sh)
$(B)/bench/workload_cpu_nofp: bench/workload_cpu.c
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $<
BENCH_BINS += $(B)/bench/workload_cpu_nofp
# workload_fds_nofp: workload_fds without frame pointers (bench/overhead_fd_stacks.sh)
$(B)/bench/workload_fds_nofp: bench/workload_fds.c bench/workload.h
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o $@ $< -lpthread
BENCH_BINS += $(B)/bench/workload_fds_nofp

$(filter-out $(BENCH_WORKLOADS) $(B)/bench/workload_cpu_nofp $(B)/bench/workload_fds_nofp,$(BENCH_BINS)): $(B)/bench/%: bench/%.c $(LIBS) $(COMMON_OBJS)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBS) $(COMMON_OBJS) $(LDLIBS)

# Rewrites a real capture into a fuzz seed (tests/fuzz/make_seeds.sh).
$(B)/tests/fuzz/seed_scrub: tests/fuzz/seed_scrub.c $(B)/libptop-proto.a | $(PROTO_GEN)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libptop-proto.a $(LDLIBS)

tests-build: programs $(TEST_BINS) $(FIXTURES)
kernels-build: programs $(FIXTURES)

# The kernels `make test` also runs the smoke set in, under QEMU (tests/kernels/; counted in
# its totals): TEST_KERNELS= (empty) for this kernel alone.
TEST_KERNELS ?= 6.1

test: deps
	$(Q)$(if $(TEST_KERNELS),./mk/deps.sh kernels || echo "test: QEMU is missing: the kernel VM's tests will skip" >&2)
	$(Q)$(MAKE) --no-print-directory tests-build
	$(Q)$(MAKE) --no-print-directory B=$(B)/asan SAN=1 $(patsubst $(B)/%,$(B)/asan/%,$(TEST_BINS))
	$(Q)if printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' \
		| $(CLANG) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then \
		$(MAKE) --no-print-directory fuzzers; fi
	$(Q)PTOP_BUILD=$(B) PTOP_STRICT=1 PTOP_KERNELS="$(TEST_KERNELS)" tests/run.sh

# The kernel matrix (tests/kernels/run.sh): the smoke set (tests/kernels/smoke.list) on this
# kernel, then inside Debian 12's own 6.1 kernel under QEMU without KVM (tests/kernels/vm.sh:
# the kernel and busybox-static from `apt-get download`, unpacked in $(B)/kernels, never
# installed). QEMU and virtiofsd are installed for this target only (mk/deps.sh kernels);
# where they or the kernel cannot be had, the VM's tests skip with the reason.
test-kernels: deps
	$(Q)./mk/deps.sh kernels || echo "test-kernels: QEMU is missing: the VM's tests will skip" >&2
	$(Q)$(MAKE) --no-print-directory kernels-build
	$(Q)PTOP_BUILD=$(B) PTOP_STRICT=1 tests/kernels/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory programs $(B)/tests/fixtures/demo_workload
	$(Q)PTOP_BUILD=$(B) ./mk/demo.sh

bench: deps
	$(Q)$(MAKE) --no-print-directory programs $(BENCH_BINS) $(B)/bench/workload_alloc_nofp $(FIXTURES)
	$(Q)PTOP_BUILD=$(B) ./bench/run.sh

# libFuzzer needs clang; its own build folder keeps the flags apart. `make fuzz` builds
# the fuzzers (tests/fuzz/fuzz_*.c) in $(B)/fuzz; `make test` builds and runs each briefly
# when clang's libFuzzer is there (tests/run.sh says why it skips them otherwise).
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_NAMES := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIBS := $(B)/libptop-analyze.a $(B)/libptop-symbol.a $(B)/libptop-proto.a

fuzz: deps
	$(Q)$(MAKE) --no-print-directory fuzzers
	@echo "run: $(B)/fuzz/fuzz_records -close_fd_mask=3 -max_total_time=60 NEW_CORPUS" \
		"tests/fuzz/corpus_records (also fuzz_db, fuzz_reader; see tests/fuzz/README)"

# SKELS= : the analyzer's objects need no BPF skeleton (only the recorder's do).
fuzzers:
	$(Q)$(MAKE) --no-print-directory B=$(B)/fuzz CC=$(CLANG) CFLAGS="$(FUZZ_CFLAGS)" SKELS= \
		$(FUZZ_NAMES:%=$(B)/fuzz/%)

# In the fuzz build (B=.../fuzz): a fuzzer links the analyzer's libraries, not the recorder's.
$(FUZZ_NAMES:%=$(B)/%): $(B)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIBS) $(COMMON_OBJS) | $(PROTO_GEN)
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(COMMON_OBJS) $(LDLIBS)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

# PREFIX (default /usr/local) and DESTDIR (a staging root) as GNU make wants them.
# The preload library goes to $(PREFIX)/lib/ptop, where ptop-record finds it from
# its own path ($(PREFIX)/bin/../lib/ptop), whatever the prefix.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
PTOP_LIBDIR ?= $(PREFIX)/lib/ptop
MANDIR ?= $(PREFIX)/share/man
INSTALLED := $(BINDIR)/ptop-record $(BINDIR)/ptop-analyze $(PTOP_LIBDIR)/libptop-preload.so \
	$(patsubst man/%,$(MANDIR)/man1/%,$(wildcard man/*.1)) \
	$(patsubst man/%,$(MANDIR)/man5/%,$(wildcard man/*.5))

install: programs
	install -D -m 0755 $(B)/ptop-record $(DESTDIR)$(BINDIR)/ptop-record
	install -D -m 0755 $(B)/ptop-analyze $(DESTDIR)$(BINDIR)/ptop-analyze
	install -D -m 0644 $(B)/libptop-preload.so $(DESTDIR)$(PTOP_LIBDIR)/libptop-preload.so
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man1 man/*.1
	install -D -m 0644 -t $(DESTDIR)$(MANDIR)/man5 man/*.5

# Removes what install wrote, and the library's folder when that leaves it empty.
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	rmdir $(DESTDIR)$(PTOP_LIBDIR) 2>/dev/null || true

clean:
	rm -rf $(B)

FORCE:

# The compiler's dependency files, less those of BPF programs whose source is gone: such a
# file still names its deleted .bpf.c, and an object that included the program's
# skeleton (-MP keeps the skeleton an empty target) then made make look for that source
# and stop ("No rule to make target bpf/exec_watch.bpf.c") until `make clean`.
DEP_FILES := $(shell find $(B) -name '*.d' 2>/dev/null)
-include $(filter-out $(filter-out $(BPF_SRCS:%.bpf.c=$(B)/%.bpf.d),$(filter %.bpf.d,$(DEP_FILES))),$(DEP_FILES))
