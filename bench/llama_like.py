"""A Llama-3-8B-shaped decoder (32 layers, 4096 wide, grouped-query attention, SwiGLU,
RMSNorm, rotary embeddings), written for `bench/check_8b.py`. `build()` is a factory for
`kb check bench/llama_like.py:build --input-shape 1x128:int64`; built on the meta device
it needs no weight memory."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F

DIM, LAYERS, HEADS, KV_HEADS, FFN, VOCAB = 4096, 32, 32, 8, 14336, 128256


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    x1, x2 = x[..., :half], x[..., half:]
    return x * cos + torch.cat((-x2, x1), dim=-1) * sin


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = DIM // HEADS
        self.q_proj = nn.Linear(DIM, HEADS * self.head_dim, bias=False)
        self.k_proj = nn.Linear(DIM, KV_HEADS * self.head_dim, bias=False)
        self.v_proj = nn.Linear(DIM, KV_HEADS * self.head_dim, bias=False)
        self.o_proj = nn.Linear(DIM, DIM, bias=False)

    def forward(self, x, cos, sin):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, HEADS, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, KV_HEADS, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, KV_HEADS, self.head_dim).transpose(1, 2)
        q, k = rotate(q, cos, sin), rotate(k, cos, sin)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, DIM))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(DIM, FFN, bias=False)
        self.up_proj = nn.Linear(DIM, FFN, bias=False)
        self.down_proj = nn.Linear(FFN, DIM, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = nn.RMSNorm(DIM, eps=1e-5)
        self.self_attn = Attention()
        self.post_attention_layernorm = nn.RMSNorm(DIM, eps=1e-5)
        self.mlp = MLP()

    def forward(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


class LlamaLike(nn.Module):
    def __init__(self, max_seq: int = 2048):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(DIM, eps=1e-5)
        self.lm_head = nn.Linear(DIM, VOCAB, bias=False)
        head_dim = DIM // HEADS
        inv_freq = 1.0 / (500000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        angles = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos(), persistent=False)
        self.register_buffer("sin", angles.sin(), persistent=False)

    def forward(self, ids):
        t = ids.shape[1]
        cos, sin = self.cos[:t], self.sin[:t]
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, cos, sin)
        return self.lm_head(self.norm(x))


def build():
    return LlamaLike()
