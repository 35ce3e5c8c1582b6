//===- Program.cpp - a lax module from Python ---------------------------===//
//
// kiln._kiln.Program: one lax module in its own MLIRContext (shared with the
// programs derived from it by rewriting). Everything a tool does to a
// program, from Python: import a jaxpr, parse lax text, run Kiln's
// optimizations or the rules (with their trace), compile it, run the
// reference interpreter, print it, and export it as plain Python data (what
// kiln.rewrite evaluates with JAX's primitives).
//
//===----------------------------------------------------------------------===//

#include "python/CompiledFunction.h"
#include "python/JaxprFromPython.h"

#include "compiler/CompileCache.h"
#include "dialect/LaxInterfaces.h"
#include "dialect/LaxOps.h"
#include "importer/JaxprImporter.h"
#include "reference/Interpreter.h"
#include "rules/ApplyRules.h"
#include "rules/PluginLoader.h"
#include "tools/JitRun.h"
#include "tools/Registration.h"
#include "transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <unistd.h>

using namespace mlir;
namespace nb = nanobind;

namespace kiln::python {

namespace {
/// An option's name in Python: its flag with '_' for '-'.
std::string pythonOptionName(llvm::StringRef flag) {
  std::string name = flag.str();
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

template <typename T> T pipelineOptionValue(const std::string &name, nb::handle value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!nb::isinstance<nb::bool_>(value))
      throw nb::type_error(("compiler option '" + name + "' takes a bool").c_str());
    return nb::cast<bool>(value);
  } else {
    if (nb::isinstance<nb::bool_>(value) || !nb::isinstance<nb::int_>(value))
      throw nb::type_error(("compiler option '" + name + "' takes an int").c_str());
    return nb::cast<T>(value);
  }
}

/// Sets the CPU pipeline options named in `given` ({"scan_vector_bits": 256}:
/// the entries of lowering/CpuPipelineOptions.def by pythonOptionName).
void setPipelineOptions(CompileOptions &options, const nb::dict &given) {
  for (auto [key, value] : given) {
    if (!nb::isinstance<nb::str>(key))
      throw nb::type_error("compiler option names are strings");
    std::string name = nb::cast<std::string>(key);
    bool known = false;
    std::string names;
#define KILN_CPU_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, DESCRIPTION)                     \
  if (name == pythonOptionName(FLAG)) {                                                       \
    options.FIELD = pipelineOptionValue<TYPE>(name, value);                                   \
    known = true;                                                                             \
  }                                                                                           \
  names += (names.empty() ? "" : ", ") + pythonOptionName(FLAG);
#include "lowering/CpuPipelineOptions.def"
    if (!known)
      throw nb::value_error(
          ("unknown compiler option '" + name + "'; Kiln's are: " + names).c_str());
  }
}
} // namespace
namespace {

/// A context with every dialect Kiln's pipelines use, and the buffers its
/// locations point into (jaxpr and lax text given from Python).
struct Context {
  Context() : context(registry(), MLIRContext::Threading::DISABLED) {
    Compiler::prepareContext(context);
    context.loadAllAvailableDialects();
  }
  static const DialectRegistry &registry() {
    static DialectRegistry *r = [] {
      auto *reg = new DialectRegistry;
      registerAllKilnDialects(*reg);
      registerAllKilnPasses();
      return reg;
    }();
    return *r;
  }
  MLIRContext context;
  llvm::SourceMgr sourceMgr;
};

/// Collects the diagnostics emitted while it lives, as the tools print them
/// (`file:line:col: error: ...` with the source line).
class DiagnosticCapture {
public:
  explicit DiagnosticCapture(Context &c) : os(text), handler(c.sourceMgr, &c.context, os) {}
  [[noreturn]] void fail(KilnError::Kind kind, llvm::StringRef fallback) {
    os.flush();
    std::string message = text.empty() ? fallback.str() : text;
    while (!message.empty() && message.back() == '\n')
      message.pop_back();
    throw KilnError(kind, message);
  }

private:
  std::string text;
  llvm::raw_string_ostream os;
  SourceMgrDiagnosticHandler handler;
};

/// Runs `body` with file descriptor 2 (where the rule engine's trace and
/// stats go, through llvm::errs()) redirected into the returned string.
template <typename Body> std::string captureStderr(Body &&body) {
  llvm::errs().flush();
  std::fflush(stderr);
  FILE *tmp = std::tmpfile();
  int saved = dup(2);
  if (!tmp || saved < 0) {
    if (tmp)
      std::fclose(tmp);
    body();
    return {};
  }
  dup2(fileno(tmp), 2);
  struct Restore {
    int saved;
    ~Restore() {
      llvm::errs().flush();
      std::fflush(stderr);
      dup2(saved, 2);
      close(saved);
    }
  };
  {
    Restore restore{saved};
    body();
  }
  std::string out;
  std::rewind(tmp);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, tmp)) > 0)
    out.append(buf, n);
  std::fclose(tmp);
  return out;
}

