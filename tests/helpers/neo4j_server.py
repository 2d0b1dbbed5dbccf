"""The Neo4j the end-to-end tests run against where Docker does: the pinned image (as docker/compose.yaml) and why
Docker cannot be used."""

from __future__ import annotations

IMAGE = "neo4j:2025.05.0-community"


def docker_reason() -> str | None:
    try:
        import docker

        docker.from_env().ping()
    except Exception as exc:  # any failure to reach Docker (no socket, no SDK, refused) means: skip, and say why
        return f"no Neo4j: NEO4J_URI is not set and Docker is not reachable ({type(exc).__name__})"
    return None
