# SPDX-License-Identifier: GPL-2.0-or-later
# thp - Transparent Huge Pages, explained and controlled
VERSION := 0.1.0
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
CC ?= cc
PKGS := smartcols json-c libtracefs libtraceevent libmicrohttpd libarchive
B ?= build

OPT ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wno-format-truncation
ifdef SAN
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
endif
# The libraries are found by pkg-config, once per make run, on any
# distribution. Installing them is a step of its own ('make deps', Debian and
# Ubuntu); 'make run' and 'make check' take it first and then build in a
# sub-make, which finds what it installed.
# libmicrohttpd and libarchive are not linked: 'thp serve' and 'thp report'
# open them by their sonames (see src/cmd/serve.c, src/core/unpack.c)
LINK_PKGS := $(filter-out libmicrohttpd libarchive,$(PKGS))
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS := $(shell pkg-config --libs $(LINK_PKGS) 2>/dev/null)
# expanded by the recipes of serve.o and unpack.o alone
soname = $(shell objdump -p "$$(pkg-config --variable=libdir $(1))/$(1).so" | awk '/SONAME/ {print $$2}')
THP_CFLAGS = -std=gnu11 $(OPT) $(CPPFLAGS) $(WARN) $(SANFLAGS) -D_GNU_SOURCE -DTHP_VERSION='"$(VERSION)"' \
	-Isrc $(PKG_CFLAGS) $(CFLAGS)
THP_LDLIBS = $(PKG_LIBS) $(LDLIBS)
$(B)/src/cmd/serve.o: CPPFLAGS += -DTHP_MHD_SONAME='"$(call soname,libmicrohttpd)"'
$(B)/src/core/unpack.o: CPPFLAGS += -DTHP_ARCHIVE_SONAME='"$(call soname,libarchive)"'

