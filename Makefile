# pysbx Makefile (GNU make). Normally driven by ./build.sh, which first builds
# libseccomp into build/seccomp and the uapi header view into build/uapi.
#
#   make [all]     programs, unit tests and probes (static, musl)
#   make fuzz      libFuzzer targets from test/fuzz/*.c (clang, glibc, ASan)
#   make clean     remove what this Makefile built (not libseccomp)
#   make install   the programs, policies and man pages under
#                  $(DESTDIR)$(PREFIX) (default /usr/local)
#   make uninstall remove exactly what install put there
#   make V=1       show full command lines

B := build

# musl-gcc unless given on the command line: a CC exported for other
# projects (often gcc) would silently link against glibc.
ifneq ($(origin CC),command line)
CC := musl-gcc
endif
AR := ar
FUZZ_CC ?= clang

SECCOMP_PREFIX ?= $(B)/seccomp
SECCOMP_LIB := $(SECCOMP_PREFIX)/lib/libseccomp.a
UAPI_INCLUDE ?= $(B)/uapi/include

# CFLAGS and LDFLAGS are the user's to change (make CFLAGS=-O0 LDFLAGS=);
# the warnings, language, defines and -static below always apply.
CFLAGS ?= -O2
LDFLAGS ?= -s
WARNINGS := -Wall -Wextra -Wshadow -Wformat=2 \
	-Werror=implicit-function-declaration \
	-Wstrict-prototypes -Wmissing-prototypes
# musl has no _FORTIFY_SOURCE support, hence none here. No unwind tables:
# C without exceptions never reads them, and their .eh_frame (14 KiB in
# pysbx) is mapped with the read-only data, resident in every process of
# the chain (docs/BENCHMARKS.md, RSS). Backtraces in gdb still work from
# an unstripped build (make LDFLAGS= CFLAGS='-O2 -g').
ALL_CFLAGS = -std=gnu11 $(WARNINGS) -Werror -fno-strict-aliasing \
	-fstack-protector-strong -ffunction-sections -fdata-sections \
	-fno-asynchronous-unwind-tables -fno-unwind-tables \
	-ffile-prefix-map=$(CURDIR)/= $(CFLAGS)
# Unused functions and data are dropped from each program (the sections
# above make them separable).
GC_LDFLAGS := -Wl,--gc-sections -Wl,--undefined=malloc
ALL_CPPFLAGS = -D_GNU_SOURCE -Ipkg -I$(B)/gen -isystem $(UAPI_INCLUDE) \
	-isystem $(SECCOMP_PREFIX)/include $(CPPFLAGS)
DEPFLAGS = -MMD -MP

# Fuzzing runs against glibc and the system libseccomp (libseccomp-dev):
# the sanitizers need a libc they support. No -Werror: a newer clang's new
# warnings must not stop a fuzzing run; the musl build is the gate.
FUZZ_CFLAGS ?= -g -O1
FUZZ_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
FUZZ_ALL_CFLAGS = -std=gnu11 $(WARNINGS) -fno-strict-aliasing \
	$(FUZZ_SAN) -D_GNU_SOURCE -Ipkg -I$(B)/fuzz/gen $(FUZZ_CFLAGS)

ifeq ($(V),1)
Q :=
msg = @:
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2);
endif

# --- sources ----------------------------------------------------------------

PKG_SRCS := $(sort $(wildcard pkg/*/*.c))
PKG_OBJS := $(PKG_SRCS:%.c=$(B)/obj/%.o)
LIB := $(B)/libpysbx.a

PROGRAMS := $(sort $(patsubst cmd/%/,%,$(dir $(wildcard cmd/*/*.c))))
BINS := $(PROGRAMS:%=$(B)/bin/%)