std::string dtypeName(Type type) {
  if (type.isF32())
    return "float32";
  if (type.isF64())
    return "float64";
  if (type.isF16())
    return "float16";
  if (type.isBF16())
    return "bfloat16";
  if (auto i = dyn_cast<IntegerType>(type)) {
    if (i.getWidth() == 1)
      return "bool";
    return (i.isUnsigned() ? "uint" : "int") + std::to_string(i.getWidth());
  }
  if (isa<IndexType>(type))
    return "int64";
  std::string s;
  llvm::raw_string_ostream(s) << type;
  return s;
}

nb::object typeToPython(Type type) {
  if (auto t = dyn_cast<RankedTensorType>(type)) {
    nb::list shape;
    for (int64_t d : t.getShape())
      shape.append(d);
    return nb::make_tuple(nb::tuple(shape), dtypeName(t.getElementType()));
  }
  return nb::make_tuple(nb::tuple(), dtypeName(type));
}

std::string printed(Attribute attr) {
  std::string s;
  llvm::raw_string_ostream(s) << attr;
  return s;
}

/// Attributes as Python data: numbers, strings, lists, dicts; dense
/// elements as ("dense", dtype, shape, flat values); anything else (enums)
/// as its printed form.
nb::object attrToPython(Attribute attr) {
  if (auto b = dyn_cast<BoolAttr>(attr))
    return nb::bool_(b.getValue());
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (i.getType().isInteger(1))
      return nb::bool_(i.getValue().getBoolValue());
    if (i.getType().isUnsignedInteger())
      return nb::int_(i.getValue().getZExtValue());
    return nb::int_(i.getValue().getSExtValue());
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return nb::float_(f.getValueAsDouble());
  if (auto s = dyn_cast<StringAttr>(attr))
    return nb::str(s.getValue().data(), s.getValue().size());
  if (isa<UnitAttr>(attr))
    return nb::bool_(true);
  if (auto t = dyn_cast<TypeAttr>(attr))
    return typeToPython(t.getValue());
  if (auto s = dyn_cast<FlatSymbolRefAttr>(attr))
    return nb::str(s.getValue().data(), s.getValue().size());
  auto list = [](auto values) {
    nb::list l;
    for (auto v : values)
      l.append(v);
    return l;
  };
  if (auto a = dyn_cast<DenseI64ArrayAttr>(attr))
    return list(a.asArrayRef());
  if (auto a = dyn_cast<DenseI32ArrayAttr>(attr))
    return list(a.asArrayRef());
  if (auto a = dyn_cast<DenseBoolArrayAttr>(attr))
    return list(a.asArrayRef());
  if (auto a = dyn_cast<ArrayAttr>(attr)) {
    nb::list l;
    for (Attribute e : a)
      l.append(attrToPython(e));
    return std::move(l);
  }
  if (auto d = dyn_cast<DictionaryAttr>(attr)) {
    nb::dict out;
    for (NamedAttribute n : d)
      out[nb::str(n.getName().data(), n.getName().size())] = attrToPython(n.getValue());
    return std::move(out);
  }
  if (auto e = dyn_cast<DenseElementsAttr>(attr)) {
    auto type = cast<ShapedType>(e.getType());
    nb::list values;
    Type elt = type.getElementType();
    if (isa<FloatType>(elt)) {
      for (APFloat v : e.getValues<APFloat>())
        values.append(v.convertToDouble());
    } else if (elt.isInteger(1)) {
      for (bool v : e.getValues<bool>())
        values.append(v);
    } else if (elt.isUnsignedInteger()) {
      for (APInt v : e.getValues<APInt>())
        values.append(nb::int_(v.getZExtValue()));
    } else {
      for (APInt v : e.getValues<APInt>())
        values.append(nb::int_(v.getSExtValue()));
    }
    nb::list shape;
    for (int64_t d : type.getShape())
      shape.append(d);
    return nb::make_tuple("dense", dtypeName(elt), nb::tuple(shape), values, e.isSplat());
  }
  return nb::str(printed(attr).c_str());
}

