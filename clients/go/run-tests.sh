#!/usr/bin/env bash
# Runs the Go client's checks: `gofmt -l .`, `go vet ./...` and `go test -json ./...` in clients/go, then prints
# as its last line `N passed, N failed`, counted from the JSON test events (every test and
# subtest; an unformatted file or a vet failure, or a package that fails without a failing test — a build error, a
# panic, a timeout — counts as 1 failed). Exits non-zero when anything failed.
# Installs Debian's golang-go with apt-get when `go` is missing.
set -u
cd "$(dirname "$0")" || exit 1

if ! command -v go >/dev/null 2>&1; then
  echo "go not found: installing golang-go with apt-get" >&2
  SUDO=""
  if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -q golang-go >&2 || { $SUDO apt-get update -q >&2 && $SUDO apt-get install -y -q golang-go >&2; }
fi
if ! command -v go >/dev/null 2>&1; then
  echo "go is not installed and apt-get could not install golang-go" >&2
  echo "0 passed, 1 failed"
  exit 1
fi

# No module downloads: the module uses the standard library only.

export GOPROXY=off
if [ -z "$(go env GOCACHE 2>/dev/null)" ] || [ "$(go env GOCACHE 2>/dev/null)" = "off" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/canopy-go-build-cache"
fi

failed=0
passed=0

echo "== gofmt -l ." >&2
unformatted="$(gofmt -l .)"
if [ -n "$unformatted" ]; then
  echo "gofmt would reformat: $unformatted (run gofmt -w clients/go)" >&2
  failed=$((failed + 1))
fi

echo "== go vet ./..." >&2
if ! go vet ./... >&2; then
  echo "go vet failed" >&2
  failed=$((failed + 1))
fi

echo "== go test -json ./..." >&2
json="$(mktemp "${TMPDIR:-/tmp}/canopy-go-test.XXXXXX")"
trap 'rm -f "$json"' EXIT
go test -count=1 -json ./... >"$json" 2>"$json.err"
status=$?
cat "$json.err" >&2
rm -f "$json.err"

# Show the tests' output (the human-readable lines of the JSON stream) for the CI log.
sed -n 's/.*"Action":"output".*"Output":"\(.*\)"}$/\1/p' "$json" | sed -e 's/\\n$//' -e 's/\\t/\t/g' -e 's/\\"/"/g' >&2

counts="$(awk '
  {
    action = ""; pkg = ""; test = ""
    if (match($0, /"Action":"[a-z]+"/)) action = substr($0, RSTART + 10, RLENGTH - 11)
    if (match($0, /"Package":"[^"]*"/)) pkg = substr($0, RSTART + 11, RLENGTH - 12)
    if (match($0, /"Test":"[^"]*"/)) test = substr($0, RSTART + 8, RLENGTH - 9)
    if (test != "") {
      if (action == "pass") p++
      else if (action == "fail") { f++; testfail[pkg] = 1 }
    } else if (action == "fail" && !(pkg in testfail)) {
      f++
    }
  }
  END { printf "%d %d\n", p + 0, f + 0 }
' "$json")"
passed=$((passed + ${counts% *}))
failed=$((failed + ${counts#* }))

# go test failed but no event said so (e.g. it could not start): count it.
if [ "$status" -ne 0 ] && [ "${counts#* }" -eq 0 ]; then
  failed=$((failed + 1))
fi

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
