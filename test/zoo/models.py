"""The model zoo: real PyTorch models for scripts/zoo.py.

Every entry of MODELS is a `Model`: a name, a family, a builder that returns
the torch.nn.Module (the registry seeds torch with torch.manual_seed(0) before
calling it and puts the module in eval mode; random weights, nothing is
downloaded), the example inputs (shapes, dtypes and how their values are
drawn) and tags:

  small   a small-input variant (1x3x64x64 images, short sequences): the CI size
  sample  the fixed CI sample of `scripts/zoo.py --sample`: one per family,
          its smallest model (a family listed in UNSAMPLED_FAMILIES has none:
          cnn-batch8 runs the cnn family's layers at batch 8, 224², too big
          for CI; `scripts/zoo.py --family cnn-batch8` runs it)

scripts/zoo.py builds each model once, runs it eagerly on the inputs
(`Model.make_inputs`, seeded), exports it with torch.onnx.export (opset 17,
constants folded) and caches the ONNX file, the inputs and PyTorch's outputs;
then it compiles and simulates the ONNX file with neuronc and neuron-run for
every cell asked for and compares.

Adding a model
--------------
1. Write a builder: a function of no arguments returning an nn.Module whose
   forward takes the inputs positionally and returns a tensor or a tuple of
   tensors (wrap a module that returns a dict or a NamedTuple; see
   `_SegOut`). Do not seed inside it; the registry does. Randomize any
   parameter the library initializes to zero when it would make the output
   degenerate (torchvision's ViT head is zero: `_vit`).
2. Append `Model(name, family, builder, [Input(...), ...], tags=...)` below,
   in its family's section. Names are unique, lower case, [a-z0-9_]; they
   name the cache directories (scripts/zoo.py --out DIR/NAME/).
   Input kinds: "normal" (standard normal float32), "ids" (int64 drawn from
   [0, high): token ids below the vocabulary), "keepmask" (int64 1 = attend,
   0 = padding at the end of rows: Hugging Face's attention_mask), "padmask"
   (bool True = padding: torch.nn's key_padding_mask), "causal" (bool [L, L],
   True above the diagonal: torch.nn's attn_mask), "tokentype" (int64 0 then
   1: BERT's token_type_ids).
   Models of the families in CALIBRATED_FAMILIES (cnn, vision-transformer,
   segmentation, generative) get their BatchNorm statistics from one
   training-mode pass over other seeded inputs (`calibrate_batchnorm`, as
   training would leave them; torchvision's initial statistics let deep
   CNNs' activations vanish, so the comparison would check nothing);
   `calibrate_bn=True/False` overrides the family's default.
3. Keep compile + simulation of the model within a minute or two at its size;
   add a `small` variant for CI when the real size is slower. Mark at most
   one model per family `sample` (its smallest).
4. Check the export: `scripts/zoo.py --models NAME --export-only` builds,
   runs and exports it and says which ONNX ops it holds; it refuses custom
   or ATen ops (a torch fast path, for instance). Then
   `scripts/zoo.py --models NAME` compiles, runs and compares it.

The exporter runs with autograd enabled (the registry keeps parameters
requiring grad), so torch.nn's transformer fast paths
(`_transformer_encoder_layer_fwd`, `_native_multi_head_attention`), which
torch 1.13 takes under torch.no_grad() in eval mode and which do not export,
are not what is traced: the exported graph is the math.

`python3 test/zoo/models.py` lists the registry.
"""
import math
from dataclasses import dataclass, field
from typing import Callable, FrozenSet, List, Optional, Tuple

import numpy as np

# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------

KINDS = ("normal", "ids", "keepmask", "padmask", "causal", "tokentype")