CORE := $(wildcard src/core/*.c)
LIB_SRC := $(CORE) $(wildcard src/render/*.c) $(wildcard src/control/*.c) $(wildcard src/cmd/*.c)
LIB_OBJ := $(LIB_SRC:%.c=$(B)/%.o)
UNIT := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

# a recipe that fails leaves no half-written target that looks up to date (build/thp.1)
.DELETE_ON_ERROR:
.PHONY: all run check check-suites broken-thp unit golden cli control faults outfiles report width prometheus ansible live sanitize bench install uninstall clean man deps deps-test regen lint lint-files fuzz fuzz-smoke hostile coverage unprivileged completion deb-test vm-check reboot-check check-valgrind service san-thp fixtures-check libraries
all: thp

deps:
	scripts/deps build
deps-lint: $(B)/.deps-lint
$(B)/.deps-lint: scripts/deps
	@mkdir -p $(B)
	scripts/deps lint
	@touch $@
$(B)/.deps-vm: scripts/deps
	@mkdir -p $(B)
	scripts/deps vm
	@touch $@
$(B)/.deps-fuzz: scripts/deps
	@mkdir -p $(B)
	scripts/deps fuzz
	@touch $@
deps-test: $(B)/.deps-test
$(B)/.deps-test: scripts/deps
	@mkdir -p $(B)
	scripts/deps test
	@touch $@

# without the flags of every library: which ones pkg-config cannot find,
# before the first compiler error
libraries:
ifeq ($(PKG_CFLAGS),)
	@command -v pkg-config > /dev/null || { echo "thp: building needs pkg-config ('make deps' installs it on Debian and Ubuntu)" >&2; exit 1; }
	@for p in $(PKGS); do pkg-config --exists $$p 2> /dev/null || m="$$m $$p"; done; \
	echo "thp: pkg-config cannot find:$$m; install their development files ('make deps' does on Debian and Ubuntu)" >&2; \
	exit 1
endif

# header dependencies: each object's .d file, written by the compiler
$(B)/%.o: %.c | libraries
	@mkdir -p $(dir $@)
	$(CC) $(THP_CFLAGS) -MMD -MP -c -o $@ $<
-include $(LIB_OBJ:.o=.d) $(B)/src/main.d

$(B)/libthp.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

$(B)/thp: $(B)/src/main.o $(B)/libthp.a
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(THP_LDLIBS)

thp: $(B)/thp
	@[ "$(B)" = build ] && cp $(B)/thp thp || true

run: deps
	@$(MAKE) --no-print-directory thp
	./thp status

# pkg-config runs at the first link of a unit test, after deps-test
CMOCKA_LIBS = $(eval CMOCKA_LIBS := $$(shell pkg-config --libs cmocka))$(CMOCKA_LIBS)
$(B)/tests/%: tests/unit/%.c $(B)/libthp.a | $(B)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) $(THP_CFLAGS) -MMD -MP -o $@ $< $(B)/libthp.a $(THP_LDLIBS) $(CMOCKA_LIBS)
-include $(UNIT:=.d)

unit: $(UNIT)
	@for t in $(UNIT); do echo "== $$t"; $$t || exit 1; done

golden: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/golden.sh

cli: $(B)/thp $(B)/tests/hog | $(B)/.deps-test
	THP=$(B)/thp HOG=$(B)/tests/hog tests/cli.sh

# set/restore/persist write paths on temporary copies of a fixture
control: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/control.sh

# every write, close, rename, fsync, unlink and mkdir of set, restore, persist
# and hugetlb set on fixture copies, failed with EIO and ENOSPC and killed
# there (strace), then many writers at once: no half-written or mixed state
faults: $(B)/thp $(B)/tests/hog | $(B)/.deps-test
	THP=$(B)/thp HOG=$(B)/tests/hog tests/faults.sh

# every file thp writes, against links, FIFOs, directories, devices and SIGTERM
outfiles: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/outfiles.sh

# the live tests' workloads: hog, nothp, oddname
$(B)/tests/%: tests/live/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<

# The ASan/UBSan build, for the live tests that run it (tests/live/t_sanitize.sh).
SAN_THP := build/san/thp
san-thp:
	$(MAKE) B=build/san SAN=1 $(SAN_THP)

# Live tests change or depend on host-wide THP state: one suite at a time per host.
# LIVE="tests/live/t_NAME.sh ..." runs only those files, with the suite's set-up and restore.
LOCK := flock /tmp/thp-live.lock
live: $(B)/thp $(B)/tests/hog $(B)/tests/nothp $(B)/tests/oddname san-thp | $(B)/.deps-test
	THP=$(B)/thp SAN_THP=$(SAN_THP) HOG=$(B)/tests/hog NOTHP=$(B)/tests/nothp ODDNAME=$(B)/tests/oddname $(LOCK) tests/live/run.sh $(LIVE)

# The kernel matrix: Debian 12's 6.1 kernels booted under QEMU with several boot
# options and NUMA layouts, every command checked against each guest's own
# kernel files (tests/vm/README). Kernels are fetched once into build/vm/.
vm-check: $(B)/thp $(B)/tests/hog $(B)/tests/nothp | $(B)/.deps-test $(B)/.deps-vm
	THP=$(B)/thp HOG=$(B)/tests/hog NOTHP=$(B)/tests/nothp VM_DIR=$(B)/vm tests/vm/run.sh

# Persistence across a real reboot: a Debian 12 image (mmdebstrap, cached in
# build/vm/reboot/) with the package installed, booted twice (tests/vm/README).
reboot-check: deb-test | $(B)/.deps-vm
	tests/vm/reboot.sh "$$(ls build/deb/thp_*.deb | tail -n 1)"

# Every command on every hostile fixture tree (tests/hostile/mktrees.sh).
hostile: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/hostile.sh

# The live tests with every thp run under valgrind memcheck; any error or
# definite leak fails (logs in build/valgrind/). Minutes, so not part of check.
check-valgrind: $(B)/thp $(B)/tests/hog | $(B)/.deps-test
	scripts/deps valgrind
	rm -rf build/valgrind && mkdir -p build/valgrind && chmod 1777 build/valgrind
	THP=tests/valgrind/thp VG_THP=$(B)/thp VG_LOGS=$(CURDIR)/build/valgrind HOG=$(B)/tests/hog \
		$(LOCK) tests/live/run.sh
	@n=$$(ls build/valgrind | wc -l); bad=$$(find build/valgrind -type f -size +0 | wc -l); \
	echo "check-valgrind: $$n thp runs under memcheck, $$bad with errors"; \
	[ "$$bad" -eq 0 ] || { find build/valgrind -type f -size +0 -exec head -30 {} +; exit 1; }

# Builds the .deb (build/deb/), lints it, installs it into a scratch root and runs it.
deb-test: | $(B)/.deps-deb
	THP=$(B)/thp tests/deb.sh
$(B)/.deps-deb: scripts/deps
	@mkdir -p $(B)
	scripts/deps deb
	@touch $@

# make install into a DESTDIR: the installed thp, manual, completion and units
.PHONY: install-test units FORCE
install-test: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/install.sh
check-suites: install-test

# completion: the functions driven directly, then a real bash and zsh under tmux
# The RPM package (rpm/thp.spec) from this tree: build/rpm/RPMS/ARCH/. The
# tree, without build/ and .git, is the source tarball rpmbuild unpacks.
RPM_DIR := build/rpm
.PHONY: rpm rpm-test
rpm:
	rm -rf $(RPM_DIR)
	mkdir -p $(RPM_DIR)/SOURCES/thp-$(VERSION)
	tar --exclude=./build --exclude=./.git --exclude=./thp -cf - . | tar -xf - -C $(RPM_DIR)/SOURCES/thp-$(VERSION)
	tar -czf $(RPM_DIR)/SOURCES/thp-$(VERSION).tar.gz -C $(RPM_DIR)/SOURCES thp-$(VERSION)
	rpmbuild -bb $(RPMBUILD_FLAGS) --define '_topdir $(CURDIR)/$(RPM_DIR)' rpm/thp.spec
# Builds it (on Debian: rpmbuild --nodeps), lints it, checks its contents and
# dependencies, installs it into a scratch root and runs it.
rpm-test: | $(B)/.deps-rpm
	tests/rpm.sh
check-suites: rpm-test
$(B)/.deps-rpm: scripts/deps
	@mkdir -p $(B)
	scripts/deps rpm
	@touch $@

completion: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/completion.sh
	THP=$(B)/thp tests/completion-tty.sh

# show, doctor, report and help on a real 80-column terminal (script): no line
# wider, the columns of the answer kept
width: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/width.sh

# thp report over fixtures' JSON, captures and hostile archives (goldens in tests/expected/report)
report: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/report.sh

# contrib/ansible: the collection thp.thp with real ansible-playbook runs on fixture copies
ansible: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/ansible.sh

# contrib/: the Prometheus rules (promtool unit tests) and the Grafana dashboard
# against a real Prometheus scraping thp serve; the systemd units (make units)
prometheus: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/prometheus.sh

# thp-serve.service (make units) checked offline by systemd-analyze (verify, security).
service: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/service.sh

# The golden and CLI suites as nobody; root-only commands refuse (when run as root).
unprivileged: $(B)/thp | $(B)/.deps-test
	THP=$(B)/thp tests/unprivileged.sh

# The unit, golden, CLI, report and hostile-tree tests again, built with AddressSanitizer and UBSan.
sanitize:
	$(MAKE) B=build/san SAN=1 unit golden cli control outfiles report hostile

# The suites on fixtures against a thp that exits 1 and one that exits 0, both
# printing nothing: each summary, and the checks that pass all the same (not
# part of make check; it runs every suite twice)
broken-thp: | $(B)/.deps-test
	tests/broken-thp.sh

# every fixture a generator script derives is what it derives now
fixtures-check:
	tests/fixtures-check.sh

check: deps-test
	@$(MAKE) --no-print-directory check-suites
	@echo "make check: all test suites passed"
check-suites: thp man lint unit golden cli control faults outfiles report width completion service prometheus ansible unprivileged fixtures-check live sanitize fuzz-smoke deb-test vm-check reboot-check

regen: $(B)/thp
	THP=$(B)/thp THP_REGEN=1 tests/golden.sh
	THP=$(B)/thp THP_REGEN=1 tests/report.sh

$(B)/bench/%: bench/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $@ $<

bench: thp $(B)/bench/spawn $(B)/bench/catfloor $(B)/bench/rawpread $(B)/bench/storm $(B)/tests/hog
	scripts/deps bench
	$(LOCK) bench/ps.sh
	$(LOCK) bench/scrape.sh
	$(LOCK) bench/many.sh
	$(LOCK) bench/folios.sh
	HOG=$(B)/tests/hog $(LOCK) bench/jobs.sh
	$(LOCK) bench/status.sh
	$(LOCK) bench/set.sh
	$(LOCK) bench/doctor.sh
	STORM=$(B)/bench/storm HOG=$(B)/tests/hog $(LOCK) bench/trace.sh
	$(LOCK) bench/experiments.sh
	$(LOCK) bench/watch.sh
	HOG=$(B)/tests/hog $(LOCK) bench/metrics.sh
	HOG=$(B)/tests/hog $(LOCK) bench/collapse.sh
	HOG=$(B)/tests/hog bench/show.sh
	bench/report.sh

# Static analysis, configured for real bugs rather than style: cppcheck over
# the tree, clang-tidy per file (.clang-tidy) with a stamp so reruns only look
# at what changed.
LINT_CFLAGS = -std=gnu11 -D_GNU_SOURCE -DTHP_VERSION='"$(VERSION)"' -Isrc $(PKG_CFLAGS)
TIDY_STAMP := $(patsubst %.c,build/lint/%.tidy,src/main.c $(LIB_SRC))
lint: | $(B)/.deps-lint
	tests/licence.sh
	tests/lint-tests.sh
	tests/lint-prefix.sh
	tests/lint-docs.sh
	tests/layers.sh
	@$(MAKE) -s $(B)/libthp.a
	tests/leaves.sh $(B)
	@$(MAKE) -s -j$$(nproc) lint-files
lint-files: build/lint/cppcheck $(TIDY_STAMP)
build/lint/cppcheck: $(wildcard src/*.c src/*/*.c src/*/*.h) | $(B)/.deps-lint
	@mkdir -p $(dir $@)
	cppcheck -q --std=c11 -D_GNU_SOURCE -Isrc --enable=warning,performance,portability \
		--inline-suppr --error-exitcode=1 src
	@touch $@
build/lint/%.tidy: %.c $(wildcard src/*/*.h) .clang-tidy | $(B)/.deps-lint
	@mkdir -p $(dir $@)
	clang-tidy --quiet $< -- $(LINT_CFLAGS) 2>/dev/null
	@touch $@

