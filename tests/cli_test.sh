#!/usr/bin/env bash
# The CLI's promises (README "Other commands"): bad input exits 2 with one "error:" line that
# says what is wrong; a report that cannot be written exits non-zero. Usage: cli_test.sh EXPLORE
set -uo pipefail
explore=$1
failures=0

# expect STATUS PATTERN COMMAND...: the command exits with STATUS and stderr matches PATTERN.
expect() {
  local status=$1 pattern=$2
  shift 2
  local err rc
  err=$(timeout 5 "$@" 2>&1 >/dev/null)
  rc=$?
  if [[ $rc -ne $status || ! $err =~ $pattern ]]; then
    echo "FAIL: $* -> exit $rc, stderr: ${err:0:200} (wanted exit $status, /$pattern/)"
    failures=$((failures + 1))
  fi
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '{}\0' >"$tmp/nul.json"
printf '{"gpus":16,"gpus":32}' >"$tmp/dup.json"
head -c 100000000 /dev/zero >"$tmp/big.json"

expect 2 '^error: .* is a directory' "$explore" "$tmp"
expect 2 '^error: cannot read .*/missing.json: No such file' "$explore" "$tmp/missing.json"
expect 2 '^error: scenario is more than 65536 bytes' "$explore" /dev/zero
expect 2 '^error: scenario is more than 65536 bytes' "$explore" "$tmp/big.json"
expect 2 '^error: scenario has a NUL byte' "$explore" "$tmp/nul.json"
expect 2 '^error: "gpus" is given twice' "$explore" "$tmp/dup.json"
expect 2 '^usage:' "$explore" a b
if [[ -w /dev/full ]]; then
  expect 1 '^error: cannot write the report' sh -c "\"$explore\" >/dev/full"
fi
# --calibrate RUN SCENARIO: two JSON documents, each read whole. A RUN that goes on after its
# object is refused by key ("calibration"), never pasted into the scenario.
run='{"scenario":{"gpus":8,"gpu":"H100-80GB","model":"llama3-8b"},"step_time_s":14}'
printf '%s' "$run" >"$tmp/run.json"
printf '%s, "gpus": 4096, "model": "llama3-405b"' "$run" >"$tmp/run-more.json"
printf '{"gpu":"H100-80GB"}' >"$tmp/h100.json"
printf '{"gpu":"H100-80GB"} {"gpus":4096}' >"$tmp/two.json"
expect 2 '^error: calibration \(the run\) is not one JSON document: bytes after the document at byte 79: allowed one JSON object' \
  "$explore" --calibrate "$tmp/run-more.json" "$tmp/h100.json"
expect 2 '^error: .*/run-more.json is not one JSON document: bytes after the document' \
  "$explore" --calibrate "$tmp/run-more.json"
expect 2 '^error: calibration \(the run\) is not one JSON document: the document ends before it is complete' \
  "$explore" --calibrate <(printf '{"scenario":{"gpus":8}') "$tmp/h100.json"
expect 2 '^error: calibration \(the run\) is \[\]: allowed one JSON object' \
  "$explore" --calibrate <(printf '[]') "$tmp/h100.json"
expect 2 '^error: scenario is not one JSON document: bytes after the document' \
  "$explore" --calibrate "$tmp/run.json" "$tmp/two.json"
expect 2 '^error: unknown key "calibration.gpus": allowed name, scenario, step_time_s' \
  "$explore" --calibrate <(printf '{"scenario":{"gpus":8},"step_time_s":14,"gpus":4096}') "$tmp/h100.json"
expect 2 '^error: RUN and SCENARIO are both - \(standard input, read once\): allowed - for at most one' \
  sh -c "printf '%s' '$run' | \"$explore\" --calibrate - -"
expect 2 '^error: "calibration" is given twice' \
  "$explore" --calibrate "$tmp/run.json" <(printf '{"calibration":null}')
calibrated=$("$explore" --calibrate "$tmp/run.json" "$tmp/h100.json" 2>&1)
if [[ $calibrated != *'"gpus": 16,'* || $calibrated != *'calibrated to your run: 8 × H100-80GB'* ]]; then
  echo "FAIL: --calibrate RUN SCENARIO: ${calibrated:0:200}"
  failures=$((failures + 1))
fi
# A reader that stops early (once killed by SIGPIPE, exit 141): exit 0, no
# message. Megabytes of ranks, far more than a pipe buffers, so the write does hit the closed
# pipe; both the report and the planner's output.
for args in "-" "--plan -"; do
  err=$(echo '{"gpus":16384}' | timeout 20 "$explore" $args 2>"$tmp/err" | head -c1 >/dev/null;
    echo "${PIPESTATUS[1]}")
  if [[ $err != 0 || -s $tmp/err ]]; then
    echo "FAIL: explore $args | head -c1 -> exit $err, stderr: $(head -c 200 "$tmp/err")"
    failures=$((failures + 1))
  fi
done
# The schema is JSON with a row per field. (Read whole: grep -q closing the pipe early would
# make the writer fail, as it should.)
schema=$("$explore" --schema)
if [[ $schema != *'"key": "gpus"'* ]]; then
  echo "FAIL: --schema has no gpus row"
  failures=$((failures + 1))
fi
exit $((failures > 0))