@dataclass(frozen=True)
class Input:
    """One graph input: name, shape, how its values are drawn."""
    name: str
    shape: Tuple[int, ...]
    kind: str = "normal"
    high: int = 0  # ids: values in [0, high)

    @property
    def dtype(self):
        return {"normal": "float32", "ids": "int64", "keepmask": "int64", "padmask": "bool",
                "causal": "bool", "tokentype": "int64"}[self.kind]

    def describe(self):
        short = {"float32": "", "int64": " i64", "bool": " bool"}[self.dtype]
        return "x".join(map(str, self.shape)) + short

    def make(self, rng):
        shape = tuple(self.shape)
        if self.kind == "normal":
            return rng.standard_normal(shape).astype(np.float32)
        if self.kind == "ids":
            return rng.integers(0, self.high, shape).astype(np.int64)
        if self.kind in ("keepmask", "padmask"):
            # [B, S]: row b pads its last (b + 1) * S / (4 B) positions (at most a quarter).
            b, s = shape
            pad = np.zeros(shape, dtype=bool)
            for i in range(b):
                n = ((i + 1) * s) // (4 * b)
                if n:
                    pad[i, s - n:] = True
            return pad if self.kind == "padmask" else (~pad).astype(np.int64)
        if self.kind == "causal":
            n, m = shape
            return np.triu(np.ones((n, m), dtype=bool), 1)
        if self.kind == "tokentype":
            t = np.zeros(shape, dtype=np.int64)
            t[..., shape[-1] // 2:] = 1
            return t
        raise ValueError("input %s: unknown kind %r" % (self.name, self.kind))


@dataclass
class Model:
    name: str
    family: str
    build: Callable
    inputs: List[Input]
    tags: FrozenSet[str] = field(default_factory=frozenset)
    note: str = ""
    rtol: Optional[dict] = None  # per-dtype override of the tolerance, {"f32": 1e-3}
    calibrate_bn: bool = False

    def instantiate(self):
        """The module: seeded, in eval mode, parameters left requiring grad."""
        import torch
        torch.manual_seed(0)
        m = self.build()
        if self.calibrate_bn:
            calibrate_batchnorm(m, self.inputs)
        m.eval()
        return m

    def make_inputs(self, seed=0):
        rng = np.random.default_rng(seed)
        return [i.make(rng) for i in self.inputs]

    def describe_inputs(self):
        return ", ".join(i.describe() for i in self.inputs)


def calibrate_batchnorm(model, inputs, seed=1, batch=4):
    """Sets every BatchNorm's running statistics to those of one forward pass in training mode
    over seeded standard-normal inputs (of at least `batch` images), as training would leave
    them. With torchvision's initialization the statistics stay at mean 0, variance 1, and the
    activations of deep CNNs vanish layer by layer: GoogLeNet's and ShuffleNet's logits are
    their classifier's bias to float precision, MobileNetV2's and EfficientNet's are 1e-9 to
    1e-14, so a comparison with PyTorch would not check the convolutions."""
    import torch
    from torch import nn
    bns = [m for m in model.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    if not bns or any(i.kind != "normal" for i in inputs):
        return
    rng = np.random.default_rng(seed)
    xs = [torch.from_numpy(rng.standard_normal((max(i.shape[0], batch),) + tuple(i.shape[1:]))
                           .astype(np.float32)) for i in inputs]
    for m in bns:
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: exactly this pass's statistics
    model.train()
    with torch.no_grad():
        model(*xs)
    for m in bns:
        m.momentum = 0.1
    model.eval()


class bf16_operands:
    """A context in which PyTorch rounds the operands of its matmuls and convolutions to
    bfloat16 and computes in float32, as `neuronc --auto-cast=matmult` does (bf16 matmul
    operands, f32 accumulation): the reference for how much of a bf16 cell's error is the
    arithmetic's own. Covers F.linear, F.conv1d/2d, F.conv_transpose1d/2d, torch.matmul
    (and @), mm, bmm, addmm, baddbmm, einsum; not the recurrent cells (_VF.lstm, ...)."""

    def __enter__(self):
        import torch
        import torch.nn.functional as F

        def r(t):
            return t.to(torch.bfloat16).to(t.dtype) if torch.is_tensor(t) and \
                t.is_floating_point() else t

        def two(f):
            return lambda a, b, *args, **kw: f(r(a), r(b), *args, **kw)

        def last_two(f):
            return lambda c, a, b, *args, **kw: f(c, r(a), r(b), *args, **kw)

        self.saved = []
        for mod, name, wrap in ((F, "linear", two), (F, "conv1d", two), (F, "conv2d", two),
                                (F, "conv_transpose1d", two), (F, "conv_transpose2d", two),
                                (torch, "matmul", two), (torch, "mm", two), (torch, "bmm", two),
                                (torch.Tensor, "__matmul__", two), (torch, "addmm", last_two),
                                (torch, "baddbmm", last_two)):
            f = getattr(mod, name)
            self.saved.append((mod, name, f))
            setattr(mod, name, wrap(f))
        einsum = torch.einsum
        self.saved.append((torch, "einsum", einsum))
        torch.einsum = lambda eq, *ops: einsum(eq, *[r(o) for o in (
            ops[0] if len(ops) == 1 and isinstance(ops[0], (list, tuple)) else ops)])
        return self

    def __exit__(self, *exc):
        for mod, name, f in reversed(self.saved):
            setattr(mod, name, f)
        return False


MODELS: List[Model] = []
# Families whose BatchNorm statistics are calibrated (calibrate_batchnorm).
CALIBRATED_FAMILIES = ("cnn", "cnn-batch8", "vision-transformer", "segmentation", "generative")


def add(name, family, build, inputs, tags=(), note="", rtol=None, calibrate_bn=None):
    if any(m.name == name for m in MODELS):
        raise ValueError("model %s registered twice" % name)
    inputs = [i if isinstance(i, Input) else Input("x", tuple(i)) for i in inputs]
    if calibrate_bn is None:
        calibrate_bn = family in CALIBRATED_FAMILIES
    MODELS.append(Model(name, family, build, inputs, frozenset(tags), note, rtol, calibrate_bn))


def get(name):
    for m in MODELS:
        if m.name == name:
            return m
    raise KeyError(name)


def families():
    seen = []
    for m in MODELS:
        if m.family not in seen:
            seen.append(m.family)
    return seen


def img(b=1, s=224):
    return [Input("x", (b, 3, s, s))]


# ---------------------------------------------------------------------------
# Helpers shared by the builders
# ---------------------------------------------------------------------------


def _nn():
    import torch
    from torch import nn
    return torch, nn


def _tv(name, **kw):
    """A torchvision model with random weights (no download)."""
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kw)
    build.__name__ = "tv_" + name
    return build


def _vgg11_small_head():
    import torchvision
    from torch import nn
    m = torchvision.models.vgg11(weights=None)
    # torchvision's head is 25088 -> 4096 -> 4096 -> 1000 (120 M parameters): a small one.
    m.classifier = nn.Sequential(nn.Linear(512 * 7 * 7, 256), nn.ReLU(True), nn.Linear(256, 1000))
    return m


def _vit(**kw):
    def build():
        from torch import nn
        from torchvision.models.vision_transformer import VisionTransformer
        if kw:
            m = VisionTransformer(**kw)
        else:
            import torchvision
            m = torchvision.models.vit_b_16(weights=None)
        # torchvision starts the classifier at zero: the logits would all be 0.
        nn.init.normal_(m.heads.head.weight, std=0.02)
        nn.init.normal_(m.heads.head.bias, std=0.02)
        return m
    return build


def _swin_small():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=48, depths=[2, 2], num_heads=[3, 6],
                           window_size=[4, 4], num_classes=10)


def _seg(name, **kw):
    """A torchvision segmentation model returning its 'out' tensor."""
    def build():
        import torchvision
        return _SegOut(getattr(torchvision.models.segmentation, name)(
            weights=None, weights_backbone=None, **kw))
    return build


def _SegOut(model):
    torch, nn = _nn()

    class SegOut(nn.Module):
        def __init__(self, m):
            super().__init__()
            self.model = m

        def forward(self, x):
            return self.model(x)["out"]
    return SegOut(model)


# ---------------------------------------------------------------------------
# A small UNet: ConvTranspose2d (stride 2) and nn.Upsample decoders, torch.cat skips
# ---------------------------------------------------------------------------


def _unet(base=16, depth=3, classes=2):
    torch, nn = _nn()

    def double_conv(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True),
                             nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True))

    class Up(nn.Module):
        """Doubles the resolution (a stride-2 transposed convolution, or bilinear upsampling
        and a 1x1 convolution), concatenates the skip, two 3x3 convolutions."""

        def __init__(self, cin, cout, transposed):
            super().__init__()
            if transposed:
                self.up = nn.ConvTranspose2d(cin, cout, 2, stride=2)
            else:
                self.up = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear",
                                                    align_corners=False),
                                        nn.Conv2d(cin, cout, 1))
            self.conv = double_conv(2 * cout, cout)

        def forward(self, x, skip):
            return self.conv(torch.cat([self.up(x), skip], dim=1))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            chans = [base * 2 ** i for i in range(depth + 1)]
            self.inc = double_conv(3, chans[0])
            self.downs = nn.ModuleList(nn.Sequential(nn.MaxPool2d(2), double_conv(a, b))
                                       for a, b in zip(chans[:-1], chans[1:]))
            # The deepest up-step is transposed, then they alternate.
            self.ups = nn.ModuleList(Up(chans[i + 1], chans[i], transposed=(depth - 1 - i) % 2 == 0)
                                     for i in reversed(range(depth)))
            self.outc = nn.Conv2d(chans[0], classes, 1)

        def forward(self, x):
            skips = [self.inc(x)]
            for d in self.downs:
                skips.append(d(skips[-1]))
            h = skips.pop()
            for up in self.ups:
                h = up(h, skips.pop())
            return self.outc(h)

    return UNet()


# ---------------------------------------------------------------------------
# torch.nn attention and transformer modules
# ---------------------------------------------------------------------------


