# -*- Python -*-
import os
import shutil
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".jaxpr", ".yaml", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "tests")

config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%python", sys.executable))
config.substitutions.append(("%kiln_lib", config.kiln_lib_dir))
config.substitutions.append(("%kiln_obj", config.kiln_obj_root))
config.substitutions.append(("%examples", os.path.join(config.kiln_src_root, "examples")))

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
# kiln-run caches compiled code; tests keep theirs inside the build tree.
config.environment["KILN_CACHE_DIR"] = os.path.join(config.kiln_obj_root, "tests", "compile-cache")
tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = ["kiln-opt", "kiln-translate", "kiln-run", "kiln-compile", "kiln-verify-rules", "kiln-difftest", "mlir-opt", "FileCheck", "not", "split-file"]
llvm_config.add_tool_substitutions([t for t in tools], tool_dirs)

# A C compiler, for the tests that link what kiln-compile makes.
if shutil.which("cc"):
    config.available_features.add("cc")
# A sanitized build: an executable that plain `cc` links against its
# instrumented runtime lacks the sanitizer runtime.
if getattr(config, "kiln_sanitized", False):
    config.available_features.add("sanitized")

# The host CPU has FMA instructions (what --fp-contract fuses into).
try:
    with open("/proc/cpuinfo") as f:
        if " fma " in f.read():
            config.available_features.add("host-fma")
except OSError:
    pass

# GPU compile-only tests need the CUDA Toolkit's ptxas (not a GPU).
cuda_bin = os.environ.get("KILN_CUDA_BIN", "/usr/local/cuda/bin")
if os.path.exists(os.path.join(cuda_bin, "ptxas")):
    config.available_features.add("ptxas")
    config.environment["PATH"] = cuda_bin + os.pathsep + config.environment.get("PATH", "")

# GPU execution tests need a usable CUDA device (the driver loads, cuInit
# succeeds, one device or more); without one they are reported UNSUPPORTED.
def _cuda_device_present():
    try:
        import ctypes
        cuda = ctypes.CDLL("libcuda.so.1")
        count = ctypes.c_int(0)
        return cuda.cuInit(0) == 0 and cuda.cuDeviceGetCount(ctypes.byref(count)) == 0 and count.value > 0
    except OSError:
        return False

if _cuda_device_present():
    config.available_features.add("cuda-gpu")
