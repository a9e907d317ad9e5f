"""Graded perturbations with score ceilings (AXIOM): rules, their verification by execution, balance, metrics."""
