#!/bin/sh
# Install the Debian packages bpflab needs to build, test and run the lab in a box.
# Does nothing when every package is already present; needs root otherwise.
# Called by `make deps` (and so by `make demo` and `make check`).
set -eu

PKGS="make gcc clang llvm pkg-config bpftool libbpf-dev libelf-dev zlib1g-dev
libzmq3-dev libyaml-dev libsqlite3-dev libcmocka-dev libjansson-dev
iproute2 sqlite3 gnuplot-nox libclang-rt-14-dev procps psmisc python3"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "deps: installing$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages and not root; run as root or install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
