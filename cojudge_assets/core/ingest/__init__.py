"""Ingestion: contest corpora (saved pages, ProgSnap2, CodeNet, ICE-Score, Kattis problem packages) read into the
attempts, problems and participant-context tables, with quarantine, scrubbing and the label audit.
"""