# libFuzzer harnesses: tests/fuzz/fuzz_NAME.c linked with the core library
# built by clang with the same instrumentation. 'make fuzz' runs each for
# FUZZ_TIME seconds; 'make fuzz-smoke' (part of check) replays the seeds.
FUZZ_TIME ?= 30
FUZZ := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN := $(FUZZ:%=build/fuzz/fuzz_%)
FUZZ_CFLAGS = -std=gnu11 -g -O1 -Wall -Wextra -D_GNU_SOURCE -Isrc -Itests/fuzz $(PKG_CFLAGS) \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
build/fuzz/%.o: %.c | $(B)/.deps-fuzz
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<
# the core library and the escaper of the output layer (fuzz_escape)
build/fuzz/libcore.a: $(CORE:%.c=build/fuzz/%.o) build/fuzz/src/render/escape.o
	$(AR) rcs $@ $^
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c build/fuzz/libcore.a
	clang $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< build/fuzz/libcore.a $(shell pkg-config --libs json-c)
-include $(CORE:%.c=build/fuzz/%.d) build/fuzz/src/render/escape.d $(FUZZ_BIN:=.d)
fuzz: $(FUZZ_BIN)
	tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ)
fuzz-smoke: $(FUZZ_BIN)
	tests/fuzz/run.sh smoke $(FUZZ)

