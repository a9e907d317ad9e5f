"""Report: the study report's content (sections built from the tables), its figures and its HTML/Markdown rendering."""
