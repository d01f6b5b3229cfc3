# Shared helpers of the shell test suites: counting, and the closing summary line.
pass=0 fail=0 skipped=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); printf 'FAIL: %s\n' "$*"; }
skip() { skipped=$((skipped + 1)); printf 'SKIP: %s\n' "$*"; }
# expect DESCRIPTION COMMAND...: passes when COMMAND succeeds
expect() { _desc=$1; shift; if "$@"; then ok; else bad "$_desc"; fi; }
# summary NAME: prints "NAME: N passed, N failed, N skipped" and fails on any failure
summary() {
	printf '%s: %d passed, %d failed, %d skipped\n' "$1" "$pass" "$fail" "$skipped"
	[ "$fail" -eq 0 ]
}
: "${THP:=./thp}"