def _mha(embed, heads, mode, batch_first=True, kdim=None, vdim=None, causal_len=0):
    """nn.MultiheadAttention called as `mode` says:
    self        forward(x): attention of x with itself
    padmask     forward(x, key_padding_mask)
    causal_in   forward(x, attn_mask) (bool [L, L], True = masked)
    causal      forward(x), a float causal mask held as a buffer (a constant of the graph)
    cross       forward(q, kv, key_padding_mask)
    qkv         forward(q, k, v) (kdim/vdim may differ from embed)
    weights     forward(x) -> (output, head-averaged attention weights)"""
    torch, nn = _nn()

    class MHA(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(embed, heads, dropout=0.0, batch_first=batch_first,
                                              kdim=kdim, vdim=vdim)
            if causal_len:
                self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(
                    causal_len))

        def forward(self, *a):
            if mode == "self":
                return self.attn(a[0], a[0], a[0], need_weights=False)[0]
            if mode == "padmask":
                return self.attn(a[0], a[0], a[0], key_padding_mask=a[1], need_weights=False)[0]
            if mode == "causal_in":
                return self.attn(a[0], a[0], a[0], attn_mask=a[1], need_weights=False)[0]
            if mode == "causal":
                return self.attn(a[0], a[0], a[0], attn_mask=self.mask, need_weights=False)[0]
            if mode == "cross":
                return self.attn(a[0], a[1], a[1], key_padding_mask=a[2], need_weights=False)[0]
            if mode == "qkv":
                return self.attn(a[0], a[1], a[2], need_weights=False)[0]
            if mode == "weights":
                out, w = self.attn(a[0], a[0], a[0], need_weights=True)
                return out, w
            raise ValueError(mode)

    return MHA()


def _encoder_layer(d, heads, ff, norm_first=False, activation="relu", batch_first=True):
    def build():
        torch, nn = _nn()
        return nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, activation=activation,
                                          batch_first=batch_first, norm_first=norm_first)
    return build


def _encoder_stack_padmask(d=256, heads=8, ff=1024, layers=4):
    torch, nn = _nn()

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(d, heads, ff, dropout=0.0, batch_first=True)
            self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

        def forward(self, x, pad):
            return self.encoder(x, src_key_padding_mask=pad)

    return Enc()


def _decoder_layer(d, heads, ff, tgt_len, norm_first=False, memory_padmask=False):
    torch, nn = _nn()

    class Dec(nn.Module):
        """A decoder layer: causal self-attention (the mask a buffer), cross-attention to a
        memory of another length (optionally with a padding mask input)."""

        def __init__(self):
            super().__init__()
            self.layer = nn.TransformerDecoderLayer(d, heads, ff, dropout=0.0, batch_first=True,
                                                    norm_first=norm_first, activation="gelu")
            self.register_buffer("tgt_mask", nn.Transformer.generate_square_subsequent_mask(tgt_len))

        def forward(self, tgt, memory, *pad):
            return self.layer(tgt, memory, tgt_mask=self.tgt_mask,
                              memory_key_padding_mask=pad[0] if memory_padmask else None)

    return Dec()


def _seq2seq(d=256, heads=8, layers=2, ff=1024, tgt_len=32):
    torch, nn = _nn()

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.transformer = nn.Transformer(d, heads, layers, layers, ff, dropout=0.0)
            self.register_buffer("tgt_mask", nn.Transformer.generate_square_subsequent_mask(tgt_len))

        def forward(self, src, tgt):
            return self.transformer(src, tgt, tgt_mask=self.tgt_mask)

    return Seq2Seq()


# ---------------------------------------------------------------------------
# Language models written with plain torch ops, as Hugging Face transformers writes them
# ---------------------------------------------------------------------------


def _hf_init(module, std=0.02):
    """Hugging Face's _init_weights: normal(0, 0.02) weights, zero biases, unit norms."""
    torch, nn = _nn()
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=std)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.LayerNorm):
            nn.init.ones_(m.weight)
            nn.init.zeros_(m.bias)
    return module


def _bert(vocab=30522, hidden=768, layers=4, heads=12, inter=3072, max_pos=512):
    """BertModel (modeling_bert.py): word + position + token-type embeddings, post-LN encoder
    layers with an extended additive attention mask, erf GELU, a tanh pooler."""
    torch, nn = _nn()

    class BertEmbeddings(nn.Module):
        def __init__(self):
            super().__init__()
            self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=0)
            self.position_embeddings = nn.Embedding(max_pos, hidden)
            self.token_type_embeddings = nn.Embedding(2, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
            self.register_buffer("position_ids", torch.arange(max_pos).expand((1, -1)))

        def forward(self, input_ids, token_type_ids):
            seq_length = input_ids.size()[1]
            position_ids = self.position_ids[:, 0:seq_length]
            embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
            embeddings = embeddings + self.position_embeddings(position_ids)
            return self.LayerNorm(embeddings)

    class BertSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.num_attention_heads = heads
            self.attention_head_size = hidden // heads
            self.all_head_size = hidden
            self.query = nn.Linear(hidden, hidden)
            self.key = nn.Linear(hidden, hidden)
            self.value = nn.Linear(hidden, hidden)

        def transpose_for_scores(self, x):
            new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
            x = x.view(new_x_shape)
            return x.permute(0, 2, 1, 3)

        def forward(self, hidden_states, attention_mask):
            query_layer = self.transpose_for_scores(self.query(hidden_states))
            key_layer = self.transpose_for_scores(self.key(hidden_states))
            value_layer = self.transpose_for_scores(self.value(hidden_states))
            attention_scores = torch.matmul(query_layer, key_layer.transpose(-1, -2))
            attention_scores = attention_scores / math.sqrt(self.attention_head_size)
            attention_scores = attention_scores + attention_mask
            attention_probs = nn.functional.softmax(attention_scores, dim=-1)
            context_layer = torch.matmul(attention_probs, value_layer)
            context_layer = context_layer.permute(0, 2, 1, 3).contiguous()
            new_context_layer_shape = context_layer.size()[:-2] + (self.all_head_size,)
            return context_layer.view(new_context_layer_shape)

    class BertSelfOutput(nn.Module):
        def __init__(self, din):
            super().__init__()
            self.dense = nn.Linear(din, hidden)
            self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)

        def forward(self, hidden_states, input_tensor):
            return self.LayerNorm(self.dense(hidden_states) + input_tensor)

    class BertLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.self = BertSelfAttention()
            self.output = BertSelfOutput(hidden)
            self.intermediate = nn.Linear(hidden, inter)
            self.output2 = BertSelfOutput(inter)

        def forward(self, hidden_states, attention_mask):
            attention_output = self.output(self.self(hidden_states, attention_mask), hidden_states)
            intermediate_output = nn.functional.gelu(self.intermediate(attention_output))
            return self.output2(intermediate_output, attention_output)

    class BertModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = BertEmbeddings()
            self.layer = nn.ModuleList(BertLayer() for _ in range(layers))
            self.pooler = nn.Linear(hidden, hidden)

        def forward(self, input_ids, attention_mask, token_type_ids):
            # get_extended_attention_mask
            extended = attention_mask[:, None, None, :].to(torch.float32)
            extended = (1.0 - extended) * torch.finfo(torch.float32).min
            h = self.embeddings(input_ids, token_type_ids)
            for layer in self.layer:
                h = layer(h, extended)
            pooled = torch.tanh(self.pooler(h[:, 0]))
            return h, pooled

    return _hf_init(BertModel())


def _gelu_new(x):
    torch, _ = _nn()
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


