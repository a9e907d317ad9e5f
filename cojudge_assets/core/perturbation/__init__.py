"""Perturbation study: mutation operators, their verification by execution, and the judges' reactions."""
