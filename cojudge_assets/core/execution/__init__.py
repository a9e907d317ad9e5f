"""Execution: the sandbox untrusted code runs in (bubblewrap, cgroups, the native runner) and the contest judge that
compiles and runs programs on a problem's tests.
"""
