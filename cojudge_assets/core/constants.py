"""Constants of the study that more than one module needs, defined once.

* ``CONDITIONS``: the participant-context conditions a judge is asked under, in
  the order tables list them (core/ingest/context.py builds each one's context):
  ``blind`` (no context), ``prefix12k`` (the first 12,000 characters of the
  participant's log) and ``nonblind`` (the log up to the attempt).
* ``BLIND``: the condition without participant context, the one mutants and
  imported benchmark items are judged under.
* ``LAYOUTS``: the corpus layouts core/ingest/corpus.py reads (here, so that the command's preflight lists them
  without importing the readers).
* ``SEED``: the default seed of every random choice that shapes a result
  (folds, bootstrap resamples, the demo corpus), so that the same inputs give
  the same tables. A run overrides it through its ``dg.Config``.

>>> CONDITIONS
('blind', 'prefix12k', 'nonblind')
>>> BLIND in CONDITIONS
True
"""

from __future__ import annotations

CONDITIONS = ("blind", "prefix12k", "nonblind")
BLIND = CONDITIONS[0]
SEED = 20260314
LAYOUTS = ("pages", "progsnap2", "codenet", "icescore")
