"""Builds accel_doctor._engine (and ships the accel-doctor front end) with CMake.

setuptools calls build_ext; this one configures the repository's CMake project
with ACCEL_PYTHON_MODULE=ON for the interpreter running pip, builds the
extension module and the torch-free front end, and copies both (and kb/) into
the package. Environment:
  ACCEL_DOCTOR_BUILD_DIR  CMake build folder to use (default build-python/cmake).
                          Pointing it at an existing build tree of the same torch
                          reuses its objects: only the module's file compiles; a
                          tree that already builds the module for this Python's
                          ABI (CI's build/, ACCEL_PYTHON_MODULE=AUTO) is only
                          built, not reconfigured.
  CMAKE_ARGS              extra CMake arguments (split on spaces).
  CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default: the CPU count).
  ACCEL_DOCTOR_KEEP_DEBUG  keep the debug sections in the installed copies
                          (stripped with strip --strip-debug otherwise).
"""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


def _torch_cmake_args():
    """The interpreter's torch, so CMake links the torch this Python imports."""
    try:
        import torch  # noqa: F401
    except Exception as e:  # the message a user sees from pip
        raise SystemExit(
            "accel-doctor: this Python has no working torch ({}): install torch first "
            "(https://pytorch.org/get-started/locally/), then pip install --no-build-isolation .".format(e))
    args = []
    prefix = Path(torch.utils.cmake_prefix_path)
    if (prefix / "Torch" / "TorchConfig.cmake").exists():
        args.append("-DTorch_DIR={}".format(prefix / "Torch"))
    return args


def _pybind11_args():
    try:
        import pybind11
        return ["-Dpybind11_DIR={}".format(pybind11.get_cmake_dir())]
    except ImportError:
        return []  # a system pybind11 (Debian: pybind11-dev) is found by CMake itself


def _module_suffix():
    return sysconfig.get_config_var("EXT_SUFFIX") or (".pyd" if os.name == "nt" else ".so")


def _reusable(build_dir):
    """A configured build tree that already builds the module for this
    interpreter's ABI (the same EXT_SUFFIX): only build, do not reconfigure
    it (CI's build/, where the tests run from the same tree)."""
    if not (build_dir / "CMakeCache.txt").exists() or os.environ.get("CMAKE_ARGS"):
        return False
    return any(p.name == "_engine" + _module_suffix() for p in build_dir.glob("_engine*"))


def _strip_debug(*files):
    """Drops the debug sections from the package's copies (87 MB -> 3.4 MB for
    the module of a RelWithDebInfo build): the symbol table stays, so crash
    backtraces still name functions. ACCEL_DOCTOR_KEEP_DEBUG=1 keeps them."""
    strip = shutil.which("strip")
    if os.environ.get("ACCEL_DOCTOR_KEEP_DEBUG") or not strip or os.name == "nt" or sys.platform == "darwin":
        return
    for f in files:
        subprocess.run([strip, "--strip-debug", str(f)], check=False)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = Path(os.environ.get("ACCEL_DOCTOR_BUILD_DIR") or ROOT / "build-python" / "cmake")
        build_dir = build_dir.resolve()
        build_dir.mkdir(parents=True, exist_ok=True)
        if not _reusable(build_dir):
            cfg = ["cmake", "-S", str(ROOT), "-B", str(build_dir),
                   "-DACCEL_PYTHON_MODULE=ON",
                   "-DPython_EXECUTABLE={}".format(sys.executable),
                   "-DACCEL_PYTHON={}".format(sys.executable)]
            if not (build_dir / "CMakeCache.txt").exists():
                cfg += ["-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DACCEL_BUILD_TESTS=OFF"]
                if shutil.which("ninja"):
                    cfg += ["-G", "Ninja"]
                cfg += _torch_cmake_args()
            cfg += _pybind11_args()
            cfg += os.environ.get("CMAKE_ARGS", "").split()
            subprocess.run(cfg, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
        subprocess.run(["cmake", "--build", str(build_dir), "-j", jobs,
                        "--target", "accel_doctor_engine", "accel-doctor"], check=True)

        module = build_dir / ("_engine" + _module_suffix())
        if not module.is_file():
            built = ", ".join(p.name for p in build_dir.glob("_engine*")) or "none"
            raise SystemExit("accel-doctor: CMake built no {} in {} (found: {}): the build tree is "
                             "configured for another Python".format(module.name, build_dir, built))
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, dest)
        # The front end and its knowledge base, beside the module: `python -m
        # accel_doctor` runs this front end (accel_doctor/__main__.py).
        exe = "accel-doctor.exe" if os.name == "nt" else "accel-doctor"
        bin_dir = dest.parent / "bin"
        bin_dir.mkdir(exist_ok=True)
        shutil.copy2(build_dir / exe, bin_dir / exe)
        _strip_debug(dest, bin_dir / exe)
        if (bin_dir / "kb").exists():
            shutil.rmtree(bin_dir / "kb")
        shutil.copytree(ROOT / "kb", bin_dir / "kb")


setup(ext_modules=[CMakeExtension("accel_doctor._engine")], cmdclass={"build_ext": CMakeBuild})