/// A function body (or region) as Python data, numbering values in `ids`.
class Exporter {
public:
  nb::dict region(Region &region) {
    nb::dict out;
    Block &block = region.front();
    nb::list args, types;
    for (BlockArgument a : block.getArguments()) {
      args.append(id(a));
      types.append(typeToPython(a.getType()));
    }
    nb::list ops;
    for (Operation &op : block)
      ops.append(operation(op));
    out["args"] = args;
    out["arg_types"] = types;
    out["ops"] = ops;
    return out;
  }

private:
  int64_t id(Value v) {
    auto [it, inserted] = ids.try_emplace(v, int64_t(ids.size()));
    return it->second;
  }
  nb::dict operation(Operation &op) {
    nb::dict out;
    out["name"] = op.getName().getStringRef().str();
    nb::list operands, results, types, regions;
    for (Value v : op.getOperands())
      operands.append(id(v));
    for (Value v : op.getResults()) {
      results.append(id(v));
      types.append(typeToPython(v.getType()));
    }
    nb::dict attrs, attrText;
    for (NamedAttribute n : op.getAttrs()) {
      nb::str name(n.getName().data(), n.getName().size());
      attrs[name] = attrToPython(n.getValue());
      attrText[name] = printed(n.getValue());
    }
    for (Region &r : op.getRegions())
      regions.append(region(r));
    out["operands"] = operands;
    out["results"] = results;
    out["result_types"] = types;
    out["attrs"] = attrs;
    out["attr_text"] = attrText; // as MLIR prints them (rules from functions)
    out["regions"] = regions;
    out["location"] = printed(op.getLoc());
    return out;
  }
  llvm::DenseMap<Value, int64_t> ids;
};

} // namespace

/// A lax module and the context it lives in.
class Program {
public:
  Program(std::shared_ptr<Context> context, OwningOpRef<ModuleOp> module)
      : context_(std::move(context)), module_(std::move(module)) {}

