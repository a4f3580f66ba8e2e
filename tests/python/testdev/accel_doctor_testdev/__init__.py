"""accel-doctor's test PrivateUse1 device (tests only; tests/python/testdev/testdev.cpp).

Importing this module loads the backend library, which registers
"privateuseone:N" devices backed by host memory, with two kernels of their
own (aten::add.Tensor, aten::mm) and a CPU fallback for every other op that
warns the way torch-directml does. The module offers torch-directml's
device API, so accel-doctor's Python engine treats it as it treats
torch_directml:

    device(index=0) -> torch.device   device_count() -> int   device_name(index) -> str

One more op, aten::tanh, is implemented here in Python (torch.library) and
announces its CPU fallback with a Python warning (warnings.warn), as a plugin
written in Python would: the engine must see that one too.

The library is found through ACCEL_DOCTOR_TESTDEV_LIB (the build sets it
for the tests), else beside this file.
"""

import ctypes
import os
import warnings

import torch

__version__ = "0.1.0"

# What accel-doctor's Python engine reads about a plugin (python/accel_doctor/_host.py):
# the backend's name and that it announces every CPU fallback with a warning.
accel_doctor_plugin = {"backend": "testdev", "announces_cpu_fallback": True}


def _library_path():
    path = os.environ.get("ACCEL_DOCTOR_TESTDEV_LIB")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    for name in ("libaccel_doctor_testdev.so", "accel_doctor_testdev.dll", "libaccel_doctor_testdev.dylib"):
        if os.path.isfile(os.path.join(here, name)):
            return os.path.join(here, name)
    raise ImportError("accel_doctor_testdev: no backend library: set ACCEL_DOCTOR_TESTDEV_LIB "
                      "(the build makes libaccel_doctor_testdev.so)")


_PATH = _library_path()
torch.ops.load_library(_PATH)  # registers the device, its kernels and the fallback
_LIB = ctypes.CDLL(_PATH)
_LIB.accel_doctor_testdev_native_ops.restype = ctypes.c_char_p

NATIVE_OPS = tuple(_LIB.accel_doctor_testdev_native_ops().decode().split(","))

FALLBACK_WARNING = ("The operator '{}' is not currently supported on the AccelDoctorTestDevice backend and will "
                    "fall back to run on the CPU. This may have performance implications.")


def _tanh(x):
    warnings.warn(FALLBACK_WARNING.format("aten::tanh"))
    # The output through the dispatcher (torch.ops), not a Python factory or
    # .to(device): those lazily initialise the device type from Python, which
    # torch 2.x does for PrivateUse1 through a torch.<backend> module this
    # test backend does not have.
    out = torch.ops.aten.empty_like.default(x)
    out.copy_(torch.tanh(x.cpu()))
    return out


_PY_LIB = torch.library.Library("aten", "IMPL", "PrivateUse1")
_PY_LIB.impl("tanh", _tanh)


def device_count():
    return int(_LIB.accel_doctor_testdev_device_count())


def device(index=0):
    return torch.device("privateuseone", index)


def device_name(index=0):
    if not 0 <= index < device_count():
        raise IndexError("accel_doctor_testdev: no device {}".format(index))
    return "accel-doctor test device {} (host memory)".format(index)
