# SPDX-License-Identifier: MIT
# runtime/build.mk - libmemplan.so (hidden visibility: only mp_* and the
# interposed CUDA names are exported), its header and memplan.pc; the
# test-only stand-in for libcudart and the programs the tests run with it;
# `make check-threads` (the runtime's threads under ThreadSanitizer); the
# programs of the guard on the hot path's instructions (t0308).
# memplan-replay (planner/cmd/memplan-replay.c) is an ordinary program of the core
# library.  Included by the top Makefile.

# interpose.c defines cudaMalloc & co.: only the shared library has it
NOT_CORE_SRC += runtime/interpose.c
LIBS += -ldl

RT_SONAME := libmemplan.so.0
RT_LIB    := $(BUILD)/lib/$(RT_SONAME)
RT_LINK   := $(BUILD)/lib/libmemplan.so
RT_SRC    := runtime/plan.c runtime/runtime.c runtime/backend_host.c \
	     runtime/backend_cuda.c runtime/options.c runtime/interpose.c
RT_PIC    := $(patsubst %.c,$(BUILD)/pic/%.o,$(RT_SRC))
EXTRA_ALL += $(RT_LINK)

$(RT_LIB): $(RT_PIC)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) -shared $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) \
		-Wl,-soname,$(RT_SONAME) -o $@ $^ -ldl -lpthread

$(RT_LINK): $(RT_LIB)
	$(Q)ln -sf $(RT_SONAME) $@

# --- tests: a stand-in for libcudart, and programs that use it ---------------
# The stand-in exports the CUDA names with default visibility; the library
# built with MP_FAULT_NO_SWAPIN_WAIT omits one event wait, and the
# memplan-replay built with MP_FAULT_NO_SWAPOUT_WAIT the waits of a buffer
# placed over a swapped-out one, so that tests can show the stand-in's
# asynchrony catches each.  nodriver/libcudart.so.12 lacks the driver's
# cuEventQuery, as a process without libcuda would: the runtime's event
# queries then go through cudaEventQuery.
CUDA_T := $(BUILD)/tests/cuda
EXTRA_CHECK += $(CUDA_T)/libcudart.so $(CUDA_T)/app $(CUDA_T)/fixtures \
	       $(CUDA_T)/libmemplan-faulty.so $(CUDA_T)/replay-no-swapout-wait \
	       $(CUDA_T)/nodriver/libcudart.so.12

$(CUDA_T)/libcudart.so.12: tests/cuda/cudart.c tests/cuda/cudart.h
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(MP_CFLAGS) -fPIC $(CFLAGS) -shared \
		$(MP_LDFLAGS) $(LDFLAGS) -Wl,-soname,libcudart.so.12 -o $@ $< -lpthread

$(CUDA_T)/nodriver/libcudart.so.12: tests/cuda/cudart.c tests/cuda/cudart.h
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(MP_CFLAGS) -fPIC -DFAKECUDA_NO_DRIVER_EVENTS \
		$(CFLAGS) -shared $(MP_LDFLAGS) $(LDFLAGS) \
		-Wl,-soname,libcudart.so.12 -o $@ $< -lpthread

$(CUDA_T)/libcudart.so: $(CUDA_T)/libcudart.so.12
	$(Q)ln -sf libcudart.so.12 $@

$(CUDA_T)/app: $(BUILD)/obj/tests/cuda/app.o $(CORE_LIB) $(CUDA_T)/libcudart.so
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ \
		$(BUILD)/obj/tests/cuda/app.o $(CORE_LIB) -L$(CUDA_T) -lcudart \
		-Wl,-rpath,'$$ORIGIN' $(LIBS)

$(CUDA_T)/fixtures: $(BUILD)/obj/tests/cuda/fixtures.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/faulty/%.o: %.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(MP_CFLAGS) $(MP_PIC_CFLAGS) -DMP_FAULT_NO_SWAPIN_WAIT $(CFLAGS) -c -o $@ $<

$(CUDA_T)/libmemplan-faulty.so: $(patsubst %.c,$(BUILD)/faulty/%.o,$(RT_SRC))
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) -shared $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) \
		-Wl,-soname,$(RT_SONAME) -o $@ $^ -ldl -lpthread

