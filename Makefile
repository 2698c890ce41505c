# voicehost: two commands for a fresh Debian or Raspberry Pi OS machine.
#   make run   installs what is missing, puts the `voicehost` command on the PATH
#              (/usr/local/bin/voicehost, a two-line launcher of this checkout) and starts the
#              host on config.yaml
#   make test  installs the dev dependencies and runs ruff, mypy and pytest
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
CONFIG ?= config.yaml
# The `voicehost` command every hint the program prints names (`voicehost resume`, ...).
LAUNCHER ?= /usr/local/bin/voicehost
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# make's own lines in the club's language (`language:` in config.yaml); apt's and pip's stay theirs.
RU := $(shell grep -Eqs '^language:[[:space:]]*["'"'"']?ru' $(CONFIG) && echo yes)
SAY_SYSTEM := $(if $(RU),Устанавливаются системные пакеты:,Installing system packages:)
SAY_TEST := $(if $(RU),Устанавливаются пакеты для тестов:,Installing test packages:)
SAY_NOT_LAUNCHER = $(if $(RU),$(LAUNCHER) — не запускатель voicehost: оставлен как есть; \
  запускайте $(CURDIR)/$(BIN)/voicehost,$(LAUNCHER) is not voicehost's launcher: left alone; \
  run $(CURDIR)/$(BIN)/voicehost)
LAUNCHER_RU = voicehost: команда \`voicehost\` теперь запускает $(CURDIR) ($(LAUNCHER))
LAUNCHER_EN = voicehost: the command \`voicehost\` now runs $(CURDIR) ($(LAUNCHER))
SAY_LAUNCHER = $(if $(RU),$(LAUNCHER_RU),$(LAUNCHER_EN))
APT_PACKAGES := python3-venv python3-dev espeak-ng ffmpeg libportaudio2 alsa-utils graphviz \
  libsoxr0
# libsoxr0 converts sample rates (voicehost/clips.py; ffmpeg brings it too, named here as ours).
# Raspberry Pi OS (aarch64, armv7l): PyPI has no evdev wheel for either, and no numpy, pyyaml or
# cffi wheel for armv7l, so Debian's builds are used and the venv sees them: nothing is compiled.
# gcc is the fallback for a package with neither a wheel nor a Debian build (docs/RASPBERRY_PI.md).
ifneq ($(filter aarch64 armv7l armv6l,$(shell uname -m)),)
APT_PACKAGES += python3-numpy python3-evdev python3-yaml python3-cffi python3-aiohttp \
  python3-matplotlib gcc
VENV_FLAGS := --system-site-packages
endif

.PHONY: run test system venv bytecode dev lint typecheck pytest phrases launcher bench soak fuzz pi-check clean

run: venv bytecode phrases launcher
	$(BIN)/voicehost --config $(CONFIG) play

test: dev lint typecheck pytest

# System packages: only what is missing, so a second run needs no network and no root.
system: .stamp-system
.stamp-system:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "$(SAY_SYSTEM)$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@touch $@

venv: .stamp-venv
.stamp-venv: .stamp-system pyproject.toml
	[ -x $(BIN)/python ] || $(PYTHON) -m venv $(VENV_FLAGS) $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	@touch $@

# voicehost's bytecode, written now: the service's host runs with its checkout read-only
# (ProtectSystem=strict) and would otherwise compile every module it imports at each start
# (0.2 s of CPU on a desktop, several times that on a Pi). Quick when nothing changed.
bytecode: venv
	$(BIN)/python -m compileall -q voicehost

# The web face's browser tests: Debian's chromium and its driver (no browser download at test
# time); the club's tests start a throw-away PostgreSQL server of their own
# (tests/club/pgserver.py).
TEST_APT_PACKAGES := chromium chromium-driver postgresql

dev: .stamp-dev
.stamp-dev: .stamp-venv requirements-test.txt
	@missing=""; for p in $(TEST_APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "$(SAY_TEST)$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --require-hashes --no-deps -r requirements-test.txt
	@touch $@

phrases: venv
	$(BIN)/voicehost --config $(CONFIG) phrases build

# `voicehost` in any new shell runs this checkout's venv. A file of that name that is not
# voicehost's launcher is left alone (with a note); sudo only when the folder needs it.
launcher: venv
	@tmp=$$(mktemp); \
	printf '#!/bin/sh\n# voicehost launcher, written by `make launcher` in %s\nexec "%s/$(BIN)/voicehost" "$$@"\n' \
	  "$(CURDIR)" "$(CURDIR)" > $$tmp; \
	if cmp -s $$tmp $(LAUNCHER); then rm -f $$tmp; exit 0; fi; \
	if [ -e $(LAUNCHER) ] && ! grep -q '^# voicehost launcher' $(LAUNCHER); then \
	  echo "$(SAY_NOT_LAUNCHER)"; \
	  rm -f $$tmp; exit 0; fi; \
	dir=$$(dirname $(LAUNCHER)); \
	if [ -w "$$dir" ] || { [ ! -e "$$dir" ] && mkdir -p "$$dir" 2>/dev/null; }; then \
	  install -m 755 $$tmp $(LAUNCHER); else $(SUDO) install -m 755 $$tmp $(LAUNCHER); fi; \
	rm -f $$tmp; echo "$(SAY_LAUNCHER)"

lint: dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: dev
	$(BIN)/mypy voicehost

pytest: dev
	$(BIN)/pytest -q

# Every bench, each checking its targets (docs/PERFORMANCE.md); fails when any target is missed.
bench: dev bytecode
	@missed=""; for b in bench/bench_*.py; do echo "== $$b"; \
	  $(BIN)/python $$b || missed="$$missed $$b"; done; \
	if [ -n "$$missed" ]; then echo "targets missed:$$missed"; exit 1; fi

# kill -9 of a real host at many random moments, each resumed and finished (SOAK_KILLS=40).
soak: dev
	$(BIN)/python bench/soak_kill9.py

# The fuzzers' long round, FUZZ_EXAMPLES per fuzzer (make test runs a quick one): typed lines,
# keypad key streams, the journal reader, the config loader and a folder's takes.json.
FUZZ_EXAMPLES ?= 10000
fuzz: dev
	VOICEHOST_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/pytest -q tests/console/test_input_fuzz.py \
	  tests/host/test_file_fuzz.py tests/voice_in/test_takes.py \
	  -k "nothing_breaks or never_raises or whatever" --hypothesis-show-statistics

# Emulated Raspberry Pi (Debian bookworm under qemu-user-static): `make run` to the host's start,
# then `make test`, in a fresh clone of HEAD. About an hour; not part of `make test`. Needs root.
ARCH ?= arm64
pi-check:
	$(SUDO) scripts/pi-check.sh $(ARCH)

clean:
	rm -rf $(VENV) .stamp-* build *.egg-info
