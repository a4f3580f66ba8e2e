"""What the Python-hosted engine does before it hands over to C++.

Imports torch and the plugin modules the front end named (environment
variable ACCEL_DOCTOR_IMPORT, comma-separated: `--import MODULE`, and
torch_directml for `--device dml`), so devices registered only from Python
exist in this process; describes the host (interpreter, torch, plugins) for
the report (environment.torch.host) and the devices the plugins registered
(names, backend, whether the plugin announces its CPU fallbacks), which the
engine lists as privateuseone:N / xpu:N (src/engines/torch/host.hpp).

A plugin is described through torch-directml's device API when it has one
(device(i), device_count(), device_name(i)); a module may say more with an
`accel_doctor_plugin` dict ({"backend": ..., "announces_cpu_fallback": bool});
KNOWN_PLUGINS says it for the plugins we know.
"""

import importlib
import importlib.util
import json
import os
import platform
import sys
import warnings

IMPORT_ENV = "ACCEL_DOCTOR_IMPORT"
DEVICE_ENV = "ACCEL_DOCTOR_DEVICE"  # the --device request ("xpu", "dml:1"), set by the front end

# What we know of plugins that do not describe themselves. torch-directml
# warns "The operator '...' is not currently supported on the DML backend
# and will fall back to run on the CPU" for every op it sends to the CPU
# (kb/errors/torch.json op_cpu_fallback); not verified on a real DirectML
# device by this project (docs/python.md).
KNOWN_PLUGINS = {
    "torch_directml": {"backend": "dml", "announces_cpu_fallback": True},
}
IPEX = "intel_extension_for_pytorch"


def plugin_modules():
    """The module names to import, in order, without duplicates."""
    names = []
    for name in os.environ.get(IMPORT_ENV, "").split(","):
        name = name.strip()
        if name and name not in names:
            names.append(name)
    return names


def _import(name):
    """(module or None, PluginModule dict)."""
    entry = {"module": name, "version": "", "error": ""}
    try:
        module = importlib.import_module(name)
        entry["version"] = str(getattr(module, "__version__", ""))
        return module, entry
    except Exception as e:  # any failure of a third-party import is data
        entry["error"] = "{}: {}".format(type(e).__name__, e)
        return None, entry


def _wants_xpu():
    return os.environ.get(DEVICE_ENV, "").strip().lower().startswith("xpu")


def _torch_xpu_available(torch):
    xpu = getattr(torch, "xpu", None)
    try:
        return bool(xpu is not None and xpu.is_available())
    except Exception:
        return False


def describe_plugin_devices(name, module):
    """DeviceInfo dicts for the devices `module` registered (torch-directml's API)."""
    count = getattr(module, "device_count", None)
    device = getattr(module, "device", None)
    if not callable(count) or not callable(device):
        return []
    info = dict(KNOWN_PLUGINS.get(name, {}))
    info.update(getattr(module, "accel_doctor_plugin", None) or {})
    devices = []
    try:
        n = int(count())
    except Exception as e:
        return [{"id": "", "name": "", "plugin": name,
                 "not_collected": {"devices": "{}.device_count() failed: {}: {}".format(name, type(e).__name__, e)}}]
    for i in range(n):
        d = {"index": i, "type": "privateuseone", "plugin": name, "backend": info.get("backend", name),
             "not_collected": {}}
        try:
            dev = device(i)
            d["id"] = str(dev)
            d["type"] = str(getattr(dev, "type", "privateuseone"))
        except Exception as e:
            d["id"] = "privateuseone:{}".format(i)
            d["not_collected"]["id"] = "{}.device({}) failed: {}: {}".format(name, i, type(e).__name__, e)
        namer = getattr(module, "device_name", None)
        try:
            d["name"] = str(namer(i)) if callable(namer) else ""
        except Exception as e:
            d["name"] = ""
            d["not_collected"]["name"] = "{}.device_name({}) failed: {}: {}".format(name, i, type(e).__name__, e)
        if "announces_cpu_fallback" in info:
            d["announces_cpu_fallback"] = bool(info["announces_cpu_fallback"])
        if not d["not_collected"]:
            del d["not_collected"]
        devices.append(d)
    return [d for d in devices if d.get("id")]


def describe_xpu_devices(torch, plugin):
    """DeviceInfo dicts for torch.xpu's devices (torch's own XPU or Intel's extension)."""
    if not _torch_xpu_available(torch):
        return []
    devices = []
    for i in range(torch.xpu.device_count()):
        d = {"id": "xpu:{}".format(i), "index": i, "type": "xpu", "vendor": "intel", "backend": "xpu",
             "plugin": plugin}
        try:
            p = torch.xpu.get_device_properties(i)
            d["name"] = str(getattr(p, "name", ""))
            if getattr(p, "total_memory", None):
                d["total_memory_bytes"] = int(p.total_memory)
        except Exception as e:
            d["not_collected"] = {"name": "torch.xpu.get_device_properties({}) failed: {}: {}".format(
                i, type(e).__name__, e)}
        devices.append(d)
    return devices


def _forward_python_warnings():
    """Python `warnings` (a plugin written in Python) reach the running check
    as torch warnings; every occurrence, like warn-always for TORCH_WARN_ONCE."""
    from accel_doctor import _engine
    previous = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        try:
            _engine.warn("{}: {}".format(category.__name__, message))
        except Exception:
            previous(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    warnings.simplefilter("always")


def prepare():
    """Imports torch and the plugins; returns the host description as JSON.

    A plugin that fails to import is recorded with its error (the device it
    registers then fails to open, with that reason in the report); torch
    itself failing is fatal and raises.
    """
    import torch

    plugins = []
    modules = []
    for name in plugin_modules():
        module, entry = _import(name)
        plugins.append(entry)
        if module is not None:
            modules.append((name, module))
    xpu_plugin = ""  # torch's own XPU support: no plugin
    if _wants_xpu() and not _torch_xpu_available(torch) and IPEX not in plugin_modules():
        # torch without XPU support of its own: Intel's extension adds it.
        if importlib.util.find_spec(IPEX) is not None:
            module, entry = _import(IPEX)
            plugins.append(entry)
            xpu_plugin = IPEX
    elif IPEX in plugin_modules():
        xpu_plugin = IPEX
    devices = []
    for name, module in modules:
        devices.extend(describe_plugin_devices(name, module))
    devices.extend(describe_xpu_devices(torch, xpu_plugin))
    _forward_python_warnings()
    host = {
        "kind": "python",
        "python_executable": sys.executable,
        "python_version": platform.python_version(),
        "torch_python_version": str(torch.__version__),
        "plugins": plugins,
        "plugin_devices": devices,
    }
    return json.dumps(host)


def worker_argv():
    """How the engine starts its workers: this interpreter, our worker module."""
    return [sys.executable, "-m", "accel_doctor.worker"]