# memplan-replay with the faulty runtime.o ahead of the core library's (the
# archive's member is then never pulled in)
$(BUILD)/faulty-out/runtime/runtime.o: runtime/runtime.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(MP_CFLAGS) -DMP_FAULT_NO_SWAPOUT_WAIT $(CFLAGS) -c -o $@ $<

$(CUDA_T)/replay-no-swapout-wait: $(BUILD)/obj/planner/cmd/memplan-replay.o \
		$(BUILD)/faulty-out/runtime/runtime.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- the guard on the hot path's instructions (tests/cli/t0308) --------------
# bench_runtime under callgrind against tests/bench/bench_runtime.baseline,
# and the same program over a runtime.o built with MP_FAULT_SLOW_HOT_PATH=2
# (a loop of two rounds on a volatile counter in every alloc), which the
# guard must refuse.
EXTRA_CHECK += $(BUILD)/bench/bench_runtime $(BUILD)/tests/bench_runtime-slow

$(BUILD)/faulty-slow/runtime/runtime.o: runtime/runtime.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) $(MP_CFLAGS) -DMP_FAULT_SLOW_HOT_PATH=2 $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/bench_runtime-slow: $(BUILD)/obj/tests/bench/bench_runtime.o \
		$(BUILD)/faulty-slow/runtime/runtime.o $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- ThreadSanitizer: the runtime's threads, apart from the other builds ------
# The unit test's eight threads on one runtime, then the LD_PRELOAD tests,
# where the stand-in's streams are threads too: any race fails them.
TSAN_BUILD ?= build/tsan
TSAN_TARGETS := tests/test_runtime lib/libmemplan.so tests/cuda/libcudart.so \
	tests/cuda/app tests/cuda/fixtures tests/cuda/libmemplan-faulty.so \
	tests/cuda/nodriver/libcudart.so.12 bin/memplan-plan bin/memplan-trace
.PHONY: check-threads
check-threads:
	@$(MAKE) -s --no-print-directory BUILD=$(TSAN_BUILD) SANITIZE=thread \
		$(addprefix $(TSAN_BUILD)/,$(TSAN_TARGETS))
	@$(TSAN_BUILD)/tests/test_runtime --threads
	@BUILD=$(TSAN_BUILD) sh tests/cli/t0301-runtime-preload.sh

# --- install ------------------------------------------------------------------
# memplan.pc: directories under PREFIX relative to ${prefix}, so that
# pkg-config --define-prefix works on a staged or moved tree
RT_PC_LIBDIR     := $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
RT_PC_INCLUDEDIR := $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))
RT_VERSION := $(shell sed -n 's/^\#define MEMPLAN_RUNTIME_VERSION "\(.*\)"/\1/p' runtime/memplan.h)
EXTRA_INSTALL += install-runtime
EXTRA_UNINSTALL += uninstall-runtime
.PHONY: install-runtime uninstall-runtime
install-runtime: $(RT_LINK)
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)
	install -m 755 $(RT_LIB) $(DESTDIR)$(LIBDIR)/$(RT_SONAME)
	ln -sf $(RT_SONAME) $(DESTDIR)$(LIBDIR)/libmemplan.so
	install -m 644 runtime/memplan.h $(DESTDIR)$(INCLUDEDIR)/memplan.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(RT_PC_LIBDIR)|g' \
	    -e 's|@INCLUDEDIR@|$(RT_PC_INCLUDEDIR)|g' -e 's|@VERSION@|$(RT_VERSION)|g' \
	    runtime/memplan.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/memplan.pc
	chmod 644 $(DESTDIR)$(LIBDIR)/pkgconfig/memplan.pc

uninstall-runtime:
	rm -f $(DESTDIR)$(LIBDIR)/$(RT_SONAME) $(DESTDIR)$(LIBDIR)/libmemplan.so \
	      $(DESTDIR)$(INCLUDEDIR)/memplan.h $(DESTDIR)$(LIBDIR)/pkgconfig/memplan.pc

# header dependencies of the objects above, which the top Makefile's list
# (ALL_OBJ) does not name: a changed runtime_backend.h must rebuild
# interpose.o too, and a changed trace.h the stand-in's client
-include $(RT_PIC:.o=.d) $(patsubst %.c,$(BUILD)/faulty/%.d,$(RT_SRC)) \
	 $(BUILD)/faulty-out/runtime/runtime.d \
	 $(BUILD)/obj/tests/cuda/app.d $(BUILD)/obj/tests/cuda/fixtures.d
