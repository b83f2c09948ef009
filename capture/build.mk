# SPDX-License-Identifier: MIT
# capture/build.mk - the capture component, included by the top-level
# Makefile (see its "component fragments" section for what a fragment may
# touch).  Always built: the plain-C recorder, live map, argument scanner and
# selection (so their tests run without CUDA) and the memplan-capture
# launcher.  With a CUDA toolkit: libmemplan-capture.so, the CUPTI injection
# library, and the translation test that builds CUPTI callback data.

CAP_PLAIN_SRC := capture/live.c capture/argscan.c capture/recorder.c \
		 capture/allocsource.c \
		 capture/select.c
CAP_PLAIN_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(CAP_PLAIN_SRC))
CAP_BIN       := $(BUILD)/bin/memplan-capture
CAP_SO        := $(BUILD)/lib/libmemplan-capture.so

# CUPTI lives in lib64 or lib (toolkits; extras/CUPTI/lib64 in older ones),
# and in pip-style layouts (nvidia-cuda-cupti wheels) only as the versioned
# libcupti.so.13 beside include/cupti.h.  CUPTI_LIB is the file linked:
# the unversioned name where there is one, else the versioned one by name.
CUPTI_CANDIDATES := $(foreach d,lib64 lib extras/CUPTI/lib64,\
	$(CUDA_HOME)/$(d)/libcupti.so $(CUDA_HOME)/$(d)/libcupti.so.13)
CUPTI_LIB    := $(firstword $(wildcard $(CUPTI_CANDIDATES)))
CUPTI_LIBDIR := $(dir $(CUPTI_LIB))
CUPTI_LINK   := $(if $(filter %.so,$(CUPTI_LIB)),-lcupti,-l:$(notdir $(CUPTI_LIB)))
CUPTI_INCDIR := $(firstword $(dir $(wildcard $(CUDA_HOME)/include/cupti.h \
		$(CUDA_HOME)/extras/CUPTI/include/cupti.h)))
CAP_HAVE_CUPTI := $(if $(HAVE_CUDA),$(if $(CUPTI_LIB),$(if $(CUPTI_INCDIR),1)))
ifeq ($(HAVE_CUDA),1)
ifeq ($(CAP_HAVE_CUPTI),)
$(warning memplan: CUDA toolkit at $(CUDA_HOME) but no CUPTI \
	($(if $(CUPTI_INCDIR),,cupti.h not in include/ or extras/CUPTI/include/)$(if $(CUPTI_INCDIR)$(CUPTI_LIB),,; )$(if $(CUPTI_LIB),,libcupti.so or libcupti.so.13 not in lib64/, lib/ or extras/CUPTI/lib64/)): \
	libmemplan-capture.so is NOT built and memplan-capture cannot record; \
	install CUPTI (cuda-cupti-dev, or pip nvidia-cuda-cupti) or set CUDA_HOME)
endif
endif

# -isystem: the toolkit's headers are not held to our warnings
CAP_CUDA_CFLAGS := -isystem $(CUDA_HOME)/include -isystem $(CUPTI_INCDIR) \
		   -DMEMPLAN_HAVE_CUPTI=1
# Needs the CUPTI headers; built, tested and linked only with them.
CAP_CUDA_SRC := capture/translate.c
CAP_CUDA_OBJ := $(patsubst %.c,$(BUILD)/obj/%.o,$(CAP_CUDA_SRC))
CAP_HOST_OBJ := $(BUILD)/obj/capture/backend_host.o
$(CAP_CUDA_OBJ): CAP_EXTRA := $(CAP_CUDA_CFLAGS)

EXTRA_ALL += $(CAP_BIN)
EXTRA_INSTALL += install-capture
EXTRA_UNINSTALL += uninstall-capture
EXTRA_BENCH += $(BUILD)/bench/bench_capture

$(BUILD)/obj/capture/%.o: capture/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) -Icapture $(MP_CFLAGS) $(CAP_EXTRA) $(CFLAGS) -c -o $@ $<

# The launcher finds the library next to itself (build tree: ../lib) or in
# LIBDIR once installed; the library is NVTX's injection library too.
CAP_LAUNCH_DEFS := -DMEMPLAN_CAPTURE_LIBDIR='"$(LIBDIR)"'
$(BUILD)/obj/capture/memplan-capture.o: capture/memplan-capture.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) -Icapture $(MP_CFLAGS) $(CAP_LAUNCH_DEFS) $(CFLAGS) -c -o $@ $<

$(CAP_BIN): $(BUILD)/obj/capture/memplan-capture.o $(CAP_PLAIN_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# Unit tests of the plain-C parts link them beside the core library.
$(BUILD)/obj/tests/unit/test_capture_%.o: tests/unit/test_capture_%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) -Icapture $(MP_CFLAGS) -Itests/unit \
		$(if $(CAP_HAVE_CUPTI),$(CAP_CUDA_CFLAGS)) \
		-DMEMPLAN_CAPTURE_SO='"$(abspath $(CAP_SO))"' $(CFLAGS) -c -o $@ $<

$(BUILD)/tests/test_capture_%: $(BUILD)/obj/tests/unit/test_capture_%.o $(CAP_PLAIN_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) -ldl

