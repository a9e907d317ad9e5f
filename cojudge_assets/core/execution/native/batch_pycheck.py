"""batch_pycheck: syntax-check many contest programs in one interpreter, each as its own ``python -c CHECK`` run.

usage: python -I -B batch_pycheck.py MANIFEST OUT SECONDS CHECK

MANIFEST has one line per program, "FOLDER<TAB>SOURCE" (relative to the working directory). For each line
this runs CHECK (the code the single check passes to ``python -I -B -c``) in FOLDER, as that command runs it:
the same code, compiled as "<string>", run as a fresh ``__main__`` with the program's folder as the working
directory, its warnings and an uncaught exception printed by the interpreter's own hooks to a stderr of the
same encoding. It leaves OUT/LINE.err (what the command would have printed on stderr) and then OUT/LINE.rc:
0 (the command would exit 0), 1 (it would end on that exception, exit status 1), 2 (the check raised
something that depends on this process rather than on the source: a MemoryError or RecursionError, whose
limits the batch's own memory and stack move; the program is checked alone). A program with no .rc file
was not checked: the batch ended first (its limits, a crash of the compiler), or it took more than SECONDS,
which ends the batch (SIGALRM, whose default action ends the process even inside the compiler; the program
is then checked alone, under its own limits).

Runs in the sandbox with the interpreter that checks one program; no third-party import.
"""

import builtins
import io
import linecache
import os
import signal
import sys

DETERMINISTIC = (SyntaxError, ValueError)  # what the source alone decides (ValueError: a NUL byte, before 3.12)


def check(code, err_path):
    """Run ``code`` as ``python -c`` runs it, its stderr going to ``err_path``; the .rc status."""
    linecache.clearcache()  # a warning quotes its line from main.py: this program's, not the last one's
    with open(err_path, "wb") as raw:
        stderr = io.TextIOWrapper(
            raw, encoding=sys.__stderr__.encoding, errors=sys.__stderr__.errors, newline="\n", line_buffering=True
        )
        sys.stderr = stderr
        try:
            exec(code, {"__name__": "__main__", "__builtins__": builtins})
            status = 0
        except DETERMINISTIC as exc:
            # the interpreter's hook prints the traceback from the -c code's frame down, as at exit
            exc.__traceback__ = exc.__traceback__.tb_next
            sys.excepthook(type(exc), exc, exc.__traceback__)
            status = 1
        except BaseException:  # noqa: BLE001 - a limit of this process, not the program's answer
            status = 2
        finally:
            sys.stderr = sys.__stderr__
            stderr.flush()
        stderr.detach()
    return status


def main(argv):
    if len(argv) != 5:
        print("usage: python -I -B batch_pycheck.py MANIFEST OUT SECONDS CHECK", file=sys.stderr)
        return 2
    manifest, out, seconds, check_source = argv[1], os.path.abspath(argv[2]), float(argv[3]), argv[4]
    code = compile(check_source, "<string>", "exec")
    root = os.getcwd()
    with open(manifest, encoding="utf-8") as lines:
        folders = [line.rstrip("\n").split("\t")[0] for line in lines if line.strip()]
    for i, folder in enumerate(folders):
        signal.setitimer(signal.ITIMER_REAL, seconds)  # no handler: the alarm ends the process
        os.chdir(os.path.join(root, folder))
        status = check(code, os.path.join(out, f"{i}.err"))
        os.chdir(root)
        signal.setitimer(signal.ITIMER_REAL, 0)
        with open(os.path.join(out, f"{i}.rc"), "w") as rc:
            rc.write(f"{status}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
