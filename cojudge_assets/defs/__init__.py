"""Asset groups, one folder each; loaded by :mod:`cojudge_assets.definitions`."""
