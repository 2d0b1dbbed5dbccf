"""The eight steps of AF-Retriever, one module (or a few) per step, named by the step they serve so that a listing
reads in the method's order; kgqa.runtime.pipeline wires them and writes the trace.

- s1: the answer type;
- s2: the query: an LLM writes Cypher from the schema and it is parsed and sanitized into a plan (steps 2-3,
  s2_text2cypher), or, without an LLM, the schema-guided plan of the entities linked in the question (s2_fallback
  over s2_spans, s2_conditions and s2_type_nouns (what may name an entity and what does not), s2_linking (the links),
  s2_schema_plan (their plan) and s2_relation_meaning (which relationship a hop means));
- s4: steps 4-5, every constant a vector-index lookup with a LIMIT that expands;
- s6: rank the grounded answers (s6_graph_ranking, with s6_lexical's full-text terms);
- s7: fill up with vector and full-text search (s7_vector, s7_hybrid);
- s8: rerank with an LLM or a cross-encoder.
"""
