"""Models for the neuronc-torch tests, built from torch.nn with random weights."""
import math

import torch
from torch import nn


class Encoder(nn.Module):
    """A two-layer transformer encoder (post-norm, GELU)."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128,
                                           dropout=0.0, activation="gelu", batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class RMSNorm(nn.Module):
    """As Hugging Face's Llama writes it."""

    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.pow(2).mean(-1, keepdim=True)
        return self.weight * (x * torch.rsqrt(variance + self.eps))


class LlamaMLP(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class LlamaBlock(nn.Module):
    """A causal decoder block written op by op the way Hugging Face's Llama is."""

    def __init__(self, dim=64, heads=4, hidden=172):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.input_layernorm = RMSNorm(dim)
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.post_attention_layernorm = RMSNorm(dim)
        self.mlp = LlamaMLP(dim, hidden)

    def forward(self, x):
        b, s, d = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, s, self.heads, self.head_dim).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.head_dim)
        mask = torch.full((s, s), float("-inf")).triu(1)
        probs = torch.softmax(scores + mask, dim=-1)
        attn = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, d)
        x = x + self.o_proj(attn)
        return x + self.mlp(self.post_attention_layernorm(x))


def TinyViT():
    """torchvision's VisionTransformer at a test size."""
    from torchvision.models.vision_transformer import VisionTransformer
    m = VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4,
                          hidden_dim=64, mlp_dim=128, num_classes=10)
    # torchvision starts the classifier at zero: random, so the output says something.
    torch.nn.init.normal_(m.heads.head.weight)
    torch.nn.init.normal_(m.heads.head.bias)
    return m
