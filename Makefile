# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# bpflab top-level Makefile.
#
#   make            build everything into build/
#   make demo       install deps, build, bring up the lab in a box, run plans/quickstart.yaml
#   make demo-kernels  the same on three QEMU guests booting real kernels, ending with a
#                   compare table grouped by kernel.release (lab/demo-kernels.sh)
#   make check      install deps, build, run unit + integration tests (needs root)
#   make demo-nics  guests per kernel and NIC model (virtio_net, vmxnet3, e1000e),
#                   plans/nic-compare.yaml, the driver x kernel table (lab/demo-nics.sh)
#   make demo-bisect-source  bisect a real kernel tree (linux-source-6.12 + 8 commits):
#                   build, boot, measure each commit (lab/demo-bisect-source.sh)
#   make check-kernel-build  that bisection twice as a test (long: kernel builds; CI
#                   runs it when BPFLAB_KERNEL_BUILD=1)
#   make unit       unit tests only
#   make soak       the long fault soak (tests/soak/soak.sh: >= 100 SIGKILLs of agents and
#                   bpflabd, disks that fill; SOAK_ARGS="--seed S"); the short one is in check
#   make fuzz       run the libFuzzer targets for a bounded time (FUZZ_SECONDS)
#   make asan       build with AddressSanitizer into build-asan/
#   make install    install under PREFIX (default /usr/local), DESTDIR; make uninstall
#   make deb        a Debian package, build/bpflab_VERSION_ARCH.deb (dist/install.mk)
#
# Sources are picked up by wildcard: every lib/*/*.c goes into libbpflab.a, every
# agent/ coordinator/ cli/ web/ *.c except main.c into a per-part archive, main.c makes the
# binary. Unit tests tests/unit/test_*.c link against all archives and
# tests/unit/helpers.c and the tests/unit/*_fixture.c.

V ?= 0
Q := $(if $(filter 1,$(V)),,@)
msg = $(if $(filter 1,$(V)),,@printf '  %-8s %s\n' "$(1)" "$(2)";)

BUILD    ?= build
CC       ?= gcc
CLANG    ?= clang
BPFTOOL  ?= bpftool
PKGS     := libbpf libzmq yaml-0.1 sqlite3 jansson zlib libmicrohttpd
ARCH_INC := /usr/include/$(shell $(CC) -dumpmachine)

CFLAGS   ?= -O2 -g
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow \
            -Wstrict-prototypes -Wmissing-prototypes -D_GNU_SOURCE \
            -Ilib -iquote agent -iquote coordinator -iquote cli -iquote web -I$(BUILD)/bpf -Ibpf \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
override LDLIBS += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lpthread -lm
BPF_CFLAGS := -O2 -g -target bpf -Wall -Werror -I$(ARCH_INC) -Ibpf

