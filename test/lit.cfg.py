# -*- Python -*-
# lit configuration of the neuronc test suite.

import os
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "NEURONC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "bench",
                   "numpy", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.neuronc_obj_root, "test")

# FileCheck strictness: variables scoped per CHECK-LABEL, no unused prefixes.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope --allow-unused-prefixes=false"

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()

# Our tools first, then LLVM's FileCheck/not/count/split-file.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.neuronc_tools_dir, append_path=True)
config.environment["PATH"] = os.pathsep.join(
    [config.neuronc_tools_dir, config.llvm_tools_dir, config.environment["PATH"]])

# neuronc's compile cache goes to the build tree, never the user's ~/.cache.
config.environment["XDG_CACHE_HOME"] = os.path.join(config.test_exec_root, "cache")

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%neuronc_src", config.neuronc_src_root))
config.substitutions.append(("%neuronc_bin", config.neuronc_tools_dir))
config.substitutions.append(("%neuronc_obj", config.neuronc_obj_root))
# Upstream MLIR's own tools: the independent reference for imported models.
config.substitutions.append(("%mlir_opt", os.path.join(config.llvm_tools_dir, "mlir-opt")))
config.substitutions.append(("%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner")))
config.substitutions.append(("%mlir_lib_dir",
                             os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")))

def python_feature(feature, modules, what, packages):
    """Adds `feature` when the tests' Python imports `modules`; else warns that
    the tests saying `REQUIRES: feature` are UNSUPPORTED (visibly)."""
    try:
        subprocess.run([config.python_executable, "-c", "import " + modules], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        config.available_features.add(feature)
    except (OSError, subprocess.CalledProcessError):
        lit_config.warning("%s is not importable by %s: %s will be UNSUPPORTED (install %s)" %
                           (modules, config.python_executable, what, packages))


# numpy is the independent oracle for the interpreter; Debian's python3-onnx
# writes the ONNX import tests' models; python3-torch (and torchvision) drive
# neuronc-torch's tests.
python_feature("numpy", "numpy", "numpy oracle tests", "python3-numpy")
python_feature("onnx", "onnx", "ONNX import tests", "python3-onnx")
python_feature("torch", "torch, torchvision", "neuronc-torch tests",
               "python3-torch python3-torchvision")

# Debian's Chromium renders the HTML profile report headless; the report test
# says `REQUIRES: chromium` (scripts/install-deps.sh installs it).
chromium = "/usr/bin/chromium"
if os.access(chromium, os.X_OK):
    config.available_features.add("chromium")
    config.substitutions.append((
        "%chromium",
        chromium + " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run"
        " --disable-background-networking --disable-component-update --disable-sync"
        " --user-data-dir=%t.chromium"))
else:
    lit_config.warning("chromium is not installed: the HTML report test is UNSUPPORTED "
                       "(scripts/install-deps.sh installs it)")
