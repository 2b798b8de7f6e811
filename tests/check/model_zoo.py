"""Small models for the `kb check` tests, each with a factory `build_*()` and its inputs.

Written to cover what real models do: linear layers and activations (MLP), attention with
SDPA and RMSNorm (transformer block), convolutions and pooling, a recurrent layer, and
float64 with an FFT (ops that accelerators often lack).
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


class Attention(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)

    def forward(self, x):
        batch, seq, dim = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (t.view(batch, seq, self.heads, dim // self.heads).transpose(1, 2) for t in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.out(y.transpose(1, 2).reshape(batch, seq, dim))


class Block(nn.Module):
    def __init__(self, vocab: int = 64, dim: int = 32, heads: int = 4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm1 = nn.RMSNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.RMSNorm(dim)
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(2 * dim, dim)

    def forward(self, ids):
        x = self.embed(ids)
        x = x + self.attn(self.norm1(x))
        return x + self.down(F.silu(self.up(self.norm2(x))))


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        y = self.pool(torch.relu(self.bn(self.conv(x))))
        return self.head(torch.flatten(y, 1))


class Recurrent(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(6, 12, batch_first=True)
        self.head = nn.Linear(12, 2)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


class Spectral(nn.Module):
    """float64 weights and an FFT."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(16, 16, dtype=torch.float64)

    def forward(self, x):
        spectrum = torch.fft.rfft(self.proj(x), dim=-1)
        return spectrum.abs()


def build_mlp():
    return MLP()


def build_block():
    return Block()


def build_convnet():
    return ConvNet()


def build_recurrent():
    return Recurrent()


def build_spectral():
    return Spectral()


def build_broken():
    raise ValueError("the config file is missing")


# name -> (factory name, --input-shape values)
MODELS = {
    "mlp": ("build_mlp", ["2x8"]),
    "block": ("build_block", ["1x12:int64"]),
    "convnet": ("build_convnet", ["2x3x16x16"]),
    "recurrent": ("build_recurrent", ["2x5x6"]),
    "spectral": ("build_spectral", ["2x16:float64"]),
}