LIB_SRCS   := $(wildcard lib/*/*.c)
AGENT_SRCS := $(filter-out agent/main.c,$(wildcard agent/*.c))
COORD_SRCS := $(filter-out coordinator/main.c,$(wildcard coordinator/*.c))
CLI_SRCS   := $(filter-out cli/main.c,$(wildcard cli/*.c))
WEB_SRCS   := $(wildcard web/*.c)
BPF_SRCS   := $(wildcard bpf/*.bpf.c)
BPF_OBJS   := $(patsubst bpf/%.bpf.c,$(BUILD)/bpf/%.bpf.o,$(BPF_SRCS))
# Programs built into the agent through generated skeletons.
SKELS      := $(BUILD)/bpf/xdp_gen.skel.h $(BUILD)/bpf/latency_rx.skel.h $(BUILD)/bpf/rxpath.skel.h
UNIT_SRCS  := $(wildcard tests/unit/test_*.c)
UNIT_BINS  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

SCHEMA_SQL := $(sort $(wildcard schema/[0-9][0-9][0-9]_*.sql))
SCHEMA_C   := $(BUILD)/gen/schema.c

LIBA   := $(BUILD)/libbpflab.a
AGENTA := $(BUILD)/libagent.a
COORDA := $(BUILD)/libcoord.a
CLIA   := $(BUILD)/libcli.a
WEBA   := $(BUILD)/libweb.a
BINS   := $(BUILD)/bin/bpflab $(BUILD)/bin/bpflabd $(BUILD)/bin/bpflab-agent

.PHONY: all deps demo demo-kernels demo-nics check unit integration fuzz asan clean lab-down bench demo-bisect-source check-kernel-build
all: $(BINS) $(BPF_OBJS)

deps:
	$(Q)sh scripts/deps.sh

$(BUILD)/obj/%.o: %.c
	$(call msg,CC,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

# agent sources include the generator skeleton
$(call obj,$(AGENT_SRCS) agent/main.c): $(SKELS)

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h)
	$(call msg,BPF,$<)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

$(SCHEMA_C): $(SCHEMA_SQL) schema scripts/embed-schema.sh
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)sh scripts/embed-schema.sh $@ $(SCHEMA_SQL)

$(BUILD)/obj/schema.o: $(SCHEMA_C)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

$(LIBA): $(call obj,$(LIB_SRCS)) $(BUILD)/obj/schema.o

# The one version of every binary (lib/base/version.c): the VERSION file.
BPFLAB_VERSION := $(shell cat VERSION)
$(call obj,lib/base/version.c): VERSION
$(call obj,lib/base/version.c): override CFLAGS += -DBPFLAB_VERSION='"$(BPFLAB_VERSION)"'
$(AGENTA): $(call obj,$(AGENT_SRCS))
$(COORDA): $(call obj,$(COORD_SRCS))
$(CLIA): $(call obj,$(CLI_SRCS))
$(WEBA): $(call obj,$(WEB_SRCS))
$(LIBA) $(AGENTA) $(COORDA) $(CLIA) $(WEBA):
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/bin/bpflab: $(call obj,cli/main.c) $(CLIA) $(WEBA) $(LIBA)
$(BUILD)/bin/bpflabd: $(call obj,coordinator/main.c) $(COORDA) $(WEBA) $(LIBA)
$(BUILD)/bin/bpflab-agent: $(call obj,agent/main.c) $(AGENTA) $(LIBA)
$(BINS):
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# tests/unit/helpers.c (helpers.h) holds what several tests share, store_fixture.c the
# store tests' fixture, coord_fixture.c the coordinator tests', report_fixture.c the
# result report tests', plan_fixture.c the plan model tests'; linked into each.
UNIT_FIXTURES := store coord report plan
UNIT_HELPERS := $(call obj,tests/unit/helpers.c $(UNIT_FIXTURES:%=tests/unit/%_fixture.c))
$(UNIT_HELPERS): tests/unit/helpers.h $(UNIT_FIXTURES:%=tests/unit/%_fixture.h)
$(call obj,tests/unit/coord_fixture.c): override CFLAGS += -DBPFLAB_BUILDDIR='"$(abspath $(BUILD))"'
$(BUILD)/tests/test_%: tests/unit/test_%.c $(wildcard tests/unit/*.h) $(UNIT_HELPERS) $(CLIA) \
		       $(WEBA) $(COORDA) $(AGENTA) $(LIBA) $(BPF_OBJS)
	$(call msg,TEST,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -DBPFLAB_SRCDIR='"$(CURDIR)"' -DBPFLAB_BUILDDIR='"$(abspath $(BUILD))"' \
		-o $@ $< $(UNIT_HELPERS) $(CLIA) $(WEBA) $(COORDA) $(AGENTA) $(LIBA) $(LDLIBS) \
		$(shell pkg-config --libs cmocka)

# the benches are built (not run) with the tests, so a change cannot break them unseen
unit: deps
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(BENCH_BINS)
	$(Q)sh tests/check-layout.sh $(BUILD)
	$(Q)python3 tests/check-paths.py
	$(Q)sh tests/run-unit.sh $(UNIT_BINS)

integration: deps all
	$(Q)sh scripts/deps.sh browser package
	$(Q)sh tests/run-integration.sh

check: deps
	$(Q)sh scripts/deps.sh browser package
	$(Q)$(MAKE) --no-print-directory all $(UNIT_BINS) $(BENCH_BINS)
	$(Q)sh tests/check-layout.sh $(BUILD)
	$(Q)python3 tests/check-paths.py
	$(Q)sh tests/run-unit.sh $(UNIT_BINS)
	$(Q)sh tests/run-integration.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh lab/demo.sh

demo-kernels: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh lab/demo-kernels.sh

demo-nics: deps
	$(Q)sh scripts/deps.sh guests
	$(Q)$(MAKE) --no-print-directory all
	$(Q)sh lab/demo-nics.sh

demo-bisect-source: deps
	$(Q)sh scripts/deps.sh guests kbuild
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bash lab/demo-bisect-source.sh

# not in check: the first kernel build takes tens of minutes (docs/kernels.md)
check-kernel-build: deps
	$(Q)sh scripts/deps.sh guests kbuild
	$(Q)$(MAKE) --no-print-directory all
	$(Q)BPFLAB_KERNEL_BUILD=1 BPFLAB_IT_TIMEOUT=7200 TESTS=kernel_build.sh sh tests/run-integration.sh

lab-down:
	$(Q)sh lab/lab down

# Benchmarks of bpflab itself (bench/README.md): bench/NAME.c -> build/bench/NAME,
# linked like the unit tests; `make bench` builds and runs them (as root). Not in check.
BENCH_BINS := $(patsubst bench/%.c,$(BUILD)/bench/%,$(wildcard bench/*.c))
# bench/web.c serves with web/ and runs bin/bpflab beside it
$(BUILD)/bench/web: bench/web.c $(WEBA) $(LIBA) $(BUILD)/bin/bpflab
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(WEBA) $(LIBA) $(LDLIBS)
$(BUILD)/bench/%: bench/%.c $(AGENTA) $(LIBA)
	$(call msg,BENCH,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) -o $@ $< $(AGENTA) $(LIBA) $(LDLIBS)
bench: $(BENCH_BINS)
	$(Q)for b in $(BENCH_BINS); do echo "== $$b"; $$b || exit 1; done
.PHONY: bench-validity
bench-validity: all	# bench/validity.sh on a lab of its own (bench/README.md); VALIDITY_ARGS="--pairs 3"
	$(Q)BPFLAB_BIN=$(abspath $(BUILD))/bin bash bench/validity.sh $(VALIDITY_ARGS)
.PHONY: bench-bigrun
bench-bigrun: all	# bench/bigrun.sh: one run of 10k/40k/160k jobs (bench/README.md); BIGRUN_ARGS="--base DIR"
	$(Q)bash bench/bigrun.sh $(BIGRUN_ARGS)
.PHONY: soak
soak: all	# tests/soak/soak.sh, the long version (bench/README.md, "soak"); SOAK_ARGS="--seed 7"
	$(Q)BPFLAB_BIN=$(abspath $(BUILD))/bin bash tests/soak/soak.sh --kills 120 --seconds 1200 $(SOAK_ARGS)
.PHONY: bench-ndr
bench-ndr: all	# bench/ndr.sh: MLRsearch against the binary search on the lab (bench/README.md); NDR_ARGS="--rounds 3"
	$(Q)BPFLAB_BIN=$(abspath $(BUILD))/bin bash bench/ndr.sh $(NDR_ARGS)

FUZZ_SECONDS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,$(BUILD)/fuzz/fuzz_%,$(wildcard tests/fuzz/fuzz_*.c))
# Every target links all of lib/; one that fuzzes agent/ or web/ code names those sources here.
FUZZ_SRCS_agent_config  := agent/config.c agent/provider.c
FUZZ_SRCS_provider_list := agent/provider.c
FUZZ_SRCS_probe_frame   := agent/probe.c
FUZZ_SRCS_verifier_log  := agent/verifier_log.c
FUZZ_SRCS_job_objects   := agent/objstore.c
FUZZ_SRCS_web_query     := web/web_util.c web/web_guard.c
$(BUILD)/fuzz/fuzz_agent_config: $(FUZZ_SRCS_agent_config) $(wildcard agent/*.h)
$(BUILD)/fuzz/fuzz_provider_list: $(FUZZ_SRCS_provider_list) $(wildcard agent/*.h)
$(BUILD)/fuzz/fuzz_probe_frame: $(FUZZ_SRCS_probe_frame) $(wildcard agent/*.h)
$(BUILD)/fuzz/fuzz_verifier_log: $(FUZZ_SRCS_verifier_log) $(wildcard agent/*.h)
$(BUILD)/fuzz/fuzz_job_objects: $(FUZZ_SRCS_job_objects) $(wildcard agent/*.h)
$(BUILD)/fuzz/fuzz_web_query: $(FUZZ_SRCS_web_query) web/web.h
$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_SRCS) $(wildcard lib/*/*.h) $(SCHEMA_C)
	$(call msg,FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -DBPFLAB_VERSION='"$(BPFLAB_VERSION)"' -Ilib -Ibpf -iquote agent -iquote web \
		$(shell pkg-config --cflags $(PKGS)) -o $@ $< $(FUZZ_SRCS_$*) $(LIB_SRCS) \
		$(SCHEMA_C) $(LDLIBS)
fuzz: deps
	$(Q)$(MAKE) --no-print-directory $(FUZZ_TARGETS) $(BUILD)/bin/bpflab
	$(Q)sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# -O1 makes GCC's maybe-uninitialized guesses that -O2 does not (web_util.c's klen,
# dispatch.c's ids): warnings here, not errors
asan:
	$(Q)$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -Wno-error=maybe-uninitialized" LDLIBS="-fsanitize=address,undefined" all

clean:
	$(Q)rm -rf $(BUILD) build-asan

# make install, uninstall, deb (PREFIX, DESTDIR): dist/install.mk
include dist/install.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
