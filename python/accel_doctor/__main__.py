"""`python -m accel_doctor ARGS`: the accel-doctor front end with this
interpreter as its engine (`accel-doctor --python sys.executable ARGS`).

The front end is looked for beside this package (installed by pip as
package data: accel_doctor/bin/accel-doctor), then on PATH.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

FRONT_END = "accel-doctor.exe" if os.name == "nt" else "accel-doctor"


def find_front_end():
    """(path or None, places looked at)."""
    looked = []
    beside = Path(__file__).resolve().parent / "bin" / FRONT_END
    looked.append(str(beside))
    if beside.is_file():
        return str(beside), looked
    on_path = shutil.which("accel-doctor")
    looked.append("accel-doctor on PATH")
    return on_path, looked


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    front_end, looked = find_front_end()
    if front_end is None:
        sys.stderr.write(
            "accel_doctor: no accel-doctor front end found (looked at: {}).\n"
            "Install it with this package (python -m pip install --no-build-isolation . from an "
            "accel-doctor clone ships it), or build it (make build-main) and put accel-doctor on PATH.\n"
            .format("; ".join(looked)))
        return 2
    cmd = [front_end, "--python", sys.executable] + list(argv)
    if os.name == "nt":
        return subprocess.call(cmd)
    os.execv(front_end, cmd)


if __name__ == "__main__":
    sys.exit(main())
