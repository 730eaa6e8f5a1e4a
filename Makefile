# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# memstat: `make` builds build/memstat; `make run`, `make test`, `make bench` (run as root).
# Quiet by default; V=1 prints every command.

BUILD     ?= build
CC        ?= gcc
CXX       ?= g++
CLANG     ?= clang
CLANGXX   ?= clang++
BPFTOOL   ?= bpftool
MULTIARCH := $(shell $(CC) -print-multiarch 2>/dev/null)
# the release: kept here only (debian/changelog must say the same, debian/rules checks); a git
# checkout's binary says its commit instead
RELEASE   := 0.1
VERSION   := $(shell git describe --tags --always --dirty 2>/dev/null || echo $(RELEASE))

CFLAGS    ?= -O2 -g
CFLAGS    += -Wall -Wextra -Wno-unused-parameter -std=gnu11 -DMEMSTAT_VERSION='"$(VERSION)"'
CXXFLAGS  ?= -O2 -g
CXXFLAGS  += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -std=gnu++17
# the layout: include/ (the ABI and the classifier, shared with BPF and the module), src/ and its
# parts (docs/development.md); every part's headers by name, objects flat in $(BUILD)
SRC_DIRS  := src src/cmd src/rmss src/backend src/core src/sys src/out src/dump
CPPFLAGS  += -Iinclude -Ibpf $(addprefix -I,$(SRC_DIRS)) -I$(BUILD) -MMD -MP
BPFFLAGS  := -g -O2 -target bpf -D__TARGET_ARCH_x86 -Wall -Wno-unused-function \
             $(if $(MULTIARCH),-idirafter /usr/include/$(MULTIARCH)) -Iinclude -Ibpf
LDLIBS    := -Wl,-Bstatic -lbpf -lelf -lz -lzstd -llzo2 -lsnappy -lstdc++ -ljansson -lm
LDFLAGS   += -static

# SANITIZE=1: user space under ASan+UBSan, built by clang (one runtime for both, which honours
# UBSAN_OPTIONS; gcc's UBSan beside its ASan ignores log_path and exitcode) and linked
# dynamically (ASan cannot link statically); the BPF object is built as always. Used by
# `make san` in its own directory, $(BUILD)/san.
ifeq ($(SANITIZE),1)
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
override CC  := $(CLANG) $(SAN_FLAGS)
override CXX := $(CLANGXX) $(SAN_FLAGS)
CFLAGS    += -DMEMSTAT_TEST_HOOKS
LDFLAGS   := $(filter-out -static,$(LDFLAGS))
LDLIBS    := -lbpf -lelf -lz -lzstd -llzo2 -lsnappy -lstdc++ -ljansson -lm
endif

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' '$(1)' '$(2)';
endif

.DELETE_ON_ERROR:
.PHONY: wss-picture vm-bins all run test unit integration cli pytest bench clean kmod kmod-clean vmtest
.PHONY: fuzz fuzz-bins san san-bins vmtest-debug
.PHONY: man install uninstall pkgtest rmsstest debtest