  static std::shared_ptr<Program> fromJaxpr(const std::string &text, const std::string &filename,
                                            const std::string &inputTypes) {
    auto context = std::make_shared<Context>();
    context->sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, filename),
                                          llvm::SMLoc());
    DiagnosticCapture diagnostics(*context);
    JaxprImportOptions options;
    options.inputTypes = inputTypes;
    OwningOpRef<ModuleOp> module = importJaxpr(context->sourceMgr, &context->context, options);
    if (!module)
      diagnostics.fail(KilnError::Import, filename + ": error: the jaxpr could not be imported");
    return std::make_shared<Program>(std::move(context), std::move(module));
  }

  static std::shared_ptr<Program> fromJaxprTree(nb::handle tree, const std::string &name) {
    jaxpr::Program syntax = jaxprProgramFromPython(tree);
    auto context = std::make_shared<Context>();
    DiagnosticCapture diagnostics(*context);
    OwningOpRef<ModuleOp> module = importJaxprProgram(syntax, &context->context, {});
    if (!module)
      diagnostics.fail(KilnError::Import, name + ": error: the jaxpr could not be imported");
    return std::make_shared<Program>(std::move(context), std::move(module));
  }

  static std::shared_ptr<Program> fromMlir(const std::string &text, const std::string &filename) {
    auto context = std::make_shared<Context>();
    context->sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, filename),
                                          llvm::SMLoc());
    DiagnosticCapture diagnostics(*context);
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(context->sourceMgr, ParserConfig(&context->context));
    if (!module || failed(mlir::verify(*module)))
      diagnostics.fail(KilnError::General, filename + ": error: not a valid lax module");
    return std::make_shared<Program>(std::move(context), std::move(module));
  }

  std::string text(bool locations) const {
    std::string s;
    llvm::raw_string_ostream os(s);
    OpPrintingFlags flags;
    if (locations)
      flags.enableDebugInfo();
    mod().print(os, flags);
    return s;
  }

  /// Kiln's lax -> lax rewrites (--kiln-optimize) on a copy.
  std::shared_ptr<Program> optimize(bool reassociate) const {
    return transformed(KilnError::General, [&](PassManager &pm) {
      buildOptimizePipeline(pm, reassociate);
    }).first;
  }

  /// The rules of `ruleFiles` (and of the loaded plugins) on a copy, with
  /// the trace of what fired.
  std::pair<std::shared_ptr<Program>, std::string>
  applyRules(const std::vector<std::string> &ruleFiles, const std::string &tags, bool trace,
             const std::vector<std::string> &plugins) const {
    return transformed(KilnError::Rule, [&](PassManager &pm) {
      ApplyRulesOptions options;
      options.ruleFiles.assign(ruleFiles.begin(), ruleFiles.end());
      options.plugins.assign(plugins.begin(), plugins.end());
      options.tags = tags;
      options.trace = trace;
      pm.addPass(createApplyRules(options));
    }, trace);
  }

  std::shared_ptr<CompiledFunction> compile(const std::string &entry, const std::string &cacheDir,
                                            bool fpContract, const nb::dict &pipeline) const {
    CompileOptions options;
    options.cacheDir = cacheDir;
    options.fpContract = fpContract;
    setPipelineOptions(options, pipeline);
    Compiler compiler(options);
    std::string error;
    std::unique_ptr<Executable> exe;
    {
      DiagnosticCapture diagnostics(*context_);
      nb::gil_scoped_release release;
      exe = compiler.compile(mod(), entry, &error);
    }
    if (!exe)
      throw KilnError(KilnError::Compile, error.empty() ? "compilation failed" : error);
    return std::make_shared<CompiledFunction>(std::move(exe));
  }

  /// The reference interpreter on `args` (numpy arrays, one per argument).
  nb::list interpret(const std::string &entry, const std::vector<nb::object> &args) const {
    auto func = mod().lookupSymbol<func::FuncOp>(entry);
    if (!func)
      throw KilnError(KilnError::General, "no function '" + entry + "' in the program");
    if (args.size() != func.getNumArguments())
      throw KilnError(KilnError::General, "'" + entry + "' takes " +
                                              std::to_string(func.getNumArguments()) +
                                              " arguments, got " + std::to_string(args.size()));
    llvm::SmallVector<interp::Tensor> tensors;
    for (auto [i, arg] : llvm::enumerate(args)) {
      auto tensorType = cast<RankedTensorType>(func.getArgumentTypes()[i]);
      std::vector<char> bytes = argumentBytes(arg, tensorType, i, entry);
      if (bytes.empty())
        bytes.push_back(0);
      tensors.push_back(tensorOf(tensorType, bytes));
    }
    DiagnosticCapture diagnostics(*context_);
    FailureOr<llvm::SmallVector<interp::Tensor>> out =
        interp::interpret(mod(), entry, tensors);
    if (failed(out))
      diagnostics.fail(KilnError::General, "the interpreter failed");
    nb::module_ np = nb::module_::import_("numpy");
    nb::list results;
    for (const interp::Tensor &t : *out) {
      std::vector<char> bytes = bytesOf(t);
      ElementKind kind = *elementKindOf(t.getElementType());
      nb::list shape;
      for (int64_t d : t.shape())
        shape.append(d);
      nb::object dtype = dtypeOf(kind);
      nb::object flat = np.attr("frombuffer")(
          nb::bytes(bytes.data(), size_t(t.size()) * elementSize(kind)), nb::arg("dtype") = dtype);
      results.append(flat.attr("reshape")(nb::tuple(shape)).attr("copy")());
    }
    return results;
  }

  /// {"functions": {name: region dict + "visibility"}}; see python/kiln/_export.py.
  nb::dict exportToPython() const {
    nb::dict functions;
    Exporter exporter;
    for (auto func : mod().getOps<func::FuncOp>()) {
      nb::dict f = exporter.region(func.getBody());
      f["public"] = func.isPublic();
      nb::list results;
      for (Type t : func.getResultTypes())
        results.append(typeToPython(t));
      f["result_types"] = results;
      functions[func.getSymName().str().c_str()] = f;
    }
    nb::dict out;
    out["functions"] = functions;
    return out;
  }

  /// The public functions' names.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (auto func : mod().getOps<func::FuncOp>())
      if (func.isPublic())
        out.push_back(func.getSymName().str());
    return out;
  }

