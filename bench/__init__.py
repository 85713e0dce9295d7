"""Benchmarks (not tests). Run one with ``python -m bench.NAME --help``."""

import referee  # noqa: F401  - sets gRPC's environment before anything imports grpc
