# SPDX-License-Identifier: MIT
# memplan - one GNU Makefile for the whole tree.
#
#   make                 build everything into $(BUILD) (default: build/)
#   make check           build and run every test; ends with "N passed, N failed,
#                        N skipped" (skipped: what needs ../shared/data when absent)
#   make demo            run the main job on a trace from traces/
#   make bench           print the benchmark table
#   make compare         every placement strategy over a folder of traces
#                        (TRACES=dir, STRATEGIES=a,b, TIME_LIMIT=seconds)
#   make fuzz            longer fuzz runs (libFuzzer with clang when available)
#   make install         PREFIX=/usr/local DESTDIR= BINDIR LIBDIR INCLUDEDIR MANDIR
#                        DATADIR (compare.sbatch goes to DATADIR/memplan)
#   make uninstall
#
# Knobs: V=1 (show commands), DEVELOPER=1 (-Werror), SANITIZE=address,undefined
# (builds into build/san/), CUDA_HOME=/usr/local/cuda.

PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
DATADIR    ?= $(PREFIX)/share
DESTDIR    ?=

CC       ?= cc
CFLAGS   ?= -O2 -g
LDFLAGS  ?=
CUDA_HOME ?= /usr/local/cuda
SHARED_DATA ?= $(abspath ../shared/data)

BUILD ?= build$(if $(SANITIZE),/san)

# Every target builds on all the machine's cores unless -j is given.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

# Project flags, kept apart from the user's CFLAGS.
MP_WARN := -Wall -Wextra -Wpedantic -Wstrict-prototypes -Wmissing-prototypes \
	   -Wold-style-definition -Wwrite-strings -Wvla -fno-common
