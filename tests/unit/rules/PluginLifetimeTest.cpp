//===- PluginLifetimeTest.cpp - plugins per rule set, a clean exit --------===//
//
// A process that applied rules and then loaded a plugin crashed in its exit
// handlers: the plugin's functions were destroyed after its code was
// unmapped. This process does the same and must exit cleanly (ctest runs
// each test as its own process; the sanitized build checks the exit under
// ASan). A plugin's native functions serve only the rule sets given it.
//
//===----------------------------------------------------------------------===//
#include "rules/PluginLoader.h"
#include "rules/RuleSet.h"

#include "dialect/LaxDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/PatternMatch.h"

#include <gtest/gtest.h>

using namespace kiln::rules;

namespace {

const char *kEvenRule = R"(
- name: even-only
  match: {root: 'lax.integer_pow(lax.neg($x)) {y = $n}'}
  where: 'is_even($n)'
  rewrite: {root: 'lax.integer_pow($x) {y = $n}'}
)";

TEST(PluginLifetime, RulesThenPluginThenExit) {
#ifndef KILN_EXAMPLE_PLUGIN_PATH
  GTEST_SKIP() << "the example plugin is not built";
#else
  mlir::MLIRContext ctx;
  ctx.loadDialect<kiln::lax::LaxDialect, mlir::func::FuncDialect>();
  {
    RuleSet rules(&ctx);
    ASSERT_TRUE(mlir::succeeded(rules.loadString(
        "- name: nn\n  match: {root: 'lax.neg(lax.neg($x))'}\n  rewrite: {root: $x}\n", "nn.yaml")));
    mlir::RewritePatternSet patterns(&ctx);
    ASSERT_TRUE(mlir::succeeded(rules.populate(patterns)));
  }
  std::string error;
  const LoadedPlugin *plugin = loadPlugin(KILN_EXAMPLE_PLUGIN_PATH, error);
  ASSERT_TRUE(plugin) << error;
  EXPECT_EQ(loadPlugin(KILN_EXAMPLE_PLUGIN_PATH, error), plugin); // once per file
  ASSERT_TRUE(plugin->natives.lookup("is_even"));
  // Its registry finds the built-ins and does not shadow them.
  EXPECT_EQ(plugin->natives.lookup("range"), NativeRegistry::global().lookup("range"));
  EXPECT_FALSE(NativeScope().lookup("is_even"));

  // A rule set without the plugin does not see its function, whatever the
  // process loaded; the message names the plugin. With it, the rule loads.
  std::string message;
  mlir::ScopedDiagnosticHandler capture(&ctx, [&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  RuleSet without(&ctx);
  EXPECT_TRUE(mlir::failed(without.loadString(kEvenRule, "even.yaml")));
  EXPECT_NE(message.find("unknown native function 'is_even' (plugin 'example'"), std::string::npos)
      << message;
  RuleSet with(&ctx, nativesOf({plugin}));
  EXPECT_TRUE(mlir::succeeded(with.loadString(kEvenRule, "even.yaml"))) << message;
#endif
}

} // namespace
