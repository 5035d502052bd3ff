#!/bin/sh
# seed-keys.sh - the key-file seeds of fuzz_keys, made fresh at each run in DIR (the
# target's scratch corpus, tests/fuzz/corpus-run/keys) with `bpflab keygen`, so that no
# generated key is ever kept in the repository: a public certificate, its secret
# certificate, a secret certificate whose secret key belongs to another pair, three
# certificates with the roles agent, client and agent in one input (the target splits
# inputs at "--8<--" lines into the files of an allow-list folder), and two where one
# was made before roles (no role line: the allow list is refused). The hand-written
# malformed seeds stay in corpus/keys/.
#
#   sh tests/fuzz/seed-keys.sh DIR      (BPFLAB: the bpflab binary, default build/bin)
set -u
dir=${1:?usage: seed-keys.sh DIR}
here=$(cd "$(dirname "$0")" && pwd)
bpflab=${BPFLAB:-$here/../../build/bin/bpflab}
[ -x "$bpflab" ] || { echo "seed-keys: no '$bpflab' (make build/bin/bpflab)" >&2; exit 1; }
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
for n in a:agent b:client c:agent d:coordinator; do
	"$bpflab" keygen --role "${n#*:}" --out "$t" --name "${n%%:*}" >/dev/null || exit 1
done
cp "$t/a.key" "$dir/public.key"
cp "$t/a.key_secret" "$dir/secret.key"
{ grep -v 'secret-key' "$t/a.key_secret"; grep 'secret-key' "$t/b.key_secret"; } \
	> "$dir/mismatched-pair.key"
{ cat "$t/a.key"; echo "--8<--"; cat "$t/b.key_secret"; echo "--8<--"; cat "$t/c.key"; } \
	> "$dir/allow-three.txt"
{ cat "$t/a.key"; echo "--8<--"; grep -v '^ *role' "$t/b.key"; } > "$dir/allow-unroled.txt"
cp "$t/d.key" "$dir/coordinator.key"
