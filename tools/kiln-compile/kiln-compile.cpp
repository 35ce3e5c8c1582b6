//===- kiln-compile.cpp - ahead-of-time compilation to a shared library ---===//
//
//   kiln-compile FILE.mlir|FILE.jaxpr -o libNAME.so [--header NAME.h]
//                [--name NAME] [--entry FN] [--target=cpu|gpu] [--gpu-chip=sm_90]
//                [--cpu=host|x86-64-v3|...] [--rules FILE --passes PIPELINE]
//   kiln-compile FILE.mlir -o NAME.o     (the object alone: __kiln_call etc.)
//
// Compiles one function as kiln-run would (rules and passes first, then the
// CPU or GPU pipeline), but to an object instead of the JIT, and links it
// with a generated C wrapper into a shared library that depends on Kiln's
// runtime library only (libKilnRuntimeCpu.so or libKilnRuntimeGpu.so),
// never on LLVM or MLIR. The library's C entry points, all prefixed NAME_,
// are declared in the header (docs/aot.md):
//   int NAME_call(void *const *buffers);      inputs then outputs
//   int NAME_call_host(void *const *buffers); GPU: host buffers, copied
//   const char *NAME_error(void);             why the last call failed
//   and the signature: NAME_num_inputs(), NAME_num_outputs(),
//   NAME_rank(i), NAME_shape(i), NAME_dtype(i), NAME_target().
// A CPU library runs every compiled loop on the calling thread.
// The output appears complete or not at all (written beside, then renamed).
//
//===----------------------------------------------------------------------===//
#include "compiler/Compiler.h"
#include "compiler/HostJit.h"
#include "tools/CompileFlags.h"
#include "tools/Registration.h"
#include "tools/RunSupport.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>

namespace cl = llvm::cl;
using namespace mlir;
using namespace kiln;

static cl::OptionCategory compileCategory("kiln-compile options");

static cl::opt<std::string> inputFile(cl::Positional, cl::cat(compileCategory),
                                      cl::desc("<file.mlir|file.jaxpr>"), cl::Required);
static cl::opt<std::string> outputFile("o", cl::cat(compileCategory), cl::Required,
                                       cl::desc("Output: a shared library (.so) or the object "
                                                "alone (.o)"),
                                       cl::value_desc("file"));
static cl::opt<std::string> headerFile("header", cl::cat(compileCategory),
                                       cl::desc("Also write the library's C header here"),
                                       cl::value_desc("file.h"));
static cl::opt<std::string> prefixName("name", cl::cat(compileCategory),
                                       cl::desc("Prefix of the C entry points (default: the "
                                                "output's name without lib and extension)"));
static cl::opt<std::string> target("target", cl::cat(compileCategory),
                                   cl::desc("cpu (default) or gpu (CUDA kernels, buffers in "
                                            "device memory)"),
                                   cl::init("cpu"));
static cl::opt<std::string> gpuChip("gpu-chip", cl::cat(compileCategory),
                                    cl::desc("--target=gpu: the GPU architecture (default "
                                             "sm_80)"),
                                    cl::init("sm_80"));
static cl::opt<std::string> cpuName("cpu", cl::cat(compileCategory),
                                    cl::desc("CPU the host code is compiled for: host (default) "
                                             "or an LLVM CPU name (x86-64-v3, znver4, ...)"),
                                    cl::init("host"));
static cl::opt<std::string> compilerDriver("cc", cl::cat(compileCategory),
                                           cl::desc("C compiler that links the library "
                                                    "(default: $CC, else cc)"));
static cl::opt<bool> fpContract("fp-contract", cl::cat(compileCategory),
                                cl::desc("Let the CPU code fuse a multiply and an add into "
                                         "one FMA"));
// --entry, --jaxpr-input-types, --passes, --rules, --rule-tags, --plugin.
static kiln::ProgramFlags programFlags(compileCategory,
                                       "Function to compile (default: the only public one)");
static kiln::CpuPipelineFlags pipelineFlags(compileCategory);