MP_CFLAGS := -std=c11 -D_POSIX_C_SOURCE=200809L $(MP_WARN) -MMD -MP
# A component is a top folder of the core library; a room is a folder
# directly inside one (traces/import/).  Each is on the include path, so
# headers are named without folders ("pickle.h") and a new room needs no
# edit here; tests/cli/t0010-layering.sh keeps header names unique and the
# includes layered.  (capture/ has its own fragment, capture/build.mk.)
COMPONENTS := cli traces analyze planner runtime
SRC_DIRS   := $(COMPONENTS) $(patsubst %/,%,$(sort $(wildcard $(addsuffix /*/,$(COMPONENTS)))))
MP_CFLAGS  += $(addprefix -I,$(SRC_DIRS))
ifeq ($(DEVELOPER),1)
MP_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
MP_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
MP_LDFLAGS += -fsanitize=$(SANITIZE)
endif

# DEPS=DIR: a private root of Debian's libsqlite3-dev and zlib1g-dev
# unpacked (tests/gpu/prepare.sh), for a machine without their headers
ifneq ($(DEPS),)
MP_CFLAGS += -isystem $(DEPS)/usr/include
MP_LDFLAGS += $(addprefix -L,$(wildcard $(DEPS)/usr/lib/*-linux-gnu $(DEPS)/lib/*-linux-gnu))
endif
SQLITE_CFLAGS := $(shell pkg-config --cflags sqlite3 2>/dev/null)
SQLITE_LIBS   := $(or $(shell pkg-config --libs sqlite3 2>/dev/null),-lsqlite3)
MP_CFLAGS += $(SQLITE_CFLAGS)
# zlib (zlib1g-dev): gzipped profiler traces (traces/import/zinput.c)
LIBS := $(SQLITE_LIBS) -lz -lm -lpthread

ifneq ($(V),1)
Q = @
quiet = @printf '  %-6s %s\n' $(1) $(2);
endif

# CUDA toolkit: found through CUDA_HOME; without it the CUDA parts are skipped.
HAVE_CUDA := $(if $(wildcard $(CUDA_HOME)/include/cuda.h),1)
ifeq ($(HAVE_CUDA),)
$(info memplan: no CUDA toolkit at CUDA_HOME=$(CUDA_HOME): building without the CUDA parts (capture library, CUDA runtime backend))
endif

CUDA_CFLAGS := -I$(CUDA_HOME)/include

# The exact search behind the `optimal` budget strategy and bench_exact
# (planner/budget/exact_milp.c) solves its programs with CBC (Debian:
# coinor-libcbc-dev, found by pkg-config and its header) or else GLPK
# (libglpk-dev, found by compiling its header); NO_CBC=1 and NO_GLPK=1
# leave either out.
ifeq ($(NO_CBC),)
HAVE_CBC := $(shell pkg-config --exists cbc 2>/dev/null && printf '\043include <Cbc_C_Interface.h>\n' | $(CC) $$(pkg-config --cflags cbc) -E -x c - >/dev/null 2>&1 && echo 1)
endif
ifeq ($(NO_GLPK)$(HAVE_CBC),)
HAVE_GLPK := $(shell printf '\043include <glpk.h>\n' | $(CC) $(filter-out -MMD -MP,$(MP_CFLAGS)) $(CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1)
endif
ifeq ($(HAVE_CBC),1)
MP_CFLAGS += -DMEMPLAN_HAVE_CBC $(shell pkg-config --cflags cbc)
LIBS += $(shell pkg-config --libs cbc)
else ifeq ($(HAVE_GLPK),1)
MP_CFLAGS += -DMEMPLAN_HAVE_GLPK
LIBS += -lglpk
$(info memplan: no CBC (coinor-libcbc-dev): the exact search uses GLPK)
else
$(info memplan: neither CBC nor GLPK: building without the exact search (the `optimal` strategy and bench_exact refuse))
endif
# Objects for shared libraries: position-independent, hidden by default.
MP_PIC_CFLAGS := -fPIC -fvisibility=hidden

# --- component fragments ----------------------------------------------------
# A component that builds more than programs and core objects (a shared
# library, CUDA parts, tests linked with more than the core library) says so
# in <component>/build.mk.  A fragment may append to:
#   NOT_CORE_SRC   .c files of COMPONENTS kept out of the core library
#   EXTRA_ALL      targets `make` (and so `make check`) also builds
#   EXTRA_CHECK    targets only `make check` builds (test helpers)
#   EXTRA_BENCH    targets only `make bench` builds
#   EXTRA_INSTALL / EXTRA_UNINSTALL   phony targets run by install / uninstall
# and define explicit rules for its own test programs (they win over the
# pattern rules below).  Fragments see BUILD, MP_CFLAGS, MP_LDFLAGS, LIBS,
# CORE_LIB, HAVE_CUDA, CUDA_HOME, CUDA_CFLAGS and MP_PIC_CFLAGS.
CORE_LIB := $(BUILD)/lib/libmemplan-core.a
# the fragments below define rules; plain `make` still means `make all`
.DEFAULT_GOAL := all
NOT_CORE_SRC :=
EXTRA_ALL :=
EXTRA_CHECK :=
EXTRA_BENCH :=
EXTRA_INSTALL :=
EXTRA_UNINSTALL :=
include $(wildcard capture/build.mk runtime/build.mk)

# --- sources --------------------------------------------------------------
# A program is any memplan-*.c of a component or of a room in it
# (planner/cmd/memplan-plan.c); every other .c goes into the internal core
# library that programs and tests link.
PROG_SRC   := $(wildcard $(addsuffix /memplan-*.c,$(SRC_DIRS)))
CORE_SRC   := $(filter-out $(PROG_SRC) $(NOT_CORE_SRC),$(wildcard $(addsuffix /*.c,$(SRC_DIRS))))
PROGS      := $(patsubst %.c,$(BUILD)/bin/%,$(notdir $(PROG_SRC)))

CORE_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(CORE_SRC))

# Unit tests sit in tests/unit/ or, for a component in rooms, in a copy of
# its layout (tests/unit/planner/placement/test_solver.c); every test's
# name is unique and its program is $(BUILD)/tests/<name>.
UNIT_SRC  := $(wildcard tests/unit/test_*.c tests/unit/*/*/test_*.c)
UNIT_BINS := $(patsubst %.c,$(BUILD)/tests/%,$(notdir $(UNIT_SRC)))
FUZZ_SRC  := $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/%,$(FUZZ_SRC))
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
BENCH_BINS:= $(patsubst tests/bench/%.c,$(BUILD)/bench/%,$(BENCH_SRC))

MAN_PAGES := $(wildcard man/*.[1-8])

ALL_OBJ := $(CORE_OBJ) $(patsubst %.c,$(BUILD)/obj/%.o,$(PROG_SRC) $(UNIT_SRC) \
	   $(FUZZ_SRC) $(BENCH_SRC) tests/fuzz/driver.c)

.PHONY: all check check-exact demo bench fuzz compare install uninstall clean archive FORCE
# keep objects that only pattern rules mention
.SECONDARY:
all: $(PROGS) archive $(EXTRA_ALL)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(MP_CFLAGS) $(CFLAGS) -c -o $@ $<

# the same sources for shared libraries (fragments list what they need)
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(MP_CFLAGS) $(MP_PIC_CFLAGS) $(CFLAGS) -c -o $@ $<

# The library is made again when its list of objects changes (a file moved
# into a room): .SECONDARY makes a missing object whose source is older than
# the library no reason to remake it, and the old members would stay.
CORE_LIST := $(BUILD)/obj/core.list
$(CORE_LIST): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CORE_OBJ)' | cmp -s - $@ 2>/dev/null || echo '$(CORE_OBJ)' >$@

$(CORE_LIB): $(CORE_OBJ) $(CORE_LIST)
	@mkdir -p $(dir $@)
	$(call quiet,AR,$@)rm -f $@ && $(AR) rcs $@ $(CORE_OBJ)

define PROG_RULE
$$(BUILD)/bin/$(basename $(notdir $(1))): $$(BUILD)/obj/$(1:.c=.o) $$(CORE_LIB)
	@mkdir -p $$(dir $$@)
	$$(call quiet,LINK,$$@)$$(CC) $$(CFLAGS) $$(MP_LDFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach p,$(PROG_SRC),$(eval $(call PROG_RULE,$(p))))

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# test_oom fails memplan's own allocations in turn: every call to malloc,
# calloc and realloc from memplan's objects goes through the test's wrappers
$(BUILD)/tests/test_oom: $(BUILD)/obj/tests/unit/test_oom.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc -o $@ $^ $(LIBS)

# the tests in rooms (explicit rules win over the pattern above)
define UNIT_RULE
$$(BUILD)/tests/$(basename $(notdir $(1))): $$(BUILD)/obj/$(1:.c=.o) $$(CORE_LIB)
	@mkdir -p $$(dir $$@)
	$$(call quiet,LINK,$$@)$$(CC) $$(CFLAGS) $$(MP_LDFLAGS) $$(LDFLAGS) -o $$@ $$^ $$(LIBS)
endef
$(foreach t,$(filter-out tests/unit/test_%.c,$(UNIT_SRC)),$(eval $(call UNIT_RULE,$(t))))
# tests in rooms find tap.h (and each other's headers) on the include path
$(BUILD)/obj/tests/%.o: MP_CFLAGS += -Itests/unit

$(BUILD)/tests/fuzz_%: $(BUILD)/obj/tests/fuzz/fuzz_%.o $(BUILD)/obj/tests/fuzz/driver.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/bench/bench_%: $(BUILD)/obj/tests/bench/bench_%.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- the archive of zoo traces: generated, listed in traces/archive.list ---
ARCHIVE := $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' traces/archive.list 2>/dev/null | awk '{print $$1}')
ARCHIVE_FILES := $(patsubst %,$(BUILD)/traces/%.trace,$(ARCHIVE))
archive: $(ARCHIVE_FILES)
$(BUILD)/traces/%.trace: traces/archive.list $(BUILD)/bin/memplan-trace
	@mkdir -p $(dir $@)
	$(call quiet,SYNTH,$@)$(BUILD)/bin/memplan-trace synth \
		$$(awk '$$1 == "$*" { $$1 = ""; print }' traces/archive.list) -o $@

# --- tests ------------------------------------------------------------------
check: $(PROGS) $(UNIT_BINS) $(FUZZ_BINS) archive $(EXTRA_ALL) $(EXTRA_CHECK)
	@BUILD=$(BUILD) SHARED_DATA=$(SHARED_DATA) sh tests/run.sh

# The exact search's tests alone: CI runs them again on a build with
# NO_CBC=1, so that the GLPK path is tested where CBC is installed.
check-exact: $(PROGS) $(BUILD)/tests/test_exact_plan
	@$(BUILD)/tests/test_exact_plan; \
	BUILD=$(BUILD) MEMPLAN_BIN=$(abspath $(BUILD))/bin sh tests/cli/t0426-plan-optimal.sh

demo: $(PROGS) archive
	@BUILD=$(BUILD) sh tests/demo.sh

bench: $(PROGS) $(BENCH_BINS) archive $(EXTRA_ALL) $(EXTRA_BENCH)
	@BUILD=$(BUILD) SHARED_DATA=$(SHARED_DATA) sh tests/bench/run.sh

# --- compare: placement strategies over a folder of traces -------------------
# One row per *.trace / *.csv of TRACES (default: the archive), made in
# parallel under make -j by `memplan-plan compare --csv --no-header`, then
# one table in $(BUILD)/compare.csv.  A trace that fails keeps its row (with
# the error) and makes the target fail at the end, as does a TRACES folder
# that holds none.  The searches count work (WORK, default compare's), so
# the table is the same on every run; TIME_LIMIT=S alone times them instead.
TRACES     ?=
STRATEGIES ?=
TIME_LIMIT ?=
WORK       ?=
COMPARE_DIR := $(patsubst %/,%,$(or $(TRACES),$(BUILD)/traces))
COMPARE_IN  := $(if $(TRACES),$(sort $(wildcard $(COMPARE_DIR)/*.trace $(COMPARE_DIR)/*.csv)),$(ARCHIVE_FILES))
COMPARE_ROWS := $(patsubst $(COMPARE_DIR)/%,$(BUILD)/compare/%.row,$(COMPARE_IN))
COMPARE_OPTS := $(if $(STRATEGIES),--strategies $(STRATEGIES)) \
	$(if $(WORK),--deterministic=$(WORK)) $(if $(TIME_LIMIT),--time-limit $(TIME_LIMIT))
PLAN_BIN := $(BUILD)/bin/memplan-plan

ifneq ($(filter compare,$(MAKECMDGOALS)),)
ifeq ($(COMPARE_IN),)
$(error compare: no *.trace or *.csv in '$(COMPARE_DIR)' (TRACES=$(TRACES)))
endif
endif

# the table, and its summary (compare --merge computes it over the rows)
compare: $(BUILD)/compare.csv
	@$(PLAN_BIN) compare --merge $<
	@st=0; for r in $(COMPARE_ROWS); do [ ! -e $$r.failed ] || { \
		echo "compare: $${r%.row}: failed (the error is in its row)" >&2; st=1; }; \
	done; exit $$st

$(BUILD)/compare.csv: $(COMPARE_ROWS) $(PLAN_BIN) FORCE
	@{ $(PLAN_BIN) compare --csv --header-only $(COMPARE_OPTS) && \
	  cat /dev/null $(COMPARE_ROWS); } >$@.tmp && mv $@.tmp $@

# rows are made again when the folder or the options change
$(BUILD)/compare/options: FORCE
	@mkdir -p $(dir $@)
	@echo '$(COMPARE_DIR) $(COMPARE_OPTS)' | cmp -s - $@ 2>/dev/null || \
		echo '$(COMPARE_DIR) $(COMPARE_OPTS)' >$@

$(BUILD)/compare/%.row: $(COMPARE_DIR)/% $(PLAN_BIN) $(BUILD)/compare/options
	@mkdir -p $(dir $@)
	$(call quiet,PLAN,$<)rm -f $@.failed; \
		$(PLAN_BIN) compare --csv --no-header -j 1 $(COMPARE_OPTS) $< >$@.tmp || \
		touch $@.failed; mv $@.tmp $@

FORCE:

# Longer fuzzing: libFuzzer when clang has it, else the built-in driver
# (FUZZ_SECONDS x 3000 runs); every target, then "N passed, N failed".  A
# sanitizer report fails its target (no recovery): libFuzzer's build has
# ASan and UBSan; the built-in driver's those of SANITIZE=.
FUZZ_SECONDS ?= 60
fuzz: $(FUZZ_BINS)
	@BUILD=$(BUILD) CC_FUZZ="$(CC_FUZZ)" FUZZ_SECONDS=$(FUZZ_SECONDS) SANITIZE=$(SANITIZE) \
		SHARED_DATA=$(SHARED_DATA) FUZZ_CORE_SRC="$(CORE_SRC)" \
		FUZZ_INCLUDES="$(addprefix -I,$(SRC_DIRS))" sh tests/fuzz/run.sh

# --- install ----------------------------------------------------------------
# scripts that run the commands elsewhere: the Slurm job array of compare
DATA_FILES := planner/placement/compare.sbatch
install: $(PROGS) $(EXTRA_ALL) $(EXTRA_INSTALL)
	install -d $(DESTDIR)$(BINDIR)
	install -m 755 $(PROGS) $(DESTDIR)$(BINDIR)
	@set -e; for p in $(MAN_PAGES); do \
		s=$${p##*.}; install -d $(DESTDIR)$(MANDIR)/man$$s; \
		echo "install -m 644 $$p $(DESTDIR)$(MANDIR)/man$$s"; \
		install -m 644 $$p $(DESTDIR)$(MANDIR)/man$$s; done
	install -d $(DESTDIR)$(DATADIR)/memplan
	install -m 755 $(DATA_FILES) $(DESTDIR)$(DATADIR)/memplan

uninstall: $(EXTRA_UNINSTALL)
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(notdir $(PROGS)))
	rm -f $(addprefix $(DESTDIR)$(DATADIR)/memplan/,$(notdir $(DATA_FILES)))
	rmdir $(DESTDIR)$(DATADIR)/memplan 2>/dev/null || true
	@for p in $(MAN_PAGES); do s=$${p##*.}; f=$${p##*/}; \
		echo "rm -f $(DESTDIR)$(MANDIR)/man$$s/$$f"; \
		rm -f $(DESTDIR)$(MANDIR)/man$$s/$$f; done

clean:
	rm -rf build

-include $(ALL_OBJ:.o=.d)
