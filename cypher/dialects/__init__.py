"""Per-dialect Cypher text builders."""
