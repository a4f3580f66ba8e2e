"""`python -m accel_doctor.worker`: one worker job (docs/architecture.md §3).

The Python-hosted engine starts its workers with this module instead of
`accel-doctor-torch __worker`; plugins are imported again here, since every
worker is a fresh process.
"""

import sys


def main():
    from accel_doctor import _host
    host = _host.prepare()
    from accel_doctor import _engine
    return _engine.worker(host)


if __name__ == "__main__":
    sys.exit(main())