# The translation test builds CUPTI callback data: with CUPTI it links the
# translation and the host backend; without, it reports itself skipped.
$(BUILD)/tests/test_capture_translate: $(BUILD)/obj/tests/unit/test_capture_translate.o \
		$(if $(CAP_HAVE_CUPTI),$(CAP_CUDA_OBJ)) $(CAP_HOST_OBJ) $(CAP_PLAIN_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS) -ldl

$(BUILD)/obj/tests/bench/bench_capture.o: tests/bench/bench_capture.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) -Icapture $(MP_CFLAGS) $(if $(CAP_HAVE_CUPTI),$(CAP_CUDA_CFLAGS)) $(CFLAGS) -c -o $@ $<

$(BUILD)/bench/bench_capture: $(BUILD)/obj/tests/bench/bench_capture.o \
		$(if $(CAP_HAVE_CUPTI),$(CAP_CUDA_OBJ)) $(CAP_HOST_OBJ) $(CAP_PLAIN_OBJ) $(CORE_LIB)
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) -o $@ $^ $(LIBS)

# --- libmemplan-capture.so: the CUPTI injection library ------------------
# PIC objects, hidden by default; the version script exports the entry
# points (InitializeInjection for CUDA, InitializeInjectionNvtx2 for NVTX,
# memplan_capture_mark for marker.h).
# libcupti is linked (with an rpath to where it was found); the driver and
# the program's runtime are found with dlsym at run time (backend_cuda.c).
ifeq ($(CAP_HAVE_CUPTI),1)
CAP_SO_SRC := $(CAP_PLAIN_SRC) capture/translate.c capture/backend_cuda.c \
	      capture/inject.c
CAP_SO_OBJ := $(patsubst %.c,$(BUILD)/pic/%.o,$(CAP_SO_SRC)) \
	      $(BUILD)/pic/traces/trace.o $(BUILD)/pic/traces/tracedb.o
EXTRA_ALL += $(CAP_SO)
EXTRA_CHECK += $(CAP_SO)

$(BUILD)/pic/capture/%.o: capture/%.c
	@mkdir -p $(dir $@)
	$(call quiet,CC,$@)$(CC) -Icapture $(MP_CFLAGS) $(MP_PIC_CFLAGS) $(CAP_CUDA_CFLAGS) $(CFLAGS) -c -o $@ $<

$(CAP_SO): $(CAP_SO_OBJ) capture/exports.map
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) -shared $(CFLAGS) $(MP_LDFLAGS) $(LDFLAGS) \
		-Wl,--version-script=capture/exports.map $(if $(SANITIZE),,-Wl,--no-undefined) \
		-o $@ $(CAP_SO_OBJ) -L$(CUPTI_LIBDIR) -Wl,-rpath,$(CUPTI_LIBDIR) $(CUPTI_LINK) \
		$(LIBS) -ldl

# The stand-in libcupti (tests/cuda/cupti.c): memplan-capture records the
# stand-in libcudart's programs through the real injection library; the
# same file is the driver (libcuda.so.1) the library asks for layouts.
CAP_STANDIN := $(BUILD)/tests/cuda/cupti/libcupti.so.13
EXTRA_CHECK += $(CAP_STANDIN) $(dir $(CAP_STANDIN))libcuda.so.1
$(CAP_STANDIN): tests/cuda/cupti.c
	@mkdir -p $(dir $@)
	$(call quiet,LINK,$@)$(CC) $(MP_CFLAGS) -fPIC $(CAP_CUDA_CFLAGS) -shared $(CFLAGS) \
		$(MP_LDFLAGS) $(LDFLAGS) -Wl,-soname,libcupti.so.13 -o $@ $< -lpthread -ldl

$(dir $(CAP_STANDIN))libcuda.so.1: $(CAP_STANDIN)
	$(Q)ln -sf libcupti.so.13 $@
endif

.PHONY: install-capture uninstall-capture
install-capture: $(CAP_BIN) $(if $(CAP_HAVE_CUPTI),$(CAP_SO))
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(INCLUDEDIR)/memplan
	install -m 755 $(CAP_BIN) $(DESTDIR)$(BINDIR)
	install -m 644 capture/marker.h $(DESTDIR)$(INCLUDEDIR)/memplan/marker.h
	$(if $(CAP_HAVE_CUPTI),install -d $(DESTDIR)$(LIBDIR) && install -m 755 $(CAP_SO) $(DESTDIR)$(LIBDIR))

uninstall-capture:
	rm -f $(DESTDIR)$(BINDIR)/memplan-capture $(DESTDIR)$(LIBDIR)/libmemplan-capture.so \
		$(DESTDIR)$(INCLUDEDIR)/memplan/marker.h

# header dependencies of the component's own objects (the top-level list
# does not hold them)
-include $(CAP_PLAIN_OBJ:.o=.d) $(CAP_CUDA_OBJ:.o=.d) $(CAP_HOST_OBJ:.o=.d) \
	 $(BUILD)/obj/capture/memplan-capture.d \
	 $(patsubst %.c,$(BUILD)/pic/%.d,$(CAP_SO_SRC)) \
	 $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.d,$(wildcard tests/unit/test_capture_*.c))
