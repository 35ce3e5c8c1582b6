// kiln-opt --plugin: the example plugin adds a native constraint used by its
// YAML rule, a C++ pattern and a pass; broken plugins are refused clearly.
// RUN: kiln-opt --plugin=%kiln_obj/lib/libKilnExamplePlugin.so %s --kiln-apply-rules --rule-stats 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// RUN: kiln-opt --plugin %kiln_obj/lib/libKilnExamplePlugin.so %s --example-count-ops -o %t.out 2>&1 | FileCheck %s --check-prefix=PASS
// RUN: FileCheck %s --check-prefix=KEEP < %t.out
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginBadVersion.so %s 2>&1 | FileCheck %s --check-prefix=VERSION
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginNoEntry.so %s 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginFailsToRegister.so %s 2>&1 | FileCheck %s --check-prefix=REGISTER
// RUN: not kiln-opt --plugin=%t.missing.so %s 2>&1 | FileCheck %s --check-prefix=DLOPEN
// RUN: kiln-opt --plugin=%kiln_obj/lib/libKilnExamplePlugin.so --plugin=%kiln_obj/lib/libKilnExamplePlugin.so %s --kiln-apply-rules | FileCheck %s
// The pass option loads a plugin for that pass alone (what kiln.jit's
// plugins= uses): its native, pattern and rule file apply as with --plugin.
// RUN: kiln-opt %s --kiln-apply-rules="plugins=%kiln_obj/lib/libKilnExamplePlugin.so" | FileCheck %s
// A copy of a loaded plugin at another path is refused (its passes,
// registered twice, had made LLVM abort).
// RUN: cp %kiln_obj/lib/libKilnExamplePlugin.so %t.copy.so
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnExamplePlugin.so --plugin=%t.copy.so %s 2>&1 | FileCheck %s --check-prefix=COPY
// COPY: kiln-opt: error: plugin 'example' is already loaded from '{{.*}}libKilnExamplePlugin.so'; another copy at '{{.*}}.copy.so' is not loaded

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[P:.*]] = lax.integer_pow %arg0 y = 2
// CHECK-NEXT: return %[[P]]
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = lax.neg %x : tensor<4xf32>
  %1 = lax.integer_pow %0 y = 2 : tensor<4xf32>
  %2 = lax.rev %1 dims = [0] : tensor<4xf32>
  %3 = lax.rev %2 dims = [0] : tensor<4xf32>
  return %3 : tensor<4xf32>
}

// STATS: even-power-of-neg: 1
// STATS: plugin-rev-rev: 1
// PASS: remark: example plugin: 7 ops
// Without --kiln-apply-rules the plugin's patterns do not run.
// KEEP: lax.neg
// KEEP: lax.rev
// KEEP: lax.rev
// RUN: kiln-opt --plugin=%kiln_obj/lib/libKilnExamplePlugin.so %s --kiln-apply-rules --rule-trace -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRACE
// TRACE-DAG: rule-trace: 'plugin-rev-rev' (C++ pattern) at {{.*}}plugins.mlir:28:8
// TRACE-DAG: rule-trace: 'even-power-of-neg' at {{.*}}plugins.mlir:26:8
// VERSION: kiln-opt: error: plugin 'bad-version' was built for Kiln plugin API version 42, but this kiln-opt has version 1
// ENTRY: kiln-opt: error: plugin '{{.*}}libKilnTestPluginNoEntry.so' has no entry point: it must export extern "C" KilnPluginInfo kilnGetPluginInfo()
// REGISTER: kiln-opt: error: plugin 'fails' failed to register: the frobnicator is not configured
// DLOPEN: kiln-opt: error: cannot load plugin '{{.*}}missing.so': {{.*}}cannot open shared object file
// A plugin that throws, and a data symbol named like the entry point: refused, no crash.
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginThrows.so %s 2>&1 | FileCheck %s --check-prefix=THROWS
// RUN: not kiln-opt --plugin=%kiln_obj/lib/libKilnTestPluginDataEntry.so %s 2>&1 | FileCheck %s --check-prefix=DATA
// THROWS: kiln-opt: error: plugin 'throws' failed to register: it threw an exception: the frobnicator exploded
// DATA: kiln-opt: error: plugin '{{.*}}libKilnTestPluginDataEntry.so' has no entry point: its kilnGetPluginInfo is not a function
// A plugin built for another architecture (the example's ELF header marked
// AArch64): glibc's dlopen says "No such file"; the message says what it is.
// RUN: %python -c "import sys; b = bytearray(open(sys.argv[1], 'rb').read()); b[18:20] = (183).to_bytes(2, 'little'); open(sys.argv[2], 'wb').write(b)" %kiln_obj/lib/libKilnExamplePlugin.so %t.aarch64.so
// RUN: not kiln-opt --plugin=%t.aarch64.so %s 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: kiln-opt: error: cannot load plugin '{{.*}}.aarch64.so': it is built for aarch64, and this process runs on x86_64
