// ONNX import at published size (Google Benchmark): GPT-2 small exported by torch.onnx
// (124 M parameters, 12 layers of 12 heads, sequence 512; a 500 MB file). The file is
// bench/data/gpt2_small_real.onnx.xz (96 KB: its weights are a constant per tensor), unpacked
// once into a temporary directory with `xz`; docs/import.md, "Real exports".
//
// BM_ImportGpt2SmallReal: ImportOnnxFile in this process (wall time per import).
// BM_ImportCommandGpt2SmallReal: `tilesched import` as a child process; manual time is its wall
// time, the counter peak_rss_MB its peak resident memory (wait4's ru_maxrss). Targets: under
// 10 s and 2 GB on a 2-core machine.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tilesched/hardware.h"
#include "tilesched/import.h"

namespace {

const std::string& Gpt2Path() {
  static const std::string path = [] {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("tilesched_import_bench_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    const std::string out = (dir / "gpt2_small_real.onnx").string();
    const std::string cmd = "xz -dc '" TILESCHED_SOURCE_DIR "/bench/data/gpt2_small_real.onnx.xz' > '" + out + "'";
    if (std::system(cmd.c_str()) != 0) std::abort();
    std::atexit([] { std::filesystem::remove_all(std::filesystem::path(Gpt2Path()).parent_path()); });
    return out;
  }();
  return path;
}

tilesched::HardwareDescription Hardware() {
  auto hw = tilesched::LoadHardwareDescription(TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json");
  if (!hw.ok()) std::abort();
  return *hw;
}

void BM_ImportGpt2SmallReal(benchmark::State& state) {
  const std::string path = Gpt2Path();
  const tilesched::HardwareDescription hw = Hardware();
  int ops = 0;
  for (auto _ : state) {
    auto model = tilesched::ImportOnnxFile(path, hw);
    if (!model.ok()) {
      state.SkipWithError(model.status().message().c_str());
      return;
    }
    ops = model->problem.num_ops();
    benchmark::DoNotOptimize(model);
  }
  state.counters["ops"] = ops;
  state.counters["file_MB"] = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
}
BENCHMARK(BM_ImportGpt2SmallReal)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ImportCommandGpt2SmallReal(benchmark::State& state) {
  const std::string path = Gpt2Path();
  const std::string out = path + ".json";
  double peak_mb = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const pid_t pid = fork();
    if (pid == 0) {
      const std::vector<std::string> argv = {TILESCHED_BINARY, "import", path, "--hardware",
                                             TILESCHED_SOURCE_DIR "/configs/hardware/contest_like.json", "-o", out};
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      if (freopen("/dev/null", "w", stdout) == nullptr || freopen("/dev/null", "w", stderr) == nullptr) _exit(126);
      execv(args[0], args.data());
      _exit(127);
    }
    int status = 0;
    struct rusage usage {};
    wait4(pid, &status, 0, &usage);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("tilesched import failed");
      return;
    }
    peak_mb = std::max(peak_mb, static_cast<double>(usage.ru_maxrss) / 1024.0);
  }
  state.counters["peak_rss_MB"] = peak_mb;
}
BENCHMARK(BM_ImportCommandGpt2SmallReal)->Unit(benchmark::kMillisecond)->UseManualTime()->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
