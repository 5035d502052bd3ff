#!/bin/bash
# test_soak.sh - the short version of the fault soak (tests/soak/soak.sh): at most 25
# SIGKILLs of the agents and bpflabd in 100 s, while the database's disk and the spools
# fill and empty, then its checks (nothing attached, no job lost, no sample stored
# twice). About 2-3 minutes; `make soak` runs the long version. BPFLAB_SOAK_SEED repeats
# a schedule (the seed is printed).
exec bash "$(dirname "$0")/../soak/soak.sh" --kills 25 --seconds 100 --drain 90 \
	${BPFLAB_SOAK_SEED:+--seed "$BPFLAB_SOAK_SEED"}
