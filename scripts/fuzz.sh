#!/usr/bin/env bash
# Builds richpush-fuzz with libFuzzer and AddressSanitizer and runs one target.
#
#   scripts/fuzz.sh TARGET [SECONDS] [extra libFuzzer flags...]
#   TARGET: probe, jpeg, png, png-paths, webp, gif, heif, heif-boxes, payload or http-request
#
# SwiftPM links every executable with `--defsym main=<module>_main`, which collides with libFuzzer's own main, so
# `-sanitize=fuzzer` cannot be used as is. Instead the code gets libFuzzer's coverage instrumentation and the
# fuzzer runtime without its main; richpush-fuzz calls LLVMFuzzerRunDriver itself.
# The corpus is seeded from Fixtures/ into .build/fuzz-corpus/TARGET; crashes land in .build/fuzz-artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh probe|jpeg|png|png-paths|webp|gif|heif|heif-boxes|payload|http-request [SECONDS]}
seconds=${2:-600}
shift $(( $# >= 2 ? 2 : 1 ))

clang_runtime=$(dirname "$(swiftc -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["paths"]["runtimeResourcePath"])')")
fuzzer_runtime=$(find "$(dirname "$(command -v swiftc)")/../lib/clang" -name 'libclang_rt.fuzzer_no_main-x86_64.a' | head -n 1)
[ -n "$fuzzer_runtime" ] || { echo "libFuzzer runtime not found in the Swift toolchain" >&2; exit 1; }
: "$clang_runtime"

swift build -c release --scratch-path .build/fuzz --product richpush-fuzz \
  -Xswiftc -DFUZZING -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,trace-cmp \
  -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-inline-8bit-counters \
  -Xswiftc -Xllvm -Xswiftc -sanitizer-coverage-pc-table \
  -Xcc -fsanitize=address -Xcc -fsanitize=fuzzer-no-link \
  -Xlinker "$fuzzer_runtime" -Xlinker -lstdc++

corpus=.build/fuzz-corpus/$target
artifacts=.build/fuzz-artifacts/$target/
mkdir -p "$corpus" "$artifacts"
case $target in
  probe)   seeds=(Fixtures/conformance/png/*.png Fixtures/conformance/jpeg/*.jpg Fixtures/conformance/webp/*.webp Fixtures/imaging/*) ;;
  jpeg)    seeds=(Fixtures/conformance/jpeg/*.jpg Fixtures/imaging/*.jpg) ;;
  png|png-paths) seeds=(Fixtures/conformance/png/*.png) ;;
  webp)    seeds=(Fixtures/conformance/webp/*.webp Fixtures/imaging/*.webp) ;;
  gif)     seeds=(Fixtures/imaging/*.gif) ;;
  heif|heif-boxes) seeds=(Fixtures/imaging/*.heic Fixtures/imaging/*.avif Fixtures/fuzz/heif/*) ;;
  payload) seeds=(Fixtures/payloads/*.json Fixtures/conformance/json/test_parsing/*.json) ;;
  http-request) seeds=(Fixtures/http-requests/*) ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
for seed in "${seeds[@]}"; do
  [ -f "$seed" ] && [ "$(stat -c %s "$seed")" -le 262144 ] && cp -n "$seed" "$corpus/" || true
done
if [ -d Fixtures/fuzz/$target ]; then cp -n Fixtures/fuzz/$target/* "$corpus/" 2>/dev/null || true; fi

# ASan's allocator keeps freed pages of the decoders' large, short-lived pixel buffers, so the process RSS climbs
# past 2 GB while the live heap stays near 25 MB (the same inputs stay flat at ~27 MB without ASan). An RSS limit
# would report that as out-of-memory; leaks are LeakSanitizer's job, and -malloc_limit_mb still fails any single
# allocation over 1 GB. A smaller quarantine and prompt release of freed pages keep the growth down.
RICHPUSH_FUZZ_TARGET=$target \
  ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:quarantine_size_mb=64:allocator_release_to_os_interval_ms=200} \
  .build/fuzz/release/richpush-fuzz "$corpus" -max_total_time="$seconds" -rss_limit_mb=0 -malloc_limit_mb=1024 -timeout=10 \
  -max_len=262144 -artifact_prefix="$artifacts" -print_final_stats=1 "$@"
