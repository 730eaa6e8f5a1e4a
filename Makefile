# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# memstat: `make` builds build/memstat; `make run`, `make test`, `make bench` (run as root).
# Quiet by default; V=1 prints every command.

BUILD     ?= build
CC        ?= gcc
CXX       ?= g++
CLANG     ?= clang
BPFTOOL   ?= bpftool
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo 0.1)

CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -DMEMSTAT_VERSION='"$(VERSION)"'
CXXFLAGS  ?= -O2 -g
CXXFLAGS  += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -std=gnu++17
CPPFLAGS  += -Ibpf -Iuserspace -I$(BUILD) -MMD -MP
BPFFLAGS  := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
             $(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH)) -Ibpf
LDLIBS    := -Wl,-Bstatic -lbpf -lelf -lz -lzstd -lm
LDFLAGS   += -static

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

.DELETE_ON_ERROR:
.PHONY: vm-bins all run test unit integration cli pytest bench clean kmod kmod-clean vmtest

USER_SRCS := $(wildcard userspace/*.c)
USER_OBJS := $(patsubst userspace/%.c,$(BUILD)/%.o,$(USER_SRCS))
LIB_OBJS  := $(filter-out $(BUILD)/memstat.o,$(USER_OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.cc)
INTEG_SRCS := $(wildcard tests/integration/*.cc)

all: $(BUILD)/memstat

$(BUILD):
	$(Q)mkdir -p $@

$(BUILD)/memstat.bpf.o: bpf/memstat.bpf.c | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/memstat.skel.h: $(BUILD)/memstat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name memstat_bpf > $@

$(BUILD)/bpf_backend.o: $(BUILD)/memstat.skel.h

$(BUILD)/%.o: userspace/%.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/memstat: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- tests ----
$(BUILD)/tests/%.o: tests/%.cc
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CXX) $(CPPFLAGS) -Itests $(CXXFLAGS) -c $< -o $@

$(BUILD)/unit_tests: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(UNIT_SRCS)) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) $^ -lgtest -lgtest_main -pthread $(LDLIBS) -Wl,-Bdynamic -o $@

$(BUILD)/integration_tests: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(INTEG_SRCS)) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) $^ -lgtest -lgtest_main -pthread $(LDLIBS) -Wl,-Bdynamic -o $@

# the integration tests as one static binary, to run inside a bare VM initramfs (tools/vm)
$(BUILD)/integration_tests.static: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(INTEG_SRCS)) $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) -static $^ -lgtest -lgtest_main -pthread $(LDLIBS) -o $@

# everything a VM of tools/vm runs
vm-bins: $(BUILD)/memstat $(BUILD)/integration_tests.static $(BUILD)/churn $(BUILD)/bench $(BUILD)/vmload

run: $(BUILD)/memstat
	$(BUILD)/memstat

unit: $(BUILD)/unit_tests
	$(BUILD)/unit_tests

integration: $(BUILD)/memstat $(BUILD)/integration_tests
	MEMSTAT=$(BUILD)/memstat $(BUILD)/integration_tests

$(BUILD)/churn: tests/tools/churn.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

$(BUILD)/vmload: tests/tools/vmload.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

$(BUILD)/nobpf: tests/tools/nobpf.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

cli: $(BUILD)/memstat $(BUILD)/nobpf
	bash tests/cli_test.sh $(BUILD)/memstat $(BUILD)/nobpf

pytest: $(BUILD)/memstat
	MEMSTAT=$(BUILD)/memstat /usr/bin/python3 -m pytest -q tests/sampling_test.py

# every suite, then one "N passed, N failed" line
test: $(BUILD)/memstat $(BUILD)/nobpf $(BUILD)/unit_tests $(BUILD)/integration_tests
	bash tests/run.sh $(BUILD)

$(BUILD)/bench: $(BUILD)/bench.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/bench.o: tools/bench.c $(BUILD)/memstat.skel.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

bench: $(BUILD)/memstat $(BUILD)/bench
	$(BUILD)/bench $(BUILD)/memstat

# ---- the optional kernel module: make kmod [KDIR=<kernel headers>] ----
KDIR ?= /lib/modules/$(shell uname -r)/build

kmod:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "kmod: no kernel headers at $(KDIR): install linux-headers-$$(uname -r)" \
		     "or pass KDIR=<headers of the target kernel>" >&2; exit 2; fi
	$(Q)$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod modules
	@echo "kmod: built kmod/memstat.ko for $$(modinfo -F vermagic kmod/memstat.ko 2>/dev/null || \
		strings kmod/memstat.ko | sed -n 's/^vermagic=//p')"
	@echo "kmod: it loads only on that kernel build (vermagic); on another the kernel refuses" \
	      "it ('Invalid module format'): rebuild with that kernel's KDIR"

# boot Debian kernels 6.1 ... 7.x under qemu and run memstat, the module and the tests in each
vmtest:
	bash tools/vm/matrix.sh

kmod-clean:
	$(Q)$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*/*.d)
