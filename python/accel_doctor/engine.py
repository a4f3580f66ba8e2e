"""`python -m accel_doctor.engine serve`: one engine-protocol request.

The front end (accel-doctor --python PATH, or its fallback when no native
engine is found) runs this in place of `accel-doctor-torch serve`; the
protocol is the same (docs/architecture.md §2).
"""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv != ["serve"]:
        sys.stderr.write("accel_doctor.engine is the torch engine of accel-doctor: the front end runs it.\n"
                         "usage: python -m accel_doctor.engine serve\n")
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    from accel_doctor import _host
    host = _host.prepare()
    from accel_doctor import _engine
    return _engine.serve(host, _host.worker_argv())


if __name__ == "__main__":
    sys.exit(main())
