//===- kiln-opt.cpp - Kiln's mlir-opt -------------------------------------===//
//
// mlir-opt with the lax dialect and Kiln's passes, rules and plugins.
// Rule flags (docs/rules.md): --rules=FILE|DIR (repeatable), --rule-tags,
// --dump-pdl, --rule-trace, --rule-stats, --rule-explain=NAME,
// --rule-verify, --rule-max-iterations. Given --rules, the
// --kiln-apply-rules pass is appended to the pipeline unless it is already
// in it. --plugin=lib.so (repeatable) loads a plugin before anything else.
//
//===----------------------------------------------------------------------===//
#include "support/InputFile.h"
#include "tools/HelpOptions.h"
#include "tools/Registration.h"
#include "rules/ApplyRules.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <set>

namespace cl = llvm::cl;

static cl::OptionCategory ruleCategory("Kiln rewrite rules");
static cl::list<std::string> rulePaths("rules", cl::desc("YAML rule file or directory (repeatable)"),
                                       cl::value_desc("file|dir"), cl::cat(ruleCategory));
static cl::list<std::string> ruleTags("rule-tags",
                                      cl::desc("Enable (+tag) or disable (-tag) rule tags; "
                                               "default: exact"),
                                      cl::CommaSeparated, cl::cat(ruleCategory));
static cl::opt<bool> dumpPdl("dump-pdl", cl::desc("Print the PDL the rules compile to (stderr)"),
                             cl::cat(ruleCategory));
static cl::opt<bool> ruleTrace("rule-trace",
                               cl::desc("Print each rule application: name, location, "
                                        "op before and after (stderr)"),
                               cl::cat(ruleCategory));
static cl::opt<bool> ruleStats("rule-stats", cl::desc("Print how often each rule applied"),
                               cl::cat(ruleCategory));
static cl::opt<std::string> ruleExplain("rule-explain",
                                        cl::desc("Remark, for each op named like the rule's "
                                                 "root, why the rule does not match"),
                                        cl::value_desc("rule"), cl::cat(ruleCategory));
static cl::opt<bool> ruleVerify("rule-verify",
                                cl::desc("Verify the IR after each rule application"),
                                cl::cat(ruleCategory));
static cl::opt<int> ruleMaxIterations("rule-max-iterations",
                                      cl::desc("Greedy iterations before non-convergence is "
                                               "an error"),
                                      cl::init(10), cl::cat(ruleCategory));
static cl::opt<long long> ruleMaxRewrites("rule-max-rewrites",
                                          cl::desc("Rewrites before non-convergence is an error"),
                                          cl::init(100000), cl::cat(ruleCategory));
static cl::list<std::string> plugins("plugin", cl::desc("Load a Kiln plugin (repeatable)"),
                                     cl::value_desc("lib.so"), cl::cat(ruleCategory));

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  if (!kiln::registerKilnTool(registry, argc, argv, "kiln-opt"))
    return 1;

  std::string helpHeader = mlir::registerCLIOptions("Kiln optimizer driver\n", registry);
  // --help: Kiln's rule options, a few MLIR ones and Kiln's passes (named in
  // the overview); the rest (every MLIR pass, LLVM's options) --help-hidden.
  static cl::OptionCategory mlirCategory("MLIR options (--help-hidden: every MLIR pass and "
                                         "LLVM option)");
  kiln::showKilnOptionsFirst({&ruleCategory}, mlirCategory,
                             {"o", "pass-pipeline", "split-input-file", "verify-diagnostics",
                              "allow-unregistered-dialect", "mlir-print-ir-after-all",
                              "mlir-print-ir-before-all", "mlir-print-debuginfo", "mlir-timing",
                              "mlir-disable-threading", "show-dialects", "list-passes"});
  std::vector<std::string> kilnPasses;
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("kiln-") && mlir::PassInfo::lookup(entry.first))
      kilnPasses.push_back(entry.first.str());
  llvm::sort(kilnPasses);
  helpHeader += "\nKiln's passes (each also in --pass-pipeline):\n";
  for (const std::string &name : kilnPasses)
    helpHeader += "  --" + name + " - " +
                  mlir::PassInfo::lookup(name)->getPassDescription().str() + "\n";
  auto [inputFilename, outputFilename] = mlir::parseCLIOptions(argc, argv, helpHeader);

  // The top-level rule flags become options of every --kiln-apply-rules pass
  // of the pipeline (kiln::rules::addRuleFlags).
  kiln::ApplyRulesOptions ruleFlags;
  ruleFlags.ruleFiles.assign(rulePaths.begin(), rulePaths.end());
  ruleFlags.tags = llvm::join(ruleTags, ",");
  ruleFlags.dumpPdl = dumpPdl;
  ruleFlags.trace = ruleTrace;
  ruleFlags.stats = ruleStats;
  ruleFlags.explain = ruleExplain;
  ruleFlags.verify = ruleVerify;
  ruleFlags.maxIterations = ruleMaxIterations;
  ruleFlags.maxRewrites = ruleMaxRewrites;

  mlir::MlirOptMainConfig config = mlir::MlirOptMainConfig::createFromCLOptions();
  // Plugins' patterns and rule files run when the pipeline names
  // --kiln-apply-rules (or --rules is given), never behind the user's back.
  bool wantRules = !rulePaths.empty() || dumpPdl || !ruleExplain.empty();
  mlir::MlirOptMainConfig base = config;
  config.setPassPipelineSetupFn(
      [base, ruleFlags, wantRules](mlir::PassManager &pm) -> llvm::LogicalResult {
        if (mlir::failed(base.setupPassPipeline(pm)))
          return mlir::failure();
        if (wantRules) {
          // Append --kiln-apply-rules unless the pipeline already runs it.
          std::string pipeline;
          llvm::raw_string_ostream os(pipeline);
          pm.printAsTextualPipeline(os);
          if (pipeline.find("kiln-apply-rules") == std::string::npos)
            pm.addPass(kiln::createApplyRules());
        }
        // Tags without rules would select nothing, silently (a misspelt
        // tag too).
        if (kiln::rules::addRuleFlags(pm, ruleFlags) == 0 && !ruleFlags.tags.empty()) {
          llvm::errs() << "kiln-opt: error: --rule-tags without rules: give --rules or "
                          "--kiln-apply-rules\n";
          return mlir::failure();
        }
        return mlir::success();
      });

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      kiln::support::readInputFile(inputFilename, errorMessage, /*allowStdin=*/true);
  if (!file) {
    llvm::errs() << "kiln-opt: error: " << errorMessage << "\n";
    return 1;
  }
  if (mlir::failed(kiln::checkMlirNesting(file->getBuffer(), inputFilename)))
    return 1;
  // The output goes to a temporary beside the -o file, renamed over it only
  // on success: a failed run leaves an existing file as it was.
  bool failedRun = false;
  llvm::Error written = llvm::writeToOutput(outputFilename, [&](llvm::raw_ostream &os) {
    failedRun = mlir::failed(mlir::MlirOptMain(os, std::move(file), registry, config));
    return failedRun ? llvm::createStringError("kiln-opt failed") : llvm::Error::success();
  });
  if (written) {
    std::string message = llvm::toString(std::move(written));
    if (!failedRun)
      llvm::errs() << "kiln-opt: error: cannot write '" << outputFilename << "': " << message
                   << "\n";
    return 1;
  }
  return 0;
}