namespace {

int fail(const llvm::Twine &message) {
  llvm::errs() << "kiln-compile: error: " << message << "\n";
  return 1;
}

/// NAME from the output path: "libmlp.so" -> "mlp"; every character that
/// cannot be in a C identifier becomes '_'.
std::string defaultPrefix(llvm::StringRef output) {
  llvm::StringRef stem = llvm::sys::path::stem(output);
  stem.consume_front("lib");
  std::string name;
  for (char c : stem)
    name += llvm::isAlnum(c) || c == '_' ? c : '_';
  if (name.empty() || llvm::isDigit(name[0]))
    name = "kiln_" + name;
  return name;
}

bool isIdentifier(llvm::StringRef name) {
  return !name.empty() && !llvm::isDigit(name[0]) &&
         llvm::all_of(name, [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

/// The C header: the entry points and the signature, as comments too.
std::string headerText(const std::string &prefix, const CompiledObject &compiled) {
  std::string upper = llvm::StringRef(prefix).upper();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* " << prefix << ".h: generated by kiln-compile from " << llvm::sys::path::filename(inputFile)
     << ". */\n";
  os << "#ifndef " << upper << "_KILN_H\n#define " << upper << "_KILN_H\n\n";
  os << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  os << "/* Target: "
     << (compiled.target == Target::Gpu ? "gpu " + compiled.gpuChip : std::string("cpu"))
     << ". Buffers: dense, row-major, inputs then outputs.\n";
  auto describe = [&](const char *what, const std::vector<TensorSpec> &specs, size_t first) {
    for (size_t i = 0; i < specs.size(); ++i) {
      os << " *   buffers[" << first + i << "]: " << what << " " << i << ", "
         << elementKindName(specs[i].kind) << "[";
      llvm::interleave(specs[i].shape, os, ",");
      os << "]\n";
    }
  };
  describe("input", compiled.inputs, 0);
  describe("output", compiled.outputs, compiled.inputs.size());
  os << " */\n";
  os << "#define " << upper << "_NUM_INPUTS " << compiled.inputs.size() << "\n";
  os << "#define " << upper << "_NUM_OUTPUTS " << compiled.outputs.size() << "\n\n";
  os << "/* Runs the function: reads the inputs, writes the outputs. CPU: host\n"
        " * pointers; GPU: device pointers (the call waits for the kernels). Returns 0,\n"
        " * or nonzero with " << prefix << "_error() saying why. Thread-safe. */\n";
  os << "int " << prefix << "_call(void *const *buffers);\n";
  os << "/* The same on host buffers: for the GPU, copied to the device and back. */\n";
  os << "int " << prefix << "_call_host(void *const *buffers);\n";
  os << "/* Why the calling thread's last call (or the library's load) failed; null if\n"
        " * it did not. */\n";
  os << "const char *" << prefix << "_error(void);\n\n";
  os << "/* The signature. index: inputs first, then outputs. */\n";
  os << "int " << prefix << "_num_inputs(void);\n";
  os << "int " << prefix << "_num_outputs(void);\n";
  os << "int " << prefix << "_rank(int index);\n";
  os << "const int64_t *" << prefix << "_shape(int index);\n";
  os << "/* JAX's short dtype name: f32, f64, f16, bf16, i8 ... u64, bool. */\n";
  os << "const char *" << prefix << "_dtype(int index);\n";
  os << "/* \"cpu\" or \"gpu sm_XY\". */\n";
  os << "const char *" << prefix << "_target(void);\n\n";
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return text;
}

/// The C wrapper linked with the object: the entry points of the header.
std::string wrapperText(const std::string &prefix, const CompiledObject &compiled) {
  bool gpu = compiled.target == Target::Gpu;
  std::vector<TensorSpec> all(compiled.inputs);
  all.insert(all.end(), compiled.outputs.begin(), compiled.outputs.end());
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "/* generated by kiln-compile */\n#include <stddef.h>\n#include <stdint.h>\n"
        "#include <stdio.h>\n\n";
  os << "void __kiln_call(void *const *);\n";
  // Defined where the code has global constructors (a GPU module load).
  os << "void __kiln_init(void) __attribute__((weak));\n";
  os << "void __kiln_fini(void) __attribute__((weak));\n";
  if (!gpu)
    os << "int32_t kiln_rt_guarded_call(void (*)(void *const *), void *const *, size_t *);\n";
  if (gpu) {
    os << "const char *kiln_gpu_take_error(void);\n";
    os << "const char *kiln_gpu_call_host(void (*)(void *const *), void *const *, const size_t "
          "*, size_t, size_t);\n";
  }
  os << "\nstatic const char *load_error;\nstatic __thread const char *last_error;\n";
  // The constructor runs at load time, before any call can be made.
  os << "__attribute__((constructor)) static void kiln_load(void) {\n"
        "  if (__kiln_init) __kiln_init();\n";
  if (gpu)
    os << "  load_error = kiln_gpu_take_error();\n";
  os << "}\n__attribute__((destructor)) static void kiln_unload(void) {\n"
        "  if (__kiln_fini) __kiln_fini();\n}\n\n";
  os << "int " << prefix << "_call(void *const *buffers) {\n"
     << "  if (load_error) { last_error = load_error; return 1; }\n";
  if (gpu) {
    os << "  __kiln_call(buffers);\n"
       << "  last_error = kiln_gpu_take_error();\n  return last_error != 0;\n";
  } else {
    // A failed allocation of the compiled code returns here (the runtime's
    // guarded call) instead of being written through.
    os << "  static __thread char message[160];\n  size_t bytes = 0;\n"
       << "  if (kiln_rt_guarded_call(__kiln_call, buffers, &bytes)) {\n"
       << "    snprintf(message, sizeof message, \"out of memory: could not allocate %zu bytes "
          "for a temporary\", bytes);\n"
       << "    last_error = message;\n    return 1;\n  }\n"
       << "  last_error = 0;\n  return 0;\n";
  }
  os << "}\n\n";
  os << "static const size_t bytes[" << std::max<size_t>(all.size(), 1) << "] = {";
  llvm::interleave(all, os, [&](const TensorSpec &s) { os << s.numBytes(); }, ", ");
  os << "};\n";
  os << "int " << prefix << "_call_host(void *const *buffers) {\n";
  if (gpu)
    os << "  if (load_error) { last_error = load_error; return 1; }\n"
       << "  last_error = kiln_gpu_call_host(__kiln_call, buffers, bytes, "
       << compiled.inputs.size() << ", " << all.size() << ");\n  return last_error != 0;\n";
  else
    os << "  return " << prefix << "_call(buffers);\n";
  os << "}\n\n";
  os << "const char *" << prefix << "_error(void) { return last_error ? last_error : "
     << "load_error; }\n";
  os << "int " << prefix << "_num_inputs(void) { return " << compiled.inputs.size() << "; }\n";
  os << "int " << prefix << "_num_outputs(void) { return " << compiled.outputs.size()
     << "; }\n";
  for (size_t i = 0; i < all.size(); ++i) {
    os << "static const int64_t shape" << i << "[" << std::max<size_t>(all[i].shape.size(), 1)
       << "] = {";
    llvm::interleave(all[i].shape, os, ", ");
    os << "};\n";
  }
  os << "static const int64_t *const shapes[" << std::max<size_t>(all.size(), 1) << "] = {";
  for (size_t i = 0; i < all.size(); ++i)
    os << (i ? ", " : "") << "shape" << i;
  os << "};\nstatic const int ranks[" << std::max<size_t>(all.size(), 1) << "] = {";
  llvm::interleave(all, os, [&](const TensorSpec &s) { os << s.shape.size(); }, ", ");
  os << "};\nstatic const char *const dtypes[" << std::max<size_t>(all.size(), 1) << "] = {";
  llvm::interleave(all, os, [&](const TensorSpec &s) { os << '"' << elementKindName(s.kind) << '"'; },
                   ", ");
  os << "};\n";
  os << "int " << prefix << "_rank(int i) { return i >= 0 && i < " << all.size()
     << " ? ranks[i] : -1; }\n";
  os << "const int64_t *" << prefix << "_shape(int i) { return i >= 0 && i < " << all.size()
     << " ? shapes[i] : 0; }\n";
  os << "const char *" << prefix << "_dtype(int i) { return i >= 0 && i < " << all.size()
     << " ? dtypes[i] : 0; }\n";
  os << "const char *" << prefix << "_target(void) { return \""
     << (gpu ? "gpu " + compiled.gpuChip : std::string("cpu")) << "\"; }\n";
  return text;
}

/// Writes `text` to `path` (created or truncated).
bool writeFile(llvm::StringRef path, llvm::StringRef text, std::string &why) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (!ec) {
    os << text;
    os.close();
    if (os.has_error()) {
      ec = os.error();
      os.clear_error();
    }
  }
  if (ec)
    why = "cannot write " + path.str() + ": " + ec.message();
  return !ec;
}

/// Writes `text` to `path` through a temporary file beside it, renamed into
/// place: the file is complete or absent.
bool writeAtomically(llvm::StringRef path, llvm::StringRef text, std::string &why) {
  llvm::SmallString<256> tmp;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, tmp)) {
    why = "cannot write " + path.str() + ": " + ec.message();
    return false;
  }
  llvm::sys::fs::closeFile(fd);
  if (!writeFile(tmp, text, why)) {
    llvm::sys::fs::remove(tmp);
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    why = "cannot write " + path.str() + ": " + ec.message();
    llvm::sys::fs::remove(tmp);
    return false;
  }
  return true;
}

/// The C compiler that links libraries: --cc, else $CC, else cc on PATH;
/// empty with `why` when there is none.
std::string findCompilerDriver(std::string &why) {
  std::string cc = compilerDriver;
  if (cc.empty())
    if (const char *env = std::getenv("CC"); env && *env)
      cc = env;
  if (cc.empty())
    cc = "cc";
  auto program = llvm::sys::findProgramByName(cc);
  if (!program || !llvm::sys::fs::can_execute(*program)) {
    why = "no C compiler '" + cc + "' to link the library (--cc or $CC)";
    return "";
  }
  return *program;
}

/// Links `objectPath` and the wrapper into the shared library `output`
/// (through a temporary name, renamed into place) with the C compiler.
bool linkLibrary(const std::string &prefix, const std::string &objectPath,
                 const std::string &wrapperPath, const std::string &runtime,
                 const std::string &output, std::string &why) {
  std::string program = findCompilerDriver(why);
  if (program.empty())
    return false;
  llvm::SmallString<256> scriptPath;
  if (llvm::sys::fs::createTemporaryFile("kiln-compile", "map", scriptPath)) {
    why = "cannot create a temporary file";
    return false;
  }
  // Only NAME_* is exported, so that two Kiln libraries in one process do
  // not bind each other's __kiln_call.
  std::string script = "{ global: " + prefix + "_*; local: *; };\n";
  if (!writeFile(scriptPath, script, why)) {
    llvm::sys::fs::remove(scriptPath);
    return false;
  }
  std::string tmpOutput = output + ".tmp-link";
  llvm::StringRef runtimeDir = llvm::sys::path::parent_path(runtime);
  llvm::StringRef runtimeName = llvm::sys::path::stem(runtime); // libKilnRuntimeCpu
  runtimeName.consume_front("lib");
  std::vector<std::string> args = {
      program, "-shared", "-fPIC", "-O2", "-o", tmpOutput, objectPath, wrapperPath,
      "-L" + runtimeDir.str(), "-l" + runtimeName.str(),
      // Beside the library first (a deployment copies the runtime there),
      // then where it was built.
      "-Wl,-rpath,$ORIGIN:" + runtimeDir.str(), "-Wl,--version-script=" + scriptPath.str().str(),
      "-Wl,-z,noexecstack", "-lm"};
  std::vector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string message;
  llvm::SmallString<256> logPath;
  llvm::sys::fs::createTemporaryFile("kiln-compile", "log", logPath);
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, logPath.str(), logPath.str()};
  int rc = llvm::sys::ExecuteAndWait(program, argRefs, std::nullopt, redirects, 0, 0, &message);
  llvm::sys::fs::remove(scriptPath);
  std::string log;
  if (auto buffer = llvm::MemoryBuffer::getFile(logPath))
    log = (*buffer)->getBuffer().str();
  llvm::sys::fs::remove(logPath);
  if (rc != 0) {
    llvm::sys::fs::remove(tmpOutput);
    why = "linking with " + program + " failed" + (message.empty() ? "" : ": " + message) +
          (log.empty() ? "" : "\n" + log);
    return false;
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmpOutput, output)) {
    llvm::sys::fs::remove(tmpOutput);
    why = "cannot write " + output + ": " + ec.message();
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  DialectRegistry registry;
  if (!registerKilnTool(registry, argc, argv, "kiln-compile"))
    return 1;
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Kiln: compile a lax program ahead of time to a shared library\n");
  if (target != "cpu" && target != "gpu")
    return fail("--target must be cpu or gpu, got '" + target + "'");
  llvm::StringRef ext = llvm::sys::path::extension(outputFile);
  if (ext != ".so" && ext != ".o")
    return fail("-o must name a shared library (.so) or an object (.o), got '" + outputFile +
                "'");
  std::string prefix = prefixName.empty() ? defaultPrefix(outputFile) : prefixName.getValue();
  if (!isIdentifier(prefix))
    return fail("--name must be a C identifier, got '" + prefix + "'");

  CompileOptions options;
  options.target = target == "gpu" ? Target::Gpu : Target::Cpu;
  options.gpuChip = gpuChip;
  options.fpContract = fpContract;
  ObjectTarget objectTarget;
  objectTarget.cpu = cpuName;
  objectTarget.positionIndependent = true;
  // The vector widths of the named CPU's code shapes (both exact choices),
  // from its features as the JIT takes the host's; an unknown name is
  // reported by the compile.
  if (cpuName != "host")
    if (int64_t bits = vectorRegisterBits(objectTarget))
      options.scanRegisterBits = options.matvecVectorBits = bits;
  // Every compiled loop runs on the calling thread: no dispatch to the
  // runtime's pool from a library in someone else's process.
  options.minParallelWork = INT64_MAX;
  pipelineFlags.apply(options);
  if (options.target == Target::Cpu && options.minParallelWork != INT64_MAX)
    return fail("--min-parallel-work: an ahead-of-time CPU library runs every loop on the "
                "calling thread");
  std::string runtime = runtimeLibraryPath(options);
  if (ext == ".so" && runtime.empty())
    return fail("Kiln was built without the GPU runtime (no CUDA headers at configure time)");
  std::string why;
  if (ext == ".so" && findCompilerDriver(why).empty())
    return fail(why); // before the compile, which would be wasted

  MLIRContext context(registry);
  Compiler::prepareContext(context);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = run::loadProgram(inputFile, sourceMgr, &context,
                                                    programFlags.jaxprInputTypes());
  if (!module)
    return 1;
  if (failed(run::applyRewrites(*module, context, programFlags.rewrites(), "kiln-compile")))
    return 1;
  if (failed(run::refuseHostCallbacks(*module, "kiln-compile")))
    return 1;
  FailureOr<std::string> entry = run::chooseEntry(*module, programFlags.entry());
  if (failed(entry))
    return 1;

  std::string error;
  std::optional<CompiledObject> compiled =
      Compiler(options).compileObject(*module, *entry, objectTarget, &error);
  if (!compiled)
    return fail(error);

  if (ext == ".o") {
    if (!writeAtomically(outputFile, compiled->object, why))
      return fail(why);
  } else {
    llvm::SmallString<256> objectPath, wrapperPath;
    if (llvm::sys::fs::createTemporaryFile("kiln-compile", "o", objectPath) ||
        llvm::sys::fs::createTemporaryFile("kiln-compile", "c", wrapperPath))
      return fail("cannot create temporary files");
    bool linked = writeFile(objectPath, compiled->object, why) &&
                  writeFile(wrapperPath, wrapperText(prefix, *compiled), why) &&
                  linkLibrary(prefix, objectPath.str().str(), wrapperPath.str().str(), runtime,
                              outputFile, why);
    llvm::sys::fs::remove(objectPath);
    llvm::sys::fs::remove(wrapperPath);
    if (!linked)
      return fail(why);
  }
  if (!headerFile.empty() && !writeAtomically(headerFile, headerText(prefix, *compiled), why)) {
    llvm::sys::fs::remove(outputFile);
    return fail(why);
  }
  return 0;
}
