"""Operations: the drift report comparing a judge's answers before and after its provider changed the served model."""
