"""What the Python-hosted engine does before it hands over to C++.

Imports torch and the plugin modules the front end named (environment
variable ACCEL_DOCTOR_IMPORT, comma-separated: `--import MODULE`), so devices
registered only from Python exist in this process, and describes the host
(interpreter, torch, plugins) for the report (environment.torch.host).
"""

import importlib
import json
import os
import platform
import sys

IMPORT_ENV = "ACCEL_DOCTOR_IMPORT"


def plugin_modules():
    """The module names to import, in order, without duplicates."""
    names = []
    for name in os.environ.get(IMPORT_ENV, "").split(","):
        name = name.strip()
        if name and name not in names:
            names.append(name)
    return names


def prepare():
    """Imports torch and the plugins; returns the host description as JSON.

    A plugin that fails to import is recorded with its error (the device it
    registers then fails to open, with that reason in the report); torch
    itself failing is fatal and raises.
    """
    import torch

    plugins = []
    for name in plugin_modules():
        entry = {"module": name, "version": "", "error": ""}
        try:
            module = importlib.import_module(name)
            entry["version"] = str(getattr(module, "__version__", ""))
        except Exception as e:  # any failure of a third-party import is data
            entry["error"] = "{}: {}".format(type(e).__name__, e)
        plugins.append(entry)
    host = {
        "kind": "python",
        "python_executable": sys.executable,
        "python_version": platform.python_version(),
        "torch_python_version": str(torch.__version__),
        "plugins": plugins,
    }
    return json.dumps(host)


def worker_argv():
    """How the engine starts its workers: this interpreter, our worker module."""
    return [sys.executable, "-m", "accel_doctor.worker"]