def _gpt2(vocab=50257, n_pos=1024, hidden=768, layers=4, heads=12):
    """GPT2LMHeadModel (modeling_gpt2.py): Conv1D projections (addmm), a bool causal-mask buffer
    sliced to the sequence and applied with torch.where, gelu_new, an LM head tied to wte."""
    torch, nn = _nn()

    class Conv1D(nn.Module):
        def __init__(self, nf, nx):
            super().__init__()
            self.nf = nf
            self.weight = nn.Parameter(torch.empty(nx, nf).normal_(std=0.02))
            self.bias = nn.Parameter(torch.zeros(nf))

        def forward(self, x):
            size_out = x.size()[:-1] + (self.nf,)
            x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
            return x.view(size_out)

    class GPT2Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("bias", torch.tril(torch.ones((n_pos, n_pos), dtype=torch.bool))
                                 .view(1, 1, n_pos, n_pos))
            self.num_heads, self.head_dim, self.split_size = heads, hidden // heads, hidden
            self.c_attn = Conv1D(3 * hidden, hidden)
            self.c_proj = Conv1D(hidden, hidden)

        def _split_heads(self, tensor):
            new_shape = tensor.size()[:-1] + (self.num_heads, self.head_dim)
            return tensor.view(new_shape).permute(0, 2, 1, 3)

        def _merge_heads(self, tensor):
            tensor = tensor.permute(0, 2, 1, 3).contiguous()
            new_shape = tensor.size()[:-2] + (self.num_heads * self.head_dim,)
            return tensor.view(new_shape)

        def forward(self, hidden_states):
            query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
            query, key, value = map(self._split_heads, (query, key, value))
            attn_weights = torch.matmul(query, key.transpose(-1, -2))
            attn_weights = attn_weights / torch.full([], value.size(-1) ** 0.5,
                                                     dtype=attn_weights.dtype)
            query_length, key_length = query.size(-2), key.size(-2)
            causal_mask = self.bias[:, :, key_length - query_length:key_length, :key_length]
            mask_value = torch.full([], torch.finfo(attn_weights.dtype).min,
                                    dtype=attn_weights.dtype)
            attn_weights = torch.where(causal_mask, attn_weights, mask_value)
            attn_weights = nn.functional.softmax(attn_weights, dim=-1)
            attn_output = torch.matmul(attn_weights, value)
            return self.c_proj(self._merge_heads(attn_output))

    class GPT2Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(hidden, eps=1e-5)
            self.attn = GPT2Attention()
            self.ln_2 = nn.LayerNorm(hidden, eps=1e-5)
            self.c_fc = Conv1D(4 * hidden, hidden)
            self.c_proj = Conv1D(hidden, 4 * hidden)

        def forward(self, h):
            h = h + self.attn(self.ln_1(h))
            return h + self.c_proj(_gelu_new(self.c_fc(self.ln_2(h))))

    class GPT2LMHeadModel(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte = nn.Embedding(vocab, hidden)
            self.wpe = nn.Embedding(n_pos, hidden)
            self.h = nn.ModuleList(GPT2Block() for _ in range(layers))
            self.ln_f = nn.LayerNorm(hidden, eps=1e-5)
            self.lm_head = nn.Linear(hidden, vocab, bias=False)
            _hf_init(self)
            self.lm_head.weight = self.wte.weight  # tied

        def forward(self, input_ids):
            position_ids = torch.arange(0, input_ids.size(-1), dtype=torch.long).unsqueeze(0)
            h = self.wte(input_ids) + self.wpe(position_ids)
            for block in self.h:
                h = block(h)
            return self.lm_head(self.ln_f(h))

    return GPT2LMHeadModel()


def _llama(vocab=32000, hidden=512, layers=2, heads=8, kv_heads=2, inter=1376, max_pos=2048):
    """LlamaForCausalLM (modeling_llama.py, transformers 4.3x): RMSNorm in float32, rotary
    embeddings from cos/sin tables held as buffers and indexed by position_ids, grouped-query
    attention with repeat_kv, an additive causal mask of finfo.min, SwiGLU MLP, an untied LM
    head."""
    torch, nn = _nn()
    head_dim = hidden // heads
    n_rep = heads // kv_heads

    class LlamaRMSNorm(nn.Module):
        def __init__(self, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(hidden))
            self.variance_epsilon = eps

        def forward(self, hidden_states):
            input_dtype = hidden_states.dtype
            hidden_states = hidden_states.to(torch.float32)
            variance = hidden_states.pow(2).mean(-1, keepdim=True)
            hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
            return self.weight * hidden_states.to(input_dtype)

    class LlamaRotaryEmbedding(nn.Module):
        def __init__(self, base=10000):
            super().__init__()
            inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
            t = torch.arange(max_pos, dtype=inv_freq.dtype)
            freqs = torch.outer(t, inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            self.register_buffer("cos_cached", emb.cos(), persistent=False)
            self.register_buffer("sin_cached", emb.sin(), persistent=False)

        def forward(self, seq_len):
            return self.cos_cached[:seq_len], self.sin_cached[:seq_len]

    def rotate_half(x):
        x1 = x[..., : x.shape[-1] // 2]
        x2 = x[..., x.shape[-1] // 2:]
        return torch.cat((-x2, x1), dim=-1)

    def apply_rotary_pos_emb(q, k, cos, sin, position_ids):
        cos = cos[position_ids].unsqueeze(1)
        sin = sin[position_ids].unsqueeze(1)
        return (q * cos) + (rotate_half(q) * sin), (k * cos) + (rotate_half(k) * sin)

    def repeat_kv(hidden_states, n_rep):
        batch, num_key_value_heads, slen, hd = hidden_states.shape
        if n_rep == 1:
            return hidden_states
        hidden_states = hidden_states[:, :, None, :, :].expand(batch, num_key_value_heads, n_rep,
                                                               slen, hd)
        return hidden_states.reshape(batch, num_key_value_heads * n_rep, slen, hd)

    class LlamaAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.q_proj = nn.Linear(hidden, heads * head_dim, bias=False)
            self.k_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.v_proj = nn.Linear(hidden, kv_heads * head_dim, bias=False)
            self.o_proj = nn.Linear(heads * head_dim, hidden, bias=False)
            self.rotary_emb = LlamaRotaryEmbedding()

        def forward(self, hidden_states, attention_mask, position_ids):
            bsz, q_len, _ = hidden_states.size()
            q = self.q_proj(hidden_states).view(bsz, q_len, heads, head_dim).transpose(1, 2)
            k = self.k_proj(hidden_states).view(bsz, q_len, kv_heads, head_dim).transpose(1, 2)
            v = self.v_proj(hidden_states).view(bsz, q_len, kv_heads, head_dim).transpose(1, 2)
            cos, sin = self.rotary_emb(q_len)
            q, k = apply_rotary_pos_emb(q, k, cos, sin, position_ids)
            k = repeat_kv(k, n_rep)
            v = repeat_kv(v, n_rep)
            attn_weights = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(head_dim)
            attn_weights = attn_weights + attention_mask
            attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(q.dtype)
            attn_output = torch.matmul(attn_weights, v)
            attn_output = attn_output.transpose(1, 2).contiguous().reshape(bsz, q_len, hidden)
            return self.o_proj(attn_output)

    class LlamaMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = nn.Linear(hidden, inter, bias=False)
            self.up_proj = nn.Linear(hidden, inter, bias=False)
            self.down_proj = nn.Linear(inter, hidden, bias=False)
            self.act_fn = nn.SiLU()

        def forward(self, x):
            return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))

    class LlamaDecoderLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.self_attn = LlamaAttention()
            self.mlp = LlamaMLP()
            self.input_layernorm = LlamaRMSNorm()
            self.post_attention_layernorm = LlamaRMSNorm()

        def forward(self, hidden_states, attention_mask, position_ids):
            residual = hidden_states
            hidden_states = self.self_attn(self.input_layernorm(hidden_states), attention_mask,
                                           position_ids)
            hidden_states = residual + hidden_states
            residual = hidden_states
            return residual + self.mlp(self.post_attention_layernorm(hidden_states))

    class LlamaForCausalLM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList(LlamaDecoderLayer() for _ in range(layers))
            self.norm = LlamaRMSNorm()
            self.lm_head = nn.Linear(hidden, vocab, bias=False)

        def forward(self, input_ids):
            bsz, seq_length = input_ids.shape
            position_ids = torch.arange(0, seq_length, dtype=torch.long).unsqueeze(0)
            # _make_causal_mask
            mask = torch.full((seq_length, seq_length), torch.finfo(torch.float32).min)
            mask_cond = torch.arange(mask.size(-1))
            mask.masked_fill_(mask_cond < (mask_cond + 1).view(mask.size(-1), 1), 0)
            mask = mask[None, None, :, :].expand(bsz, 1, seq_length, seq_length)
            h = self.embed_tokens(input_ids)
            for layer in self.layers:
                h = layer(h, mask, position_ids)
            return self.lm_head(self.norm(h))

    return _hf_init(LlamaForCausalLM())


def _t5_encoder(vocab=32128, d_model=512, d_kv=64, d_ff=2048, layers=4, heads=8,
                num_buckets=32, max_distance=128):
    """T5EncoderModel (modeling_t5.py): T5LayerNorm (RMS, no mean), unscaled attention with a
    relative position bias (bucketed relative positions computed in forward, from
    torch.arange, log and where; the first layer's bias embedding shared by all layers),
    ReLU DenseReluDense, an additive attention mask."""
    torch, nn = _nn()
    inner = heads * d_kv

    class T5LayerNorm(nn.Module):
        def __init__(self, eps=1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(d_model))
            self.variance_epsilon = eps

        def forward(self, hidden_states):
            variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)
            hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)
            return self.weight * hidden_states

    def _relative_position_bucket(relative_position, bidirectional=True):
        relative_buckets = 0
        nb = num_buckets
        if bidirectional:
            nb //= 2
            relative_buckets += (relative_position > 0).to(torch.long) * nb
            relative_position = torch.abs(relative_position)
        max_exact = nb // 2
        is_small = relative_position < max_exact
        relative_position_if_large = max_exact + (
            torch.log(relative_position.float() / max_exact)
            / math.log(max_distance / max_exact)
            * (nb - max_exact)
        ).to(torch.long)
        relative_position_if_large = torch.min(
            relative_position_if_large, torch.full_like(relative_position_if_large, nb - 1))
        relative_buckets += torch.where(is_small, relative_position, relative_position_if_large)
        return relative_buckets

    class T5Attention(nn.Module):
        def __init__(self, has_relative_attention_bias):
            super().__init__()
            self.q = nn.Linear(d_model, inner, bias=False)
            self.k = nn.Linear(d_model, inner, bias=False)
            self.v = nn.Linear(d_model, inner, bias=False)
            self.o = nn.Linear(inner, d_model, bias=False)
            if has_relative_attention_bias:
                self.relative_attention_bias = nn.Embedding(num_buckets, heads)

        def compute_bias(self, query_length, key_length):
            context_position = torch.arange(query_length, dtype=torch.long)[:, None]
            memory_position = torch.arange(key_length, dtype=torch.long)[None, :]
            relative_position = memory_position - context_position
            bucket = _relative_position_bucket(relative_position, bidirectional=True)
            values = self.relative_attention_bias(bucket)
            return values.permute([2, 0, 1]).unsqueeze(0)

        def forward(self, hidden_states, mask, position_bias=None):
            batch_size, seq_length = hidden_states.shape[:2]

            def shape(states):
                return states.view(batch_size, -1, heads, d_kv).transpose(1, 2)

            query_states = shape(self.q(hidden_states))
            key_states = shape(self.k(hidden_states))
            value_states = shape(self.v(hidden_states))
            scores = torch.matmul(query_states, key_states.transpose(3, 2))
            if position_bias is None:
                position_bias = self.compute_bias(seq_length, seq_length)
                position_bias = position_bias + mask
            scores = scores + position_bias
            attn_weights = nn.functional.softmax(scores.float(), dim=-1).type_as(scores)
            attn_output = torch.matmul(attn_weights, value_states)
            attn_output = attn_output.transpose(1, 2).contiguous().view(batch_size, -1, inner)
            return self.o(attn_output), position_bias

    class T5Block(nn.Module):
        def __init__(self, first):
            super().__init__()
            self.SelfAttention = T5Attention(first)
            self.layer_norm = T5LayerNorm()
            self.ff_norm = T5LayerNorm()
            self.wi = nn.Linear(d_model, d_ff, bias=False)
            self.wo = nn.Linear(d_ff, d_model, bias=False)

        def forward(self, h, mask, position_bias):
            attn, position_bias = self.SelfAttention(self.layer_norm(h), mask, position_bias)
            h = h + attn
            h = h + self.wo(nn.functional.relu(self.wi(self.ff_norm(h))))
            return h, position_bias

    class T5Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed_tokens = nn.Embedding(vocab, d_model)
            self.block = nn.ModuleList(T5Block(i == 0) for i in range(layers))
            self.final_layer_norm = T5LayerNorm()

        def forward(self, input_ids, attention_mask):
            extended = attention_mask[:, None, None, :].to(torch.float32)
            extended = (1.0 - extended) * torch.finfo(torch.float32).min
            h = self.embed_tokens(input_ids)
            position_bias = None
            for block in self.block:
                h, position_bias = block(h, extended, position_bias)
            return self.final_layer_norm(h)

    m = T5Encoder()
    for name, p in m.named_parameters():
        if p.dim() == 2:
            nn.init.normal_(p, std=d_model ** -0.5)
    return m


