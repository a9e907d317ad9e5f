"""Measurement: the judges scored as instruments against the verdicts (predictions, ranking and calibration metrics,
agreement, correlation, the measurement tables).
"""
