"""Migrating off CUDA: the code audit (`audit` walks a tree, `audit_python` and
`audit_deps` read files, `audit_findings` says what a finding is, `sarif` writes them),
numerical parity between devices (`parity`), throughput (`throughput`), cost per million
tokens (`cost`) and the migration report (`report`).
"""
