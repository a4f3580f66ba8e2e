"""accel-doctor's torch engine inside your own Python environment.

  python -m accel_doctor ARGS          the accel-doctor front end, using this
                                       interpreter's torch as its engine
  python -m accel_doctor.engine serve  the engine protocol (the front end runs it)
  python -m accel_doctor.worker        the worker protocol (the engine runs it)

Importing this package does not import torch (the front end probes for it
with `import accel_doctor` and must stay quick).
"""

__version__ = "0.1.0"