USER_SRCS := $(wildcard $(addsuffix /*.c,$(SRC_DIRS)))
USER_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(notdir $(USER_SRCS)))
vpath %.c $(SRC_DIRS)
LIB_OBJS  := $(filter-out $(BUILD)/memstat.o,$(USER_OBJS))
# the test build (src/core/testhooks.h): the same objects, but testhooks.c with its hooks on;
# the suites run $(BUILD)/memstat-test and link TEST_LIB_OBJS, the installed memstat has none
TEST_USER_OBJS := $(filter-out $(BUILD)/testhooks.o,$(USER_OBJS)) $(BUILD)/testhooks-test.o
TEST_LIB_OBJS  := $(filter-out $(BUILD)/memstat.o,$(TEST_USER_OBJS))
UNIT_SRCS := $(wildcard tests/unit/*.cc)
INTEG_SRCS := $(wildcard tests/integration/*.cc)

# the man pages, one per verb (docs/NAME.8.scd)
MAN_PAGES := memstat memstat-allpages memstat-diff memstat-map memstat-plot memstat-rmss memstat-serve
MAN_OUT   := $(patsubst %,$(BUILD)/%.8,$(MAN_PAGES))

all: $(BUILD)/memstat $(MAN_OUT)

$(BUILD):
	$(Q)mkdir -p $@

$(BUILD)/memstat.bpf.o: bpf/memstat.bpf.c | $(BUILD)
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPFFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/memstat.skel.h: $(BUILD)/memstat.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name memstat_bpf > $@

$(BUILD)/bpf_backend.o $(BUILD)/bpf_open.o $(BUILD)/btf_cache.o: $(BUILD)/memstat.skel.h

$(BUILD)/%.o: %.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/memstat: $(USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/testhooks-test.o: src/core/testhooks.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -DMEMSTAT_TEST_HOOKS -c $< -o $@

$(BUILD)/memstat-test: $(TEST_USER_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# ---- tests ----
# the tests that load the walker themselves include its skeleton
$(BUILD)/tests/integration/btf_cache_test.o: $(BUILD)/memstat.skel.h
$(BUILD)/tests/%.o: tests/%.cc
	$(call msg,CXX,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CXX) $(CPPFLAGS) -Itests $(CXXFLAGS) -c $< -o $@

$(BUILD)/unit_tests: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(UNIT_SRCS)) $(TEST_LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) $^ -lgtest -lgtest_main -pthread $(LDLIBS) -Wl,-Bdynamic -o $@

# the integration tests count libbpf's parses of the kernel's BTF (btf_cache_test.cc)
INTEG_WRAP := -Wl,--wrap=btf__load_vmlinux_btf

$(BUILD)/integration_tests: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(INTEG_SRCS)) $(TEST_LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) $^ -lgtest -lgtest_main -pthread $(INTEG_WRAP) $(LDLIBS) -Wl,-Bdynamic -o $@

# the integration tests as one static binary, to run inside a bare VM initramfs (tools/vm)
$(BUILD)/integration_tests.static: $(patsubst tests/%.cc,$(BUILD)/tests/%.o,$(INTEG_SRCS)) $(TEST_LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CXX) -static $^ -lgtest -lgtest_main -pthread $(INTEG_WRAP) $(LDLIBS) -o $@

# everything a VM of tools/vm runs
vm-bins: $(BUILD)/memstat-test $(BUILD)/integration_tests.static $(BUILD)/churn $(BUILD)/bench $(BUILD)/vmload $(BUILD)/kmod_abuse $(BUILD)/toucher \
         $(BUILD)/kexec_crash

run: $(BUILD)/memstat
	$(BUILD)/memstat

# ---- the man pages (one per verb, docs/NAME.8.scd, by scdoc) and make install/uninstall ----
SCDOC ?= scdoc
man: $(MAN_OUT)

$(BUILD)/%.8: docs/%.8.scd | $(BUILD)
	$(call msg,SCDOC,$@)
	$(Q)$(SCDOC) < $< > $@
	$(Q)sed -i '/^\.TH /a .nh' $@	# no hyphens inside option and key names

# memstat needs root (CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON): a system administration command, so
# sbin and man section 8. The unit's ExecStart is rewritten to where the binary goes.
PREFIX     ?= /usr/local
SBINDIR    ?= $(PREFIX)/sbin
MANDIR     ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
INSTALLED  := $(SBINDIR)/memstat $(patsubst %,$(MANDIR)/man8/%.8,$(MAN_PAGES)) $(BASHCOMPDIR)/memstat \
              $(ZSHCOMPDIR)/_memstat $(UNITDIR)/memstat.service $(UNITDIR)/memstat-serve.service \
              $(SYSCONFDIR)/logrotate.d/memstat

install: $(BUILD)/memstat $(MAN_OUT)
	install -D -m 0755 $(BUILD)/memstat $(DESTDIR)$(SBINDIR)/memstat
	install -d $(DESTDIR)$(MANDIR)/man8
	install -m 0644 $(MAN_OUT) $(DESTDIR)$(MANDIR)/man8/
	install -D -m 0644 contrib/completion/memstat.bash $(DESTDIR)$(BASHCOMPDIR)/memstat
	install -D -m 0644 contrib/completion/_memstat $(DESTDIR)$(ZSHCOMPDIR)/_memstat
	install -d $(DESTDIR)$(UNITDIR)
	sed 's|^ExecStart=/usr/local/bin/memstat |ExecStart=$(SBINDIR)/memstat |' contrib/memstat.service \
		> $(DESTDIR)$(UNITDIR)/memstat.service
	sed 's|^ExecStart=/usr/local/bin/memstat |ExecStart=$(SBINDIR)/memstat |' \
		contrib/memstat-serve.service > $(DESTDIR)$(UNITDIR)/memstat-serve.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/memstat.service $(DESTDIR)$(UNITDIR)/memstat-serve.service
	install -D -m 0644 contrib/memstat.logrotate $(DESTDIR)$(SYSCONFDIR)/logrotate.d/memstat

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# the man page, the completions and make install/uninstall (tests/pkg_test.sh)
pkgtest: $(BUILD)/memstat $(MAN_OUT)
	bash tests/pkg_test.sh $(BUILD)

# the Debian packages (debian/): dpkg-buildpackage, lintian, install in a Debian 12 chroot, the
# module built by DKMS and loaded in a VM (MEMSTAT_VM=0 leaves the VM out); tests/deb_test.sh
debtest:
	bash tests/deb_test.sh $(BUILD)

unit: $(BUILD)/unit_tests
	$(BUILD)/unit_tests

integration: $(BUILD)/memstat-test $(BUILD)/integration_tests
	MEMSTAT=$(BUILD)/memstat-test $(BUILD)/integration_tests

$(BUILD)/churn: tests/tools/churn.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

# the module's ioctl fed bad input, run inside the debug-kernel VM (tools/vm/debug-kernel.sh)
$(BUILD)/kmod_abuse: tests/tools/kmod_abuse.c include/memstat.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Iinclude -static -pthread $< -o $@

$(BUILD)/vmload: tests/tools/vmload.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

# --wss's workload in the debug-kernel VM (the idle page bitmap: tools/vm/debug-init.sh)
$(BUILD)/toucher: tests/tools/toucher.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

# the test VMs' kdump: loads the capture kernel (tools/vm/init.sh, MEMSTAT_VM_KDUMP)
$(BUILD)/kexec_crash: tests/tools/kexec_crash.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -static $< -o $@

# memstat rmss's workload with a known working set (tests/rmss_test.py)
$(BUILD)/wsread: tests/tools/wsread.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

# memstat rmss: cgroup mode against a known working set, -c/-p/-r, Ctrl-C, bad input (root)
rmsstest: $(BUILD)/memstat-test $(BUILD)/wsread
	MEMSTAT=$(BUILD)/memstat-test WSREAD=$(BUILD)/wsread /usr/bin/python3 -m pytest -q -rs tests/rmss_test.py

$(BUILD)/nobpf: tests/tools/nobpf.c | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

cli: $(BUILD)/memstat $(BUILD)/memstat-test $(BUILD)/nobpf
	bash tests/cli_test.sh $(BUILD)/memstat-test $(BUILD)/nobpf $(BUILD)/memstat

pytest: $(BUILD)/memstat-test
	MEMSTAT=$(BUILD)/memstat-test /usr/bin/python3 -m pytest -q tests/sampling_test.py tests/picture_test.py \
		tests/grafana_test.py tests/formats_test.py tests/docs_test.py tests/layout_test.py tests/compare_test.py tests/serve_test.py \
		tests/core_test.py

# every suite, then one "N passed, N failed" line
test: $(BUILD)/memstat $(BUILD)/memstat-test $(MAN_OUT) $(BUILD)/nobpf $(BUILD)/unit_tests $(BUILD)/integration_tests fuzz-bins san-bins \
      $(BUILD)/kmod_abuse $(BUILD)/toucher
	bash tests/run.sh $(BUILD)

# ---- fuzzing (tests/fuzz: libFuzzer, clang) and the sanitizer build ----
# one fuzzer per parser of outside input; `make fuzz` runs each FUZZ_SECONDS, `make test` briefly
FUZZ_TARGETS := iomem zoneinfo meminfo csv_header cmdline allpages_cmdline plot_log mountinfo escape \
                diff_log http_request mglru dump
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -g -O1 -fno-omit-frame-pointer -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
                -Wno-unused-function -DMEMSTAT_VERSION='"$(VERSION)"' $(FUZZ_SAN) -fsanitize=fuzzer-no-link
# user space with coverage; memstat.c (main) only where a target includes it
FUZZ_LIB     := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(notdir $(filter-out src/memstat.c,$(USER_SRCS))))
FUZZ_LINK     = $(CLANG) $(FUZZ_SAN) -fsanitize=fuzzer $^ -lbpf -lelf -lz -lzstd -llzo2 -lsnappy -lstdc++ -ljansson -lm -o $@

$(FUZZ_DIR)/obj/%.o: %.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/obj/bpf_backend.o $(FUZZ_DIR)/obj/bpf_open.o $(FUZZ_DIR)/obj/btf_cache.o: $(BUILD)/memstat.skel.h

$(FUZZ_DIR)/%.o: tests/fuzz/%.c
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)$(CLANG) $(CPPFLAGS) -Itests/fuzz $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/%.o $(FUZZ_LIB)
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_LINK)

# this one includes allpages.c itself
$(FUZZ_DIR)/fuzz_allpages_cmdline: $(FUZZ_DIR)/allpages_cmdline.o $(filter-out %/allpages.o,$(FUZZ_LIB))
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_LINK)

# and this one options.c
$(FUZZ_DIR)/fuzz_cmdline: $(FUZZ_DIR)/cmdline.o $(filter-out %/options.o,$(FUZZ_LIB))
	$(call msg,LINK,$@)
	$(Q)$(FUZZ_LINK)

fuzz-bins: $(addprefix $(FUZZ_DIR)/fuzz_,$(FUZZ_TARGETS))
# objects of pattern rules only: keep them (make deletes intermediate files)
.SECONDARY: $(FUZZ_LIB) $(patsubst %,$(FUZZ_DIR)/%.o,$(FUZZ_TARGETS))

# every fuzzer for FUZZ_SECONDS from its corpus (tests/fuzz/corpus/TARGET); a crash is kept in
# $(FUZZ_DIR)/artifacts
fuzz: fuzz-bins
	bash tests/fuzz/run.sh $(BUILD) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# unit, cli and pytest suites against the same code built with ASan+UBSan
SAN_DIR := $(BUILD)/san
san-bins:
	$(Q)$(MAKE) -s --no-print-directory BUILD=$(SAN_DIR) SANITIZE=1 $(SAN_DIR)/memstat \
		$(SAN_DIR)/nobpf $(SAN_DIR)/unit_tests

san: san-bins
	bash tests/fuzz/sanitize.sh $(SAN_DIR)

-include $(wildcard $(FUZZ_DIR)/*.d $(FUZZ_DIR)/obj/*.d)

$(BUILD)/bench: $(BUILD)/bench.o $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(BUILD)/bench.o: tools/bench.c $(BUILD)/memstat.skel.h | $(BUILD)
	$(call msg,CC,$@)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

# BUSY=1: measure under a load sized from MemTotal (anon, THP, page cache of a file in BUSY_DIR,
# default /var/tmp), held while measuring and undone at exit
bench: $(BUILD)/memstat $(BUILD)/bench
	$(BUILD)/bench $(if $(filter 1,$(BUSY)),--busy) $(if $(BUSY_DIR),--busy-dir $(BUSY_DIR)) \
		$(BUILD)/memstat
	/usr/bin/python3 tools/bench_core.py $(BUILD)/memstat

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

# docs/memstat-plot-wss.png: a real --wss log over time from a VM of kernel 6.12 (MGLRU on; the
# workload in tools/vm/init.sh, memstat.wsslog=1), drawn by memstat plot
WSS_PICTURE_CACHE ?= $(or $(MEMSTAT_VM_CACHE),/var/cache/memstat-vm)
wss-picture: $(BUILD)/memstat
	MEMSTAT_VM_APPEND="memstat.wsslog=1 GTEST_FILTER=Wss.SaysWhatItCannotSeeAndLeavesDamonAlone" \
		bash tools/vm/matrix.sh 6.12 || true
	test -s $(WSS_PICTURE_CACHE)/6.12/wss.csv
	cp $(WSS_PICTURE_CACHE)/6.12/wss.csv docs/memstat-wss.csv
	$(BUILD)/memstat plot docs/memstat-wss.csv -o docs/memstat-plot-wss.png

# the module under a KASAN + lockdep + DEBUG_PAGEALLOC kernel built from Debian's linux-source
# (cached), with its ioctl fed bad input; one PASS/FAIL line
vmtest-debug: $(BUILD)/memstat $(BUILD)/kmod_abuse $(BUILD)/toucher
	bash tools/vm/debug-kernel.sh $(BUILD)

kmod-clean:
	$(Q)$(MAKE) -C $(KDIR) M=$(CURDIR)/kmod clean

clean:
	rm -rf $(BUILD)

-include $(wildcard $(BUILD)/*.d $(BUILD)/tests/*/*.d)
