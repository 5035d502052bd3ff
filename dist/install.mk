# SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
# dist/install.mk - `make install`, `make uninstall` and `make deb`, included by the
# top-level Makefile (docs/deploy.md).
#
#   make install [PREFIX=/usr/local] [DESTDIR=]   the layout below, under DESTDIR
#   make uninstall [PREFIX=...] [DESTDIR=]        removes what install wrote (not /etc)
#   make deb                                      build/bpflab_VERSION_ARCH.deb (dist/deb.sh)
#
# The layout is fixed relative to PREFIX because the binaries find their files from their
# own place (lib/base/paths.h): PREFIX/bin/bpflab, PREFIX/sbin/bpflabd and bpflab-agent,
# BPF objects in PREFIX/lib/bpflab/bpf, the lab scripts in PREFIX/lib/bpflab/lab (with
# PREFIX/lib/bpflab/bin linking the three binaries, the lab's BPFLAB_BIN), plans and the
# schema in PREFIX/share/bpflab, docs, man pages, bash completion and systemd units in
# their usual places. A binary built once runs at any PREFIX and from a DESTDIR root.

PREFIX  ?= /usr/local
DESTDIR ?=
# systemd reads units from /usr/lib and /usr/local/lib; configuration is /etc for /usr
UNITDIR    ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)

I_ROOT  = $(DESTDIR)$(PREFIX)
I_PKG   = $(I_ROOT)/lib/bpflab
I_SHARE = $(I_ROOT)/share/bpflab
I_DOC   = $(I_ROOT)/share/doc/bpflab
I_MAN   = $(I_ROOT)/share/man
I_COMP  = $(I_ROOT)/share/bash-completion/completions
I_UNIT  = $(DESTDIR)$(UNITDIR)
I_ETC   = $(DESTDIR)$(SYSCONFDIR)/bpflab

# the lab in a box as it runs from the tree: lab/lab, its helpers, the demos
LAB_FILES   := lab/lab lab/kernels lab/bisect-build $(wildcard lab/*.sh lab/guest/*.sh) \
	       $(wildcard lab/kbuild/*)
# the one version: the VERSION file, as the Makefile's BPFLAB_VERSION
PKG_VERSION := $(or $(BPFLAB_VERSION),$(shell cat VERSION))
MAN_PAGES   := $(addprefix $(BUILD)/man/,bpflab.8 bpflabd.8 bpflab-agent.8 bpflab-plan.5)
UNIT_FILES  := $(wildcard dist/systemd/*.service.in)
DOC_FILES   := README.md $(wildcard LICENSE docs/*.md)
CONF_FILES  := $(wildcard dist/conf/*.conf dist/conf/*.env)

.PHONY: install uninstall deb man
man: $(MAN_PAGES)
# written once, in docs/: dist/md2man.py makes the pages from docs/cli.md and docs/plans.md
$(BUILD)/man/%: dist/md2man.py docs/cli.md docs/plans.md
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(dir $@)
	$(Q)python3 dist/md2man.py $* $(PKG_VERSION) $@

install: all man
	$(call msg,INSTALL,$(I_ROOT))
	$(Q)install -d $(I_ROOT)/bin $(I_ROOT)/sbin $(I_PKG)/bpf $(I_PKG)/bin $(I_SHARE)/plans \
		$(I_SHARE)/schema $(I_DOC)/docs $(I_COMP) $(I_MAN)/man5 $(I_MAN)/man8
	$(Q)install -m 755 $(BUILD)/bin/bpflab $(I_ROOT)/bin/
	$(Q)install -m 755 $(BUILD)/bin/bpflabd $(BUILD)/bin/bpflab-agent $(I_ROOT)/sbin/
	$(Q)ln -sf ../../../bin/bpflab $(I_PKG)/bin/bpflab
	$(Q)ln -sf ../../../sbin/bpflabd $(I_PKG)/bin/bpflabd
	$(Q)ln -sf ../../../sbin/bpflab-agent $(I_PKG)/bin/bpflab-agent
	$(Q)install -m 644 $(filter-out $(BUILD)/bpf/test_%,$(BPF_OBJS)) $(I_PKG)/bpf/
	$(Q)for f in $(LAB_FILES); do install -D -m $$(test -x $$f && echo 755 || echo 644) \
		$$f $(I_PKG)/$$f || exit 1; done
	$(Q)install -m 644 plans/*.yaml $(I_SHARE)/plans/
	$(Q)install -m 644 $(SCHEMA_SQL) $(I_SHARE)/schema/
	$(Q)install -m 644 README.md $(wildcard LICENSE) $(I_DOC)/
	$(Q)$(if $(wildcard LICENSES/*),install -d $(I_DOC)/LICENSES && install -m 644 LICENSES/* $(I_DOC)/LICENSES/)
	$(Q)install -m 644 docs/*.md $(I_DOC)/docs/
	$(Q)for m in $(MAN_PAGES); do install -m 644 $$m $(I_MAN)/man$${m##*.}/ || exit 1; done
	$(Q)$(if $(wildcard dist/bash-completion/bpflab),install -m 644 dist/bash-completion/bpflab $(I_COMP)/bpflab)
	$(Q)install -d $(I_UNIT) && for u in $(UNIT_FILES); do t=$${u##*/}; \
		sed -e 's|@SBINDIR@|$(PREFIX)/sbin|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' $$u \
			> $(I_UNIT)/$${t%.in} && chmod 644 $(I_UNIT)/$${t%.in} || exit 1; done
	$(Q)$(if $(CONF_FILES),install -d $(I_ETC) && for c in $(CONF_FILES); do \
		t=$(I_ETC)/$${c##*/}; [ -e $$t ] || install -m 644 $$c $$t || exit 1; done)

# configuration in SYSCONFDIR is the admin's and stays, as dpkg keeps conffiles
uninstall:
	$(call msg,UNINSTALL,$(I_ROOT))
	$(Q)rm -f $(I_ROOT)/bin/bpflab $(I_ROOT)/sbin/bpflabd $(I_ROOT)/sbin/bpflab-agent
	$(Q)rm -rf $(I_PKG) $(I_SHARE) $(I_DOC)
	$(Q)rm -f $(I_COMP)/bpflab $(addprefix $(I_MAN)/,$(foreach m,$(MAN_PAGES),man$(subst .,,$(suffix $(m)))/$(notdir $(m))))
	$(Q)rm -f $(addprefix $(I_UNIT)/,$(notdir $(UNIT_FILES:.in=)))

deb: all
	$(Q)sh scripts/deps.sh package
	$(Q)sh dist/deb.sh $(BUILD)
