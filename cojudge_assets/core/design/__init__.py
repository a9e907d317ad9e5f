"""Design and estimation: the design split and contamination check, the findings and their robustness, estimating a
pass rate from few labels, and bias diagnostics.
"""
