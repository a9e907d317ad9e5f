"""Dynamics: how co-creation unfolds over successive attempts (success at turn, survival, churn, convergence, rank
consensus and its pooling).
"""
