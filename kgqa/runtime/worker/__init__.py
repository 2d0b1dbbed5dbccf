"""The background worker that keeps a data directory's store and models warm between commands, and its client."""