# Line coverage of the core library by the unit, golden, CLI and hostile tests
# (gcovr); the full report is build/cov/coverage.txt.
coverage:
	scripts/deps coverage
	rm -rf build/cov
	$(MAKE) B=build/cov OPT="-O0 -g --coverage" LDFLAGS=--coverage unit golden cli hostile
	gcovr -r . --object-directory build/cov --filter src/core/ -o build/cov/coverage.txt
	@sed -n '/^TOTAL/p' build/cov/coverage.txt

man: $(B)/thp.1
SCDOC ?= scdoc
$(B)/thp.1: man/thp.1.scd
	@command -v $(SCDOC) > /dev/null || { echo "thp: the manual needs scdoc ('make deps' installs it on Debian and Ubuntu)" >&2; exit 1; }
	@mkdir -p $(B)
	$(SCDOC) < $< > $@

# systemd units: contrib/NAME.in with @BINDIR@ replaced by where thp is installed
UNITS_DIR ?= $(B)/units
UNITS := $(patsubst contrib/%.in,$(UNITS_DIR)/%,$(wildcard contrib/*.service.in contrib/*.timer.in))
units: $(UNITS)
$(UNITS_DIR)/%: contrib/%.in $(UNITS_DIR)/bindir
	sed 's|@BINDIR@|$(BINDIR)|g' $< > $@
# touched only when BINDIR changes, so the units follow BINDIR
$(UNITS_DIR)/bindir: FORCE
	@mkdir -p $(@D)
	@echo '$(BINDIR)' | cmp -s - $@ || echo '$(BINDIR)' > $@
FORCE:

# zsh searches PREFIX/share/zsh/site-functions, or (Debian, PREFIX=/usr)
# vendor-completions: the first of them that the installed zsh searches
COMPDIR_ZSH ?= $(or $(firstword $(filter $(shell zsh -fc 'print -l $$fpath' 2> /dev/null), \
	$(PREFIX)/share/zsh/site-functions $(PREFIX)/share/zsh/vendor-completions)),$(PREFIX)/share/zsh/site-functions)
COMPDIR_BASH ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
install: thp man units
	install -D -m 0755 $(B)/thp $(DESTDIR)$(BINDIR)/thp
	install -D -m 0644 $(B)/thp.1 $(DESTDIR)$(MANDIR)/man1/thp.1
	install -D -m 0644 completions/thp.bash $(DESTDIR)$(COMPDIR_BASH)/thp
	install -D -m 0644 completions/_thp $(DESTDIR)$(COMPDIR_ZSH)/_thp
	install -d $(DESTDIR)$(UNITDIR)
	install -m 0644 $(UNITS) $(DESTDIR)$(UNITDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/thp $(DESTDIR)$(MANDIR)/man1/thp.1 \
		$(DESTDIR)$(COMPDIR_BASH)/thp $(DESTDIR)$(COMPDIR_ZSH)/_thp \
		$(UNITS:$(UNITS_DIR)/%=$(DESTDIR)$(UNITDIR)/%)

clean:
	rm -rf build thp