UNIT_SRCS := $(sort $(wildcard test/unit/*.c))
UNIT_BINS := $(UNIT_SRCS:test/unit/%.c=$(B)/test/unit/%)

PROBE_SRCS := $(sort $(wildcard test/probe/*.c))
PROBE_BINS := $(PROBE_SRCS:test/probe/%.c=$(B)/test/probe/%)

FUZZ_SRCS := $(sort $(wildcard test/fuzz/*.c))
FUZZ_BINS := $(FUZZ_SRCS:test/fuzz/%.c=$(B)/fuzz/%)
FUZZ_PKG_OBJS := $(PKG_SRCS:%.c=$(B)/fuzz/obj/%.o)

# --- generated --------------------------------------------------------------

# The native syscall table for pkg/scnames/scnames.c: SC_SYSCALL(name, nr)
# lines sorted by name (C locale = strcmp order), from the compiler's uapi
# <asm/unistd_64.h> ($(2): unistd_32 for i386's, which pid 1 uses to name
# an int 0x80 call the filter killed); fewer than 300 entries means the
# header was not found. $(1): the compiler and its flags.
define gen_syscalls
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)echo '#include <asm/$(or $(2),unistd_64).h>' | \
		$(1) -E -dM -MD -MP -MF $(@:.h=.d) -MT $@ -x c - | \
		awk '$$1 == "#define" && $$2 ~ /^__NR_[a-z0-9_]+$$/ && \
		    $$3 ~ /^[0-9]+$$/ { print substr($$2, 6), $$3 }' | \
		LC_ALL=C sort -k1,1 | \
		awk 'BEGIN { print "/* Generated from <asm/$(or $(2),unistd_64).h> by the Makefile. */" } \
		    { printf "SC_SYSCALL(%s, %s)\n", $$1, $$2 }' >$@.tmp
	$(Q)n=$$(grep -c '^SC_SYSCALL(' $@.tmp); [ "$$n" -ge 300 ] || \
		{ echo "make: only $$n syscalls in <asm/$(or $(2),unistd_64).h>" >&2; exit 1; }
	$(Q)mv -f $@.tmp $@
endef

$(B)/gen/syscalls_x86_64.h: Makefile | $(UAPI_INCLUDE)
	$(call gen_syscalls,$(CC) $(ALL_CPPFLAGS))
$(B)/fuzz/gen/syscalls_x86_64.h: Makefile
	$(call gen_syscalls,$(FUZZ_CC) -D_GNU_SOURCE)
$(B)/obj/pkg/scnames/scnames.o: $(B)/gen/syscalls_x86_64.h
$(B)/gen/syscalls_i386.h: Makefile | $(UAPI_INCLUDE)
	$(call gen_syscalls,$(CC) $(ALL_CPPFLAGS),unistd_32)
$(B)/fuzz/gen/syscalls_i386.h: Makefile
	$(call gen_syscalls,$(FUZZ_CC) -D_GNU_SOURCE,unistd_32)
$(B)/obj/pkg/reaper/sigsys.o: $(B)/gen/syscalls_i386.h
$(B)/fuzz/obj/pkg/reaper/sigsys.o: $(B)/fuzz/gen/syscalls_i386.h
$(B)/fuzz/obj/pkg/scnames/scnames.o: $(B)/fuzz/gen/syscalls_x86_64.h

# The egress proxy's seccomp filter as a BPF program (pkg/egress/filter.h
# -> build/gen/egress_bpf.h), compiled here by tools/egress-bpf with
# pkg/seccomp instead of at every start of the proxy. The generator links
# every object but the one that includes its output.
EGRESS_BPF := $(B)/gen/egress_bpf.h
GEN_LIB := $(B)/gen/libpysbx-gen.a
$(GEN_LIB): $(filter-out $(B)/obj/pkg/egress/confine.o,$(PKG_OBJS))
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(B)/tools/egress-bpf: $(B)/obj/tools/egress-bpf.o $(GEN_LIB) $(SECCOMP_LIB)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -static $(GC_LDFLAGS) $(LDFLAGS) -o $@ $^
$(EGRESS_BPF): $(B)/tools/egress-bpf
	$(call msg,GEN,$@)
	$(Q)$< >$@.tmp && mv -f $@.tmp $@
$(B)/obj/pkg/egress/confine.o: $(EGRESS_BPF)
$(B)/fuzz/obj/pkg/egress/confine.o: $(EGRESS_BPF)
$(B)/fuzz/obj/pkg/egress/confine.o: FUZZ_ALL_CFLAGS += -I$(B)/gen

# The session worker's code, compiled once here instead of at every start
# of a sandbox (pkg/session/sandbox.c). Unchecked-hash: the file holds the
# source's hash, no time or path, so two builds give the same bytes; the
# worker compares that hash with the source it is given.
WORKER_PYC := $(B)/policies/session_worker.pyc
$(WORKER_PYC): policies/session_worker.py
	$(call msg,PYC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)PYTHONHASHSEED=0 python3 -I -c 'import py_compile as c, sys; \
		c.compile(sys.argv[1], sys.argv[2], "session_worker.py", True, \
		invalidation_mode=c.PycInvalidationMode.UNCHECKED_HASH)' \
		$< $@.tmp
	$(Q)chmod 0644 $@.tmp && mv -f $@.tmp $@

# --- targets ----------------------------------------------------------------

.PHONY: all bins tests probes fuzz clean
.DEFAULT_GOAL := all

all: bins tests probes
bins: $(BINS) $(WORKER_PYC)
tests: $(UNIT_BINS)
probes: $(PROBE_BINS)

# Made by build.sh; a plain `make` in a fresh tree says so instead of
# failing on a missing header.
$(SECCOMP_LIB) $(UAPI_INCLUDE):
	@echo "make: $@ is missing: run ./build.sh (it builds libseccomp and the uapi view)" >&2
	@exit 1

# Every object waits for the header trees (order-only: their timestamps
# must not force rebuilds) and is rebuilt when this Makefile changes.
$(B)/obj/%.o: %.c Makefile | $(SECCOMP_LIB) $(UAPI_INCLUDE)
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

# A thin archive: its members keep their paths (two modules may both have
# a net.o), so each program's link map names exactly which pkg/ files it
# links (scripts/tcb.py, docs/SECURITY.md's table).
$(LIB): $(PKG_OBJS)
	@mkdir -p $(@D)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcsT $@ $^

# One link rule per program: its objects are every cmd/<name>/*.c.
define program_rule
$(B)/bin/$(1): $(patsubst %.c,$(B)/obj/%.o,$(wildcard cmd/$(1)/*.c)) $(LIB) $(SECCOMP_LIB)
	@mkdir -p $$(@D)
	$$(call msg,LD,$$@)
	$$(Q)mkdir -p $(B)/map
	$$(Q)$$(CC) $$(ALL_CFLAGS) -static $$(GC_LDFLAGS) $$(LDFLAGS) -Wl,-Map=$(B)/map/$(1).map -o $$@ $$(filter %.o,$$^) $(LIB) $(SECCOMP_LIB)
endef
$(foreach p,$(PROGRAMS),$(eval $(call program_rule,$(p))))

# Unit tests and probes: one file each, linked against libpysbx and
# libseccomp, static like the programs (probes run inside sandboxes whose
# root may have no libc at all).
$(B)/test/unit/%: $(B)/obj/test/unit/%.o $(LIB) $(SECCOMP_LIB)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -static $(GC_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(SECCOMP_LIB)

$(B)/test/probe/%: $(B)/obj/test/probe/%.o $(LIB) $(SECCOMP_LIB)
	@mkdir -p $(@D)
	$(call msg,LD,$@)
	$(Q)$(CC) $(ALL_CFLAGS) -static $(GC_LDFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(SECCOMP_LIB)

# --- fuzzing ----------------------------------------------------------------

ifeq ($(FUZZ_SRCS),)
fuzz:
	@echo "make: no test/fuzz/*.c, nothing to fuzz"
else
fuzz: $(FUZZ_BINS)
endif

$(B)/fuzz/obj/%.o: %.c Makefile
	@mkdir -p $(@D)
	$(call msg,FUZZCC,$<)
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer-no-link $(DEPFLAGS) -c $< -o $@

# Through an archive, so that a target links only the objects it uses.
$(B)/fuzz/libpysbx.a: $(FUZZ_PKG_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(B)/fuzz/%: $(B)/fuzz/obj/test/fuzz/%.o $(B)/fuzz/libpysbx.a
	@mkdir -p $(@D)
	$(call msg,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(FUZZ_ALL_CFLAGS) -fsanitize=fuzzer -o $@ $^ \
		$(FUZZ_LDFLAGS) -lseccomp

# fuzz_args runs `pysbx policy` in-process: diag_exit and friends are
# replaced by the target's own versions (see test/fuzz/fuzz_args.c).
$(B)/fuzz/fuzz_args: FUZZ_LDFLAGS = -Wl,--wrap=diag_exit \
	-Wl,--wrap=vars_add_arg -Wl,--wrap=policy_parse_file \
	-Wl,--wrap=perr_print

# --- install ----------------------------------------------------------------

# Installed files get fixed modes whatever the umask: the trust check
# (pkg/trust) refuses a program or policy that group or others can write.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR := $(PREFIX)/bin
POLICYDIR := $(PREFIX)/share/pysbx/policies
MANDIR := $(PREFIX)/share/man
POLICY_FILES := $(sort $(wildcard policies/*))
INSTALLED_PYC := $(POLICYDIR)/session_worker.pyc
MAN1 := $(sort $(wildcard docs/man/*.1))
MAN5 := $(sort $(wildcard docs/man/*.5))
INSTALLED := $(PROGRAMS:%=$(BINDIR)/%) \
	$(POLICY_FILES:policies/%=$(POLICYDIR)/%) $(INSTALLED_PYC) \
	$(MAN1:docs/man/%=$(MANDIR)/man1/%) $(MAN5:docs/man/%=$(MANDIR)/man5/%)

.PHONY: install uninstall
install: $(BINS) $(WORKER_PYC)
	install -d -m 0755 $(DESTDIR)$(BINDIR) $(DESTDIR)$(POLICYDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 $(BINS) $(DESTDIR)$(BINDIR)/
	install -m 0644 $(POLICY_FILES) $(WORKER_PYC) $(DESTDIR)$(POLICYDIR)/
	$(if $(MAN1),install -m 0644 $(MAN1) $(DESTDIR)$(MANDIR)/man1/)
	$(if $(MAN5),install -m 0644 $(MAN5) $(DESTDIR)$(MANDIR)/man5/)

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))
	-rmdir $(DESTDIR)$(POLICYDIR) $(DESTDIR)$(PREFIX)/share/pysbx 2>/dev/null

# --- housekeeping -----------------------------------------------------------

clean:
	rm -rf $(B)/obj $(B)/bin $(B)/test $(B)/fuzz $(B)/gen $(B)/tools \
		$(B)/policies $(LIB)

# Objects must not be deleted as intermediates of the pattern rules.
.SECONDARY:

-include $(shell find $(B)/obj $(B)/fuzz/obj $(B)/gen $(B)/fuzz/gen \
	-name '*.d' 2>/dev/null)
