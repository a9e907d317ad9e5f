"""cojudge: LLM judges of code scored as measurement instruments against real contest verdicts.

litellm would fetch its model price list from GitHub at import; cojudge uses the copy bundled
with the pinned litellm instead (reproducible costs, no network at import). Set
LITELLM_LOCAL_MODEL_COST_MAP=False before starting to let litellm fetch the current list.
"""

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
