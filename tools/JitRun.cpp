//===- JitRun.cpp - running and timing compiled functions for the tools ---===//
//
// timeExecutable, runJit (kiln-run's JIT mode as a library call),
// formatTimings, and bytesOf/tensorOf between interpreter tensors and the
// JIT's buffers. Results are compared with reference/Comparison.h. Only the
// Executable API of the compiler is used.
//
//===----------------------------------------------------------------------===//
#include "tools/JitRun.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/APFloat.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

using namespace mlir;

namespace kiln {

bool timeExecutable(const Executable &exe,
                    const std::vector<BufferView> &inputs,
                    const std::vector<BufferView> &outputs, int warmup,
                    int repeat, CallTimings &timings, std::string *error) {
  using Clock = std::chrono::steady_clock;
  if (!exe.call(inputs, outputs, error))
    return false;
  std::vector<void *> buffers;
  for (const BufferView &v : inputs)
    buffers.push_back(v.data);
  for (const BufferView &v : outputs)
    buffers.push_back(v.data);
  for (int i = 0; i < warmup; ++i)
    exe.callRaw(buffers.data());
  repeat = std::max(repeat, 1);
  auto median = [](std::vector<double> &t) {
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  };
  std::vector<double> raw, checked;
  for (int i = 0; i < repeat; ++i) {
    auto s = Clock::now();
    exe.callRaw(buffers.data());
    raw.push_back(std::chrono::duration<double>(Clock::now() - s).count());
    s = Clock::now();
    exe.call(inputs, outputs);
    checked.push_back(std::chrono::duration<double>(Clock::now() - s).count());
  }
  timings.repeat = repeat;
  timings.medianSeconds = median(raw);
  timings.minSeconds = raw.front();
  timings.callOverheadSeconds =
      std::max(0.0, median(checked) - timings.medianSeconds);
  return true;
}

bool runJit(ModuleOp module, const std::string &entry,
            const std::vector<BufferView> &inputs, int warmup, int repeat,
            JitRunResult &result, std::string *error,
            const CompileOptions &options) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  std::unique_ptr<Executable> exe =
      Compiler(options).compile(module, entry, error);
  if (!exe)
    return false;
  result.compileSeconds =
      std::chrono::duration<double>(Clock::now() - start).count();
  result.cache = exe->cacheOutcome();
  result.phases = exe->phaseTimes();
  result.outputSpecs = exe->outputs();
  result.outputs.clear();
  std::vector<BufferView> outs;
  for (const TensorSpec &s : exe->outputs()) {
    result.outputs.emplace_back(std::max<size_t>(s.numBytes(), 1));
    outs.push_back({result.outputs.back().data(), s.shape, s.kind});
  }
  if (!exe->call(inputs, outs, error))
    return false;
  result.timings = CallTimings();
  if (repeat > 0) {
    // Time into scratch outputs so the first call's results stay intact.
    std::vector<std::vector<char>> scratch;
    std::vector<BufferView> scratchOuts;
    for (const BufferView &o : outs) {
      scratch.emplace_back(
          std::max<size_t>(exe->outputs()[scratch.size()].numBytes(), 1));
      scratchOuts.push_back({scratch.back().data(), o.shape, o.kind});
    }
    if (!timeExecutable(*exe, inputs, scratchOuts, warmup, repeat,
                        result.timings, error))
      return false;
  }
  return true;
}

std::string formatTimings(const JitRunResult &r) {
  char line[256];
  std::snprintf(line, sizeof(line),
                "jit: min %.3f us, median %.3f us, call overhead %.3f us (%d "
                "runs), compile %.1f ms",
                r.timings.minSeconds * 1e6, r.timings.medianSeconds * 1e6,
                r.timings.callOverheadSeconds * 1e6, r.timings.repeat,
                r.compileSeconds * 1e3);
  std::string text = line;
  if (r.cache.kind == CacheOutcome::Hit) {
    text += " (cache hit)";
  } else {
    const CompilePhaseTimes &p = r.phases;
    std::snprintf(line, sizeof(line),
                  " (to linalg %.1f ms, to LLVM %.1f ms, codegen %.1f ms, link %.1f ms)",
                  p.laxToLinalg * 1e3, p.toLLVM * 1e3, p.codegen * 1e3, p.link * 1e3);
    text += line;
  }
  return text;
}

std::vector<char> bytesOf(const interp::Tensor &t) {
  ElementKind kind = *elementKindOf(t.getElementType());
  std::vector<char> bytes(std::max<size_t>(t.size() * elementSize(kind), 1));
  for (int64_t i = 0; i < t.size(); ++i) {
    char *p = bytes.data() + i * elementSize(kind);
    switch (kind) {
    case ElementKind::F32: { float v = t.getFloat(i); std::memcpy(p, &v, 4); break; }
    case ElementKind::F64: { double v = t.getFloat(i); std::memcpy(p, &v, 8); break; }
    case ElementKind::F16: case ElementKind::BF16: {
      llvm::APFloat f(t.getFloat(i));
      bool lost;
      f.convert(kind == ElementKind::F16 ? llvm::APFloat::IEEEhalf() : llvm::APFloat::BFloat(),
                llvm::APFloat::rmNearestTiesToEven, &lost);
      uint16_t bits = f.bitcastToAPInt().getZExtValue();
      std::memcpy(p, &bits, 2);
      break;
    }
    default: storeIntElement(p, kind, t.getInt(i)); break;
    }
  }
  return bytes;
}

interp::Tensor tensorOf(RankedTensorType type, const std::vector<char> &bytes) {
  interp::Tensor t(type);
  ElementKind kind = *elementKindOf(type.getElementType());
  for (int64_t i = 0; i < t.size(); ++i) {
    const char *p = bytes.data() + i * elementSize(kind);
    switch (kind) {
    case ElementKind::F32: { float v; std::memcpy(&v, p, 4); t.setFloat(i, v); break; }
    case ElementKind::F64: { double v; std::memcpy(&v, p, 8); t.setFloat(i, v); break; }
    case ElementKind::F16: case ElementKind::BF16: {
      uint16_t bits;
      std::memcpy(&bits, p, 2);
      t.setFloat(i, llvm::APFloat(kind == ElementKind::F16 ? llvm::APFloat::IEEEhalf()
                                                            : llvm::APFloat::BFloat(),
                                  llvm::APInt(16, bits)).convertToDouble());
      break;
    }
    case ElementKind::Bool: t.setInt(i, *p != 0); break;
    default: t.setInt(i, loadIntElement(p, kind)); break;
    }
  }
  return t;
}

std::vector<BufferView> viewsOf(llvm::ArrayRef<interp::Tensor> tensors,
                                std::vector<std::vector<char>> &storage) {
  storage.clear();
  for (const interp::Tensor &t : tensors)
    storage.push_back(bytesOf(t));
  std::vector<BufferView> views;
  for (auto [t, bytes] : llvm::zip(tensors, storage))
    views.push_back({bytes.data(), t.shape(), *elementKindOf(t.getElementType())});
  return views;
}

} // namespace kiln
