#!/usr/bin/env bash
# Writes the model-sized problems of docs/results_large.md into data/large/ (issue 24): ten
# generated ones, transformer stacks of several widths and sequence lengths with plain, gated and
# mixed feed-forward blocks, mixture-of-experts layers and deep MLPs, 60 to about 1,000 ops, each
# on its own hardware (fast memory drawn log-uniformly from 50,000-600,000 elements, bandwidth
# from 10-100; the draws were made once, with Python's random.Random(24), and are written out
# below so that the files never change); one more generated with a tight fast memory and a low
# bandwidth (tf-11x8-tight, the problem of bench/search_rate_bench.cc); and four real exports of
# data/models/exports imported on configs/hardware/contest_like.json.
# Usage: scripts/make_large_suite.sh [TILESCHED]
set -euo pipefail
cd "$(dirname "$0")/.."
tilesched=${1:-./build/src/cli/tilesched}
out=data/large
mkdir -p "$out"
gen() {  # name, then `tilesched generate` arguments
  local name=$1
  shift
  "$tilesched" generate "$@" -o "$out/$name.json"
  echo "$name: $("$tilesched" info "$out/$name.json" | head -n 1)"
}
gen tf-2x4-s256     transformer --layers 2 --heads 4 --seq 256 --width 384 --mlp mixed --seed 1 --capacity 294000 --bandwidth 20
gen mlp-40          mlp --layers 40 --seq 512 --widths 256,512,1024 --seed 2 --capacity 86000 --bandwidth 20
gen moe-4x4-e8      transformer --layers 4 --heads 4 --seq 256 --width 256 --moe-every 2 --experts 8 --seed 3 --capacity 81000 --bandwidth 16
gen tf-4x8-gated    transformer --layers 4 --heads 8 --seq 512 --width 512 --mlp gated --seed 4 --capacity 289000 --bandwidth 20
gen mlp-120-wide    mlp --layers 120 --seq 1024 --widths 512,1024,2048 --seed 5 --capacity 371000 --bandwidth 40
gen tf-6x8-mixed    transformer --layers 6 --heads 8 --seq 512 --width 512 --mlp mixed --seed 6 --capacity 303000 --bandwidth 10
gen moe-8x4-e16     transformer --layers 8 --heads 4 --seq 256 --width 512 --moe-every 2 --experts 16 --seed 7 --capacity 150000 --bandwidth 16
gen tf-8x8-s1024    transformer --layers 8 --heads 8 --seq 1024 --width 512 --mlp plain --seed 8 --capacity 54000 --bandwidth 20
gen tf-11x8-w768    transformer --layers 11 --heads 8 --seq 512 --width 768 --mlp mixed --seed 9 --capacity 541000 --bandwidth 80
gen tf-12x10-w640   transformer --layers 12 --heads 10 --seq 512 --width 640 --mlp mixed --seed 10 --capacity 272000 --bandwidth 80
gen tf-11x8-tight   transformer --layers 11 --heads 8 --seq 512 --width 768 --mlp mixed --seed 9 --capacity 150000 --bandwidth 10
for model in hf_gpt2 hf_bert hf_llama torch_encoder_layer; do
  "$tilesched" import "data/models/exports/$model.onnx" --hardware configs/hardware/contest_like.json \
    -o "$out/$model.json" > /dev/null 2>&1
  echo "$model: $("$tilesched" info "$out/$model.json" | head -n 1)"
done
