"""Tiny models for the migration-toolkit tests, each with a factory for `model.py:build`.

`build_mlp` matches on every device (ops the simulator runs exactly); `build_running`
sums along the sequence with `cumsum`, the op the tests give a drifting sim kernel;
`build_tokens` takes token ids (an embedding) so that --input-shape BxS:int64 is exercised;
`build_positions` uses an op the simulator refuses.
"""

from __future__ import annotations

import torch
import torch.nn as nn


class TokenMLP(nn.Module):
    """Float input batch × seq × 8."""

    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 16)
        self.down = nn.Linear(16, 8)

    def forward(self, x):
        return self.down(torch.relu(self.up(x)))


class Running(nn.Module):
    """A running sum over the sequence: its error grows with the length when cumsum drifts."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        return torch.cumsum(self.proj(x), dim=1)


class Tokens(nn.Module):
    """Token ids → embedding → linear; a tuple output (logits, hidden)."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.head = nn.Linear(8, 50)

    def forward(self, ids):
        hidden = self.embed(ids)
        return self.head(hidden), hidden


def build_mlp():
    return TokenMLP()


def build_running():
    return Running()


def build_tokens():
    return Tokens()


def factory(name: str) -> str:
    """`path/to/models.py:build_NAME`, as the CLI takes it."""
    return f"{__file__}:build_{name}"


class Positions(nn.Module):
    """Uses aten::nonzero, which the simulator refuses (it raises on sim)."""

    def forward(self, x):
        return (x > 0).nonzero()


def build_positions():
    return Positions()
