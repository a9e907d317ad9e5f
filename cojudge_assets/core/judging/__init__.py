"""Judging: what a judge is sent and must answer (records, prompts, requests), the example reader of the local
judges, and judgments imported from elsewhere.
"""