private:
  /// The row-major bytes of numpy-convertible `arg` as argument `index` of
  /// `entry`, of type `type` (converted to its dtype; the shape must match:
  /// a shorter array's bytes had been read past their end).
  static std::vector<char> argumentBytes(nb::handle arg, RankedTensorType type, size_t index,
                                         const std::string &entry) {
    std::optional<ElementKind> kind = elementKindOf(type.getElementType());
    if (!kind)
      throw KilnError(KilnError::General, "unsupported argument type");
    nb::module_ np = nb::module_::import_("numpy");
    nb::object array = np.attr("ascontiguousarray")(arg, nb::arg("dtype") = dtypeOf(*kind));
    std::vector<int64_t> shape = nb::cast<std::vector<int64_t>>(array.attr("shape"));
    if (llvm::ArrayRef<int64_t>(shape) != type.getShape()) {
      auto join = [](llvm::ArrayRef<int64_t> dims) {
        return llvm::join(llvm::map_range(dims, [](int64_t d) { return std::to_string(d); }),
                          ", ");
      };
      throw KilnError(KilnError::General,
                      "argument " + std::to_string(index) + " of '" + entry +
                          "' must have shape [" + join(type.getShape()) + "], got [" +
                          join(shape) + "]");
    }
    nb::bytes raw = nb::cast<nb::bytes>(array.attr("tobytes")());
    return std::vector<char>(raw.c_str(), raw.c_str() + raw.size());
  }

public:
  /// A copy whose `entry` takes neither its first len(leading) nor its last
  /// len(trailing) arguments: each becomes a lax.constant of the given array
  /// (the constants a jitted function closes over, for an exported library
  /// that takes only the caller's arrays).
  std::shared_ptr<Program> bindArguments(const std::string &entry,
                                         const std::vector<nb::object> &leading,
                                         const std::vector<nb::object> &trailing) const {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(mod()->clone()));
    auto func = copy->lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal())
      throw KilnError(KilnError::General, "no function '" + entry + "' with a body");
    size_t n = func.getNumArguments();
    if (leading.size() + trailing.size() > n)
      throw KilnError(KilnError::General, "'" + entry + "' takes " + std::to_string(n) +
                                              " arguments, fewer than the " +
                                              std::to_string(leading.size() + trailing.size()) +
                                              " to bind");
    OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
    llvm::BitVector erase(n);
    auto bindOne = [&](nb::handle value, size_t i) {
      auto type = cast<RankedTensorType>(func.getArgumentTypes()[i]);
      std::vector<char> bytes = argumentBytes(value, type, i, entry);
      DenseElementsAttr attr;
      if (type.getElementType().isInteger(1)) {
        llvm::SmallVector<bool> bits(bytes.begin(), bytes.end());
        attr = DenseElementsAttr::get(type, llvm::ArrayRef<bool>(bits));
      } else {
        // A raw buffer is read with the signless storage type of its width.
        attr = DenseElementsAttr::getFromRawBuffer(type, bytes);
      }
      Value constant = kiln::lax::ConstantOp::create(b, func.getLoc(), attr);
      func.getArgument(i).replaceAllUsesWith(constant);
      erase.set(i);
    };
    for (size_t i = 0; i < leading.size(); ++i)
      bindOne(leading[i], i);
    for (size_t i = 0; i < trailing.size(); ++i)
      bindOne(trailing[i], n - trailing.size() + i);
    if (failed(func.eraseArguments(erase)))
      throw KilnError(KilnError::General, "cannot drop the bound arguments");
    return std::make_shared<Program>(context_, std::move(copy));
  }