# ---------------------------------------------------------------------------
# Recurrent and audio models
# ---------------------------------------------------------------------------


def _rnn(kind, input_size, hidden, layers=1, bidirectional=False):
    torch, nn = _nn()

    class RNN(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = getattr(nn, kind)(input_size, hidden, num_layers=layers, batch_first=True,
                                         bidirectional=bidirectional)

        def forward(self, x):
            return self.rnn(x)[0]

    return RNN()


def _wav2vec2_stem(dim=512, layers=((10, 5),) + ((3, 2),) * 4 + ((2, 2),) * 2, norm="group",
                   conv_bias=False, out_dim=768):
    """Wav2Vec2FeatureEncoder + Wav2Vec2FeatureProjection (modeling_wav2vec2.py): Conv1d stack
    over raw audio with GELU; feat_extract_norm "group" (wav2vec2-base: a GroupNorm with one
    group per channel after the first convolution) or "layer" (wav2vec2-large: LayerNorm over
    channels after every convolution); then LayerNorm and a linear projection."""
    torch, nn = _nn()

    class Stem(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.ModuleList()
            cin = 1
            for k, s in layers:
                self.conv.append(nn.Conv1d(cin, dim, k, stride=s, bias=conv_bias))
                cin = dim
            if norm == "group":
                self.norm0 = nn.GroupNorm(dim, dim, affine=True)
            else:
                self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in layers)
            self.layer_norm = nn.LayerNorm(dim, eps=1e-5)
            self.projection = nn.Linear(dim, out_dim)

        def forward(self, input_values):
            h = input_values[:, None]
            for i, conv in enumerate(self.conv):
                h = conv(h)
                if norm == "group" and i == 0:
                    h = self.norm0(h)
                elif norm == "layer":
                    h = self.norms[i](h.transpose(-2, -1)).transpose(-2, -1)
                h = nn.functional.gelu(h)
            h = h.transpose(1, 2)
            return self.projection(self.layer_norm(h))

    return Stem()


def _whisper_stem(n_mels=80, n_state=384, n_ctx=1500):
    """Whisper's AudioEncoder stem: two Conv1d with GELU (the second stride 2) over the log-mel
    spectrogram, then the sinusoidal positional embedding (a buffer) and a LayerNorm."""
    torch, nn = _nn()

    def sinusoids(length, channels, max_timescale=10000):
        log_timescale_increment = math.log(max_timescale) / (channels // 2 - 1)
        inv_timescales = torch.exp(-log_timescale_increment * torch.arange(channels // 2))
        scaled_time = torch.arange(length)[:, None] * inv_timescales[None, :]
        return torch.cat([torch.sin(scaled_time), torch.cos(scaled_time)], dim=1)

    class Stem(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv1d(n_mels, n_state, kernel_size=3, padding=1)
            self.conv2 = nn.Conv1d(n_state, n_state, kernel_size=3, stride=2, padding=1)
            self.register_buffer("positional_embedding", sinusoids(n_ctx, n_state))
            self.ln = nn.LayerNorm(n_state)

        def forward(self, x):
            x = nn.functional.gelu(self.conv1(x))
            x = nn.functional.gelu(self.conv2(x))
            x = x.permute(0, 2, 1)
            return self.ln(x + self.positional_embedding)

    return Stem()


def _dcgan_generator(nz=100, ngf=64, size=64):
    """The DCGAN generator (the PyTorch examples' dcgan): stride-2 ConvTranspose2d (kernel 4,
    padding 1) with BatchNorm and ReLU from a 1x1 latent to a size x size image, Tanh."""
    torch, nn = _nn()
    layers = [nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8),
              nn.ReLU(True)]
    ch, res = ngf * 8, 4
    while res * 2 < size:
        layers += [nn.ConvTranspose2d(ch, ch // 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ch // 2),
                   nn.ReLU(True)]
        ch, res = ch // 2, res * 2
    layers += [nn.ConvTranspose2d(ch, 3, 4, 2, 1, bias=False), nn.Tanh()]
    return nn.Sequential(*layers)


# ---------------------------------------------------------------------------
# The entries
# ---------------------------------------------------------------------------

S, SAMPLE = "small", "sample"

# --- cnn: torchvision classification CNNs -----------------------------------
add("resnet18_64", "cnn", _tv("resnet18"), img(1, 64), (S, SAMPLE))
add("resnet18", "cnn", _tv("resnet18"), img())
add("resnet18_b8_64", "cnn", _tv("resnet18"), img(8, 64), (S,))
add("resnet50", "cnn", _tv("resnet50"), img())
add("resnet50_b8", "cnn", _tv("resnet50"), img(8))
add("resnet50_64", "cnn", _tv("resnet50"), img(1, 64), (S,))
add("resnext50_32x4d", "cnn", _tv("resnext50_32x4d"), img())
add("wide_resnet50_2", "cnn", _tv("wide_resnet50_2"), img())
add("vgg11", "cnn", _vgg11_small_head, img(),
    note="classifier replaced by 25088-256-1000")
add("densenet121", "cnn", _tv("densenet121"), img())
add("densenet121_64", "cnn", _tv("densenet121"), img(1, 64), (S,))
add("googlenet", "cnn", _tv("googlenet", aux_logits=False, init_weights=True), img())
add("inception_v3", "cnn", _tv("inception_v3", aux_logits=False, init_weights=True), img(1, 299))
add("mobilenet_v2", "cnn", _tv("mobilenet_v2"), img())
add("mobilenet_v2_64", "cnn", _tv("mobilenet_v2"), img(1, 64), (S,))
add("mobilenet_v3_small", "cnn", _tv("mobilenet_v3_small"), img())
add("mobilenet_v3_small_64", "cnn", _tv("mobilenet_v3_small"), img(1, 64), (S,))
add("mobilenet_v3_large", "cnn", _tv("mobilenet_v3_large"), img())
add("mnasnet0_5", "cnn", _tv("mnasnet0_5"), img())
add("mnasnet0_5_64", "cnn", _tv("mnasnet0_5"), img(1, 64), (S,))
add("shufflenet_v2_x0_5", "cnn", _tv("shufflenet_v2_x0_5"), img())
add("shufflenet_v2_x0_5_64", "cnn", _tv("shufflenet_v2_x0_5"), img(1, 64), (S,))
add("squeezenet1_1", "cnn", _tv("squeezenet1_1"), img())
add("squeezenet1_1_64", "cnn", _tv("squeezenet1_1"), img(1, 64), (S,))
add("efficientnet_b0", "cnn", _tv("efficientnet_b0"), img())
add("efficientnet_b0_64", "cnn", _tv("efficientnet_b0"), img(1, 64), (S,))
add("efficientnet_v2_s", "cnn", _tv("efficientnet_v2_s"), img())
add("regnet_y_400mf", "cnn", _tv("regnet_y_400mf"), img())
add("regnet_y_400mf_64", "cnn", _tv("regnet_y_400mf"), img(1, 64), (S,))
add("convnext_tiny", "cnn", _tv("convnext_tiny"), img())
add("convnext_tiny_64", "cnn", _tv("convnext_tiny"), img(1, 64), (S,))

# --- cnn-batch8: one torchvision model per CNN family at batch 8, 224² (299² for Inception) --
# (ResNet-50 at batch 8 is resnet50_b8 of the cnn family.)
B8 = "cnn-batch8"
# Families the CI sample leaves out, and why.
UNSAMPLED_FAMILIES = {B8: "the cnn family's models at batch 8: its sample runs the same layers"}
add("resnet18_b8", B8, _tv("resnet18"), img(8))
add("resnext50_32x4d_b8", B8, _tv("resnext50_32x4d"), img(8))
add("wide_resnet50_2_b8", B8, _tv("wide_resnet50_2"), img(8))
add("vgg11_b8", B8, _vgg11_small_head, img(8), note="classifier replaced by 25088-256-1000")
add("densenet121_b8", B8, _tv("densenet121"), img(8))
add("googlenet_b8", B8, _tv("googlenet", aux_logits=False, init_weights=True), img(8))
add("inception_v3_b8", B8, _tv("inception_v3", aux_logits=False, init_weights=True), img(8, 299))
add("mobilenet_v2_b8", B8, _tv("mobilenet_v2"), img(8))
add("mobilenet_v3_large_b8", B8, _tv("mobilenet_v3_large"), img(8))
add("mnasnet0_5_b8", B8, _tv("mnasnet0_5"), img(8))
add("shufflenet_v2_x0_5_b8", B8, _tv("shufflenet_v2_x0_5"), img(8))
add("squeezenet1_1_b8", B8, _tv("squeezenet1_1"), img(8))
add("efficientnet_b0_b8", B8, _tv("efficientnet_b0"), img(8))
add("regnet_y_400mf_b8", B8, _tv("regnet_y_400mf"), img(8))
add("convnext_tiny_b8", B8, _tv("convnext_tiny"), img(8))

# --- vision-transformer -------------------------------------------------------
add("vit_tiny_64", "vision-transformer",
    _vit(image_size=64, patch_size=16, num_layers=2, num_heads=3, hidden_dim=192, mlp_dim=768,
         num_classes=10), img(1, 64), (S, SAMPLE),
    note="torchvision VisionTransformer, 2 layers, hidden 192")
add("swin_tiny_64", "vision-transformer", _swin_small, img(1, 64), (S,),
    note="torchvision SwinTransformer, embed 48, depths 2,2, window 4")
add("vit_b_16", "vision-transformer", _vit(), img())
add("swin_t", "vision-transformer", _tv("swin_t"), img())
add("maxvit_t", "vision-transformer", _tv("maxvit_t"), img())

# --- segmentation -------------------------------------------------------------
add("unet_small", "segmentation", lambda: _unet(16, 3), img(1, 64), (S, SAMPLE),
    note="UNet base 16, depth 3: ConvTranspose2d(stride 2) and Upsample(bilinear) + torch.cat")
add("unet", "segmentation", lambda: _unet(32, 4), img(1, 256),
    note="UNet base 32, depth 4")
add("lraspp_mobilenet_v3_large_64", "segmentation", _seg("lraspp_mobilenet_v3_large"),
    img(1, 64), (S,))
add("lraspp_mobilenet_v3_large", "segmentation", _seg("lraspp_mobilenet_v3_large"), img())
add("fcn_resnet50", "segmentation", _seg("fcn_resnet50", aux_loss=False), img(1, 128),
    note="dilated ResNet-50 backbone (output stride 8)")
add("deeplabv3_mobilenet_v3_large", "segmentation",
    _seg("deeplabv3_mobilenet_v3_large", aux_loss=False), img(1, 128))

# --- generative: ConvTranspose2d decoders ---------------------------------------
add("dcgan_generator_32", "generative", lambda: _dcgan_generator(ngf=32, size=32),
    [Input("z", (1, 100, 1, 1))], (S, SAMPLE), note="DCGAN generator, ngf 32, 32x32 image")
add("dcgan_generator", "generative", _dcgan_generator, [Input("z", (8, 100, 1, 1))],
    note="DCGAN generator, ngf 64, batch 8, 64x64 images")

# --- attention: torch.nn.MultiheadAttention -----------------------------------
add("mha_tiny", "attention", lambda: _mha(64, 4, "self"), [Input("x", (2, 16, 64))],
    (S, SAMPLE), note="batch_first, self-attention")
add("mha_batch_first", "attention", lambda: _mha(512, 8, "self"), [Input("x", (2, 128, 512))],
    note="batch_first=True")
add("mha_seq_first", "attention", lambda: _mha(512, 8, "self", batch_first=False),
    [Input("x", (128, 2, 512))], note="batch_first=False")
add("mha_seq_first_s8", "attention", lambda: _mha(256, 8, "self", batch_first=False),
    [Input("x", (8, 1, 256))], (S,),
    note="batch_first=False, 8 tokens, batch 1: the in-projection is [8,1,256]@[256,768]")
add("mha_key_padding_mask", "attention", lambda: _mha(512, 8, "padmask"),
    [Input("x", (2, 128, 512)), Input("key_padding_mask", (2, 128), "padmask")],
    note="key_padding_mask input (bool)")
add("mha_causal_mask_input", "attention", lambda: _mha(512, 8, "causal_in"),
    [Input("x", (2, 128, 512)), Input("attn_mask", (128, 128), "causal")],
    note="causal attn_mask input (bool)")
add("mha_causal_mask_const", "attention", lambda: _mha(512, 8, "causal", causal_len=128),
    [Input("x", (2, 128, 512))], note="causal float attn_mask buffer (a constant)")
add("mha_kdim_vdim", "attention", lambda: _mha(256, 8, "qkv", kdim=128, vdim=96),
    [Input("query", (2, 32, 256)), Input("key", (2, 80, 128)), Input("value", (2, 80, 96))],
    note="kdim=128, vdim=96, query 32 vs key 80")
add("mha_cross_padmask", "attention", lambda: _mha(512, 8, "cross"),
    [Input("query", (2, 32, 512)), Input("memory", (2, 96, 512)),
     Input("key_padding_mask", (2, 96), "padmask")],
    note="cross-attention, query 32 vs memory 96, memory padding mask")
add("mha_decode_b8", "attention", lambda: _mha(256, 8, "self"), [Input("x", (8, 1, 256))],
    note="a decode step: batch 8, one token; the packed in-projection is [8,1,256]@[256,768]")
add("mha_need_weights", "attention", lambda: _mha(256, 8, "weights"), [Input("x", (2, 64, 256))],
    note="need_weights=True: also returns the head-averaged attention weights")

# --- transformer: torch.nn transformer layers ---------------------------------
add("encoder_layer_tiny", "transformer", _encoder_layer(64, 4, 128), [Input("x", (2, 16, 64))],
    (S, SAMPLE), note="post-LN, ReLU")
add("encoder_layer_postln", "transformer", _encoder_layer(512, 8, 2048),
    [Input("x", (1, 128, 512))], note="post-LN, ReLU")
add("encoder_layer_preln", "transformer",
    _encoder_layer(512, 8, 2048, norm_first=True, activation="gelu"),
    [Input("x", (1, 128, 512))], note="pre-LN (norm_first), GELU")
add("encoder_layer_seq_first", "transformer", _encoder_layer(256, 8, 1024, batch_first=False),
    [Input("x", (64, 2, 256))], note="batch_first=False")
add("encoder_stack_padmask", "transformer", _encoder_stack_padmask,
    [Input("x", (2, 64, 256)), Input("src_key_padding_mask", (2, 64), "padmask")],
    note="nn.TransformerEncoder, 4 layers, src_key_padding_mask input")
add("decoder_layer_postln", "transformer", lambda: _decoder_layer(512, 8, 2048, 64),
    [Input("tgt", (1, 64, 512)), Input("memory", (1, 96, 512))],
    note="post-LN, causal tgt_mask buffer, cross-attention tgt 64 vs memory 96")
add("decoder_layer_preln", "transformer",
    lambda: _decoder_layer(512, 8, 2048, 32, norm_first=True, memory_padmask=True),
    [Input("tgt", (2, 32, 512)), Input("memory", (2, 80, 512)),
     Input("memory_key_padding_mask", (2, 80), "padmask")],
    note="pre-LN, causal tgt_mask, memory padding mask input, tgt 32 vs memory 80")
add("decoder_layer_decode_b8", "transformer", lambda: _decoder_layer(256, 8, 1024, 1),
    [Input("tgt", (8, 1, 256)), Input("memory", (8, 64, 256))],
    note="a decode step: batch 8, one target token against a memory of 64")
add("transformer_seq2seq", "transformer", _seq2seq,
    [Input("src", (48, 2, 256)), Input("tgt", (32, 2, 256))],
    note="nn.Transformer 2+2 layers, seq-first, causal tgt_mask")

# --- lm: Hugging Face shapes written with plain torch ops ---------------------
add("llama_tiny", "lm", lambda: _llama(vocab=1000, hidden=64, layers=2, heads=4, kv_heads=2,
                                       inter=172, max_pos=128),
    [Input("input_ids", (1, 32), "ids", 1000)], (S, SAMPLE),
    note="hidden 64, 4 heads, 2 KV heads, 2 layers")
add("llama_512", "lm", lambda: _llama(hidden=512, layers=2, heads=8, kv_heads=2, inter=1376),
    [Input("input_ids", (1, 128), "ids", 32000)],
    note="hidden 512, 8 heads, 2 KV heads (GQA), 2 layers, vocab 32000")
add("llama_2048", "lm", lambda: _llama(hidden=2048, layers=2, heads=32, kv_heads=4, inter=5632),
    [Input("input_ids", (1, 64), "ids", 32000)],
    note="TinyLlama shapes: hidden 2048, 32 heads, 4 KV heads, MLP 5632, 2 layers")
add("gpt2_tiny", "lm", lambda: _gpt2(vocab=1000, n_pos=128, hidden=64, layers=2, heads=4),
    [Input("input_ids", (1, 32), "ids", 1000)], (S,), note="hidden 64, 2 layers, tied head")
add("gpt2_l4", "lm", lambda: _gpt2(layers=4), [Input("input_ids", (1, 128), "ids", 50257)],
    note="GPT-2 small shapes, 4 layers, LM head tied to wte (vocab 50257)")
add("bert_tiny", "lm", lambda: _bert(vocab=1000, hidden=128, layers=2, heads=2, inter=512),
    [Input("input_ids", (2, 64), "ids", 1000), Input("attention_mask", (2, 64), "keepmask"),
     Input("token_type_ids", (2, 64), "tokentype")], (S,),
    note="hidden 128, 2 layers, padded attention mask")
add("bert_base_l4", "lm", lambda: _bert(layers=4),
    [Input("input_ids", (2, 128), "ids", 30522), Input("attention_mask", (2, 128), "keepmask"),
     Input("token_type_ids", (2, 128), "tokentype")],
    note="BERT-base shapes, 4 layers, padded attention mask, pooler")
add("t5_tiny", "lm", lambda: _t5_encoder(vocab=1000, d_model=64, d_kv=16, d_ff=128, layers=2,
                                         heads=4),
    [Input("input_ids", (2, 32), "ids", 1000), Input("attention_mask", (2, 32), "keepmask")],
    (S,), note="T5 encoder, relative position bias, d_model 64")
add("t5_small_encoder", "lm", lambda: _t5_encoder(layers=4),
    [Input("input_ids", (1, 128), "ids", 32128), Input("attention_mask", (1, 128), "keepmask")],
    note="t5-small encoder shapes, 4 layers, relative position bias")

# --- rnn ------------------------------------------------------------------------
add("lstm_tiny", "rnn", lambda: _rnn("LSTM", 16, 32), [Input("x", (1, 8, 16))], (S, SAMPLE))
add("lstm", "rnn", lambda: _rnn("LSTM", 128, 256), [Input("x", (2, 64, 128))],
    note="1 layer, batch_first")
add("lstm_2l_bidir", "rnn", lambda: _rnn("LSTM", 128, 256, layers=2, bidirectional=True),
    [Input("x", (2, 64, 128))], note="2 layers, bidirectional, batch_first")
add("gru", "rnn", lambda: _rnn("GRU", 128, 256), [Input("x", (2, 64, 128))])
add("gru_2l_bidir", "rnn", lambda: _rnn("GRU", 128, 256, layers=2, bidirectional=True),
    [Input("x", (2, 64, 128))])
add("rnn_tanh", "rnn", lambda: _rnn("RNN", 128, 256, layers=2), [Input("x", (2, 64, 128))],
    note="nn.RNN, tanh, 2 layers")

# --- audio ----------------------------------------------------------------------
add("wav2vec2_stem_tiny", "audio",
    lambda: _wav2vec2_stem(dim=64, layers=((10, 5), (3, 2), (3, 2)), norm="layer",
                           conv_bias=True, out_dim=96),
    [Input("input_values", (1, 4000))], (S, SAMPLE), note="3 convolutions of 64 channels")
add("wav2vec2_stem_base", "audio", _wav2vec2_stem, [Input("input_values", (1, 16000))],
    note="wav2vec2-base feature encoder (GroupNorm) + projection, 1 s of 16 kHz audio")
add("wav2vec2_stem_large", "audio", lambda: _wav2vec2_stem(norm="layer", conv_bias=True,
                                                           out_dim=1024),
    [Input("input_values", (1, 16000))],
    note="wav2vec2-large feature encoder (LayerNorm) + projection")
add("whisper_tiny_stem", "audio", _whisper_stem, [Input("mel", (1, 80, 3000))],
    note="Whisper tiny: conv stem + positional embedding, 30 s of mel frames")


def sample():
    return [m for m in MODELS if SAMPLE in m.tags]


def _check_registry():
    import re
    fams = {}
    for m in MODELS:
        assert re.fullmatch(r"[a-z0-9_]+", m.name), m.name
        for i in m.inputs:
            assert i.kind in KINDS, (m.name, i.kind)
        if SAMPLE in m.tags:
            assert m.family not in fams, "two samples in family %s" % m.family
            fams[m.family] = m.name
    missing = set(families()) - set(fams) - set(UNSAMPLED_FAMILIES)
    assert not missing, "families without a sample: %s" % sorted(missing)


_check_registry()

if __name__ == "__main__":
    for m in MODELS:
        print("%-30s %-19s %-40s %s" % (m.name, m.family, m.describe_inputs(),
                                        ",".join(sorted(m.tags))))
    print("%d models in %d families" % (len(MODELS), len(families())))