private:
  template <typename Build>
  std::pair<std::shared_ptr<Program>, std::string>
  transformed(KilnError::Kind kind, Build &&build, bool captureTrace = false) const {
    OwningOpRef<ModuleOp> copy(cast<ModuleOp>(mod()->clone()));
    DiagnosticCapture diagnostics(*context_);
    PassManager pm(&context_->context);
    build(pm);
    LogicalResult result = success();
    std::string trace;
    if (captureTrace)
      trace = captureStderr([&] { result = pm.run(*copy); });
    else
      result = pm.run(*copy);
    if (failed(result))
      diagnostics.fail(kind, "the rewrite failed");
    return {std::make_shared<Program>(context_, std::move(copy)), trace};
  }

  ModuleOp mod() const { return module_.get(); }
  std::shared_ptr<Context> context_;
  OwningOpRef<ModuleOp> module_;
};

void bindProgram(nb::module_ &m) {
  nb::class_<Program>(m, "Program", "A lax module (see kiln.Lowered for the user-facing view)")
      .def_static("from_jaxpr", &Program::fromJaxpr, nb::arg("text"),
                  nb::arg("filename") = "<jaxpr>", nb::arg("input_types") = "",
                  "Imports a jaxpr as JAX prints it; raises kiln.JaxprImportError")
      .def_static("from_jaxpr_tree", &Program::fromJaxprTree, nb::arg("tree"),
                  nb::arg("name") = "<jaxpr>",
                  "Imports a jaxpr from kiln._jaxpr.jaxpr_tree (JAX's objects, no text); "
                  "raises kiln.JaxprImportError")
      .def_static("from_mlir", &Program::fromMlir, nb::arg("text"),
                  nb::arg("filename") = "<mlir>", "Parses lax MLIR text")
      .def("text", &Program::text, nb::arg("locations") = false)
      .def("__str__", [](const Program &p) { return p.text(false); })
      .def("optimize", &Program::optimize, nb::arg("reassociate") = false)
      .def("apply_rules", &Program::applyRules, nb::arg("rule_files"), nb::arg("tags") = "",
           nb::arg("trace") = false, nb::arg("plugins") = std::vector<std::string>(),
           "Applies the rules of `rule_files` and of `plugins` (.so), and no other plugin's")
      .def("compile", &Program::compile, nb::arg("entry") = "main", nb::arg("cache_dir") = "",
           nb::arg("fp_contract") = false, nb::arg("options") = nb::dict(),
           "Compiles `entry` for the CPU; `options`: CPU pipeline options by name "
           "(lowering/CpuPipelineOptions.def, '_' for '-')")
      .def("interpret", &Program::interpret, nb::arg("entry"), nb::arg("args"))
      .def("export", &Program::exportToPython)
      .def("entries", &Program::entries)
      .def("bind_arguments", &Program::bindArguments, nb::arg("entry"), nb::arg("leading"),
           nb::arg("trailing"));

  m.def(
      "load_plugin",
      [](const std::string &path) {
        std::string error;
        if (!rules::loadPlugin(path, error))
          throw KilnError(KilnError::Rule, error);
      },
      nb::arg("path"),
      "Loads a Kiln plugin (.so) once per process; its rules, patterns and native functions "
      "join the rewrites that name it (apply_rules' plugins)");
  m.def("default_cache_dir", &defaultCompileCacheDir);
  m.def(
      "elementwise_primitives",
      [] {
        std::vector<std::tuple<std::string, std::string, unsigned>> out;
        for (const lax::ElementwisePrimitive &p : lax::elementwisePrimitives())
          out.emplace_back(p.opName.str(), p.jaxName.str(), p.arity);
        return out;
      },
      "(op name, JAX primitive, arity) of every parameterless elementwise lax op");
  m.def("importable_primitives", &importablePrimitives,
        "Sorted names of the jaxpr primitives Kiln's importer reads");
}

} // namespace kiln::python
