"""Conformance scenarios for attention: ``F.scaled_dot_product_attention`` (which CPU
backend runs, and so which ``grad_fn`` shows, for each input combination),
``nn.MultiheadAttention`` (seeded init, every forward argument, the fast path) and the
transformer layers, stacks and ``nn.Transformer`` (masks, causal detection, warnings).
"""

from __future__ import annotations

from tests.conformance.scenarios import _add

_QKV = """
torch.manual_seed(0)
q = torch.randn(2, 2, 3, 4, requires_grad=True)
k = torch.randn(2, 2, 5, 4, requires_grad=True)
v = torch.randn(2, 2, 5, 4, requires_grad=True)
"""

_ERR = """
sdpa = F.scaled_dot_product_attention
errors = []
def attempt(fn):
    try:
        fn()
        errors.append("ok")
    except Exception as exc:
        errors.append(f"{type(exc).__name__}: {exc}")
"""

# -- scaled_dot_product_attention ---------------------------------------------------------

_add(
    "sdpa_flash_plain",
    _QKV
    + """
out = F.scaled_dot_product_attention(q, k, v)
(out * torch.arange(4.0)).sum().backward()
saved = [out.grad_fn._saved_is_causal, out.grad_fn._saved_dropout_p, out.grad_fn._saved_scale]
""",
)

for _name, _args in (
    ("causal", "is_causal=True"),
    ("bool_mask", "attn_mask=torch.tensor([[True, False, True, True, False]] * 3)"),
    ("float_mask", "attn_mask=torch.linspace(-1.0, 1.0, 15).reshape(3, 5)"),
    ("mask_4d", "attn_mask=torch.rand(2, 1, 3, 5) > 0.4"),
    ("scale", "scale=0.3"),
    ("causal_and_mask", "attn_mask=torch.ones(3, 5, dtype=torch.bool), is_causal=True"),
):
    _add(
        f"sdpa_flash_{_name}",
        _QKV
        + f"""
out = F.scaled_dot_product_attention(q, k, v, {_args})
(out * torch.arange(4.0)).sum().backward()
""",
    )

_add(
    "sdpa_flash_float64_gqa",
    """
torch.manual_seed(1)
q = torch.randn(1, 4, 3, 2, dtype=torch.float64, requires_grad=True)
k = torch.randn(1, 2, 4, 2, dtype=torch.float64, requires_grad=True)
v = torch.randn(1, 2, 4, 2, dtype=torch.float64, requires_grad=True)
out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
out.pow(2).sum().backward()
""",
)

_add(
    "sdpa_math_dropout",
    _QKV
    + """
out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5)
(out * torch.arange(4.0)).sum().backward()
""",
)

_add(
    "sdpa_math_3d_inputs",
    """
torch.manual_seed(2)
q = torch.randn(2, 3, 4, requires_grad=True)
k = torch.randn(2, 5, 4, requires_grad=True)
v = torch.randn(2, 5, 4, requires_grad=True)
mask = torch.tensor([[True, True, False, True, False]] * 3)
plain = F.scaled_dot_product_attention(q, k, v)
masked = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
causal = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=-0.5)
(plain.sum() + masked.pow(2).sum() + causal.sum()).backward()
""",
)

_add(
    "sdpa_math_batch_one",
    """
torch.manual_seed(3)
q = torch.randn(1, 3, 4, requires_grad=True)
k = torch.randn(1, 5, 4, requires_grad=True)
v = torch.randn(1, 5, 4)
out = F.scaled_dot_product_attention(q, k, v)
out.sum().backward()
""",
)

_add(
    "sdpa_math_mask_requires_grad",
    _QKV
    + """
bias = torch.linspace(-1.0, 1.0, 15).reshape(3, 5).requires_grad_()
out = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
(out * torch.arange(4.0)).sum().backward()
""",
)

_add(
    "sdpa_math_gqa_dropout",
    """
torch.manual_seed(4)
q = torch.randn(1, 4, 2, 3, requires_grad=True)
k = torch.randn(1, 2, 3, 3, requires_grad=True)
v = torch.randn(1, 2, 3, 3, requires_grad=True)
out = F.scaled_dot_product_attention(q, k, v, dropout_p=0.25, enable_gqa=True)
out.sum().backward()
""",
)

_add(
    "sdpa_fully_masked_rows",
    _QKV
    + """
mask = torch.tensor([[False] * 5, [True, False, True, False, True], [True] * 5])
flash = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
math = F.scaled_dot_product_attention(q[0], k[0], v[0], attn_mask=mask)
(flash.sum() + math.sum()).backward()
""",
)

_add(
    "sdpa_no_grad_and_constants",
    _QKV
    + """
with torch.no_grad():
    quiet = F.scaled_dot_product_attention(q, k, v)
const = F.scaled_dot_product_attention(q.detach(), k.detach(), v.detach(), is_causal=True)
only_q = F.scaled_dot_product_attention(q, k.detach(), v.detach())
only_q.sum().backward()
""",
)

_add(
    "sdpa_double_backward_refused",
    _QKV
    + """
out = F.scaled_dot_product_attention(q, k, v)
gq, = torch.autograd.grad(out.sum(), q, create_graph=True)
kind = [type(gq.grad_fn).__name__]
try:
    gq.sum().backward()
except RuntimeError as exc:
    message = [str(exc)]
""",
)

_add(
    "sdpa_errors",
    _QKV
    + _ERR
    + """
attempt(lambda: sdpa(q, k.double(), v))
attempt(lambda: sdpa(torch.randn(3), k, v))
attempt(lambda: sdpa(q, k, v, attn_mask=torch.ones(3, 5, dtype=torch.long)))
attempt(lambda: sdpa(q, k, v, attn_mask=torch.ones(3, 5).double()))
attempt(lambda: sdpa(q, torch.randn(2, 2, 5, 3), v))
attempt(lambda: sdpa(q, k, v, attn_mask=torch.ones(4, 4)))
ones = torch.ones(3, 5, dtype=torch.bool)
attempt(lambda: sdpa(q[0], k[0], v[0], attn_mask=ones, is_causal=True))
q4, k3, k2 = torch.randn(1, 4, 2, 4), torch.randn(1, 3, 3, 4), torch.randn(1, 2, 3, 4)
attempt(lambda: sdpa(q4, k3, k3, enable_gqa=True))
attempt(lambda: sdpa(q4, k2, k2))
attempt(lambda: sdpa(q, k, v, None, 0.0, False, 0.5))
attempt(lambda: sdpa(q, k, v, dropout_p=1.5))
""",
)

_add(
    "sdpa_gradcheck_float64",
    """
torch.manual_seed(5)
q = torch.randn(1, 2, 3, 2, dtype=torch.float64, requires_grad=True)
k = torch.randn(1, 1, 4, 2, dtype=torch.float64, requires_grad=True)
v = torch.randn(1, 1, 4, 2, dtype=torch.float64, requires_grad=True)
mask = torch.tensor([[True, False, True, True]] * 3)
bias = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
sdpa = F.scaled_dot_product_attention
check = torch.autograd.gradcheck
checks = [
    check(lambda a, b, c: sdpa(a, b, c, attn_mask=mask, enable_gqa=True), (q, k, v)),
    check(lambda a, b, c: sdpa(a, b, c, is_causal=True, scale=0.7, enable_gqa=True), (q, k, v)),
    check(lambda a, b, c, m: sdpa(a[0], b[0], c[0], attn_mask=m), (q, k, v, bias)),
]
""",
)

# -- MultiheadAttention -------------------------------------------------------------------

_add(
    "mha_seeded_init_and_repr",
    """
torch.manual_seed(0)
m = torch.nn.MultiheadAttention(4, 2)
names = [n for n, _ in m.named_parameters()]
shapes = [list(p.shape) for p in m.parameters()]
text = [repr(m), type(m.out_proj).__name__, str(m.out_proj)]
w_in = m.in_proj_weight
b_in = m.in_proj_bias
w_out = m.out_proj.weight
b_out = m.out_proj.bias
sep = torch.nn.MultiheadAttention(4, 2, bias=False, add_bias_kv=True, kdim=3, vdim=5)
sep_names = [n for n, _ in sep.named_parameters()]
sep_shapes = [list(p.shape) for p in sep.parameters()]
wq, wk, wv = sep.q_proj_weight, sep.k_proj_weight, sep.v_proj_weight
bk, bv = sep.bias_k, sep.bias_v
attrs = [sep.head_dim, sep._qkv_same_embed_dim, sep.in_proj_weight is None]
attrs += [sep.out_proj.bias is None]
""",
)

_MHA = """
torch.manual_seed(0)
m = torch.nn.MultiheadAttention(4, 2)
x = torch.randn(3, 2, 4, requires_grad=True)
w_in = m.in_proj_weight
w_out = m.out_proj.weight
b_in = m.in_proj_bias
"""

_add(
    "mha_self_attention_weights",
    _MHA
    + """
out, weights = m(x, x, x)
(out.sum() + weights.pow(2).sum()).backward()
""",
)

_add(
    "mha_need_weights_false",
    _MHA
    + """
out, weights = m(x, x, x, need_weights=False)
none = [weights is None]
out.pow(2).sum().backward()
""",
)

_add(
    "mha_padding_and_attn_masks",
    _MHA
    + """
kpm = torch.tensor([[False, False, True], [False, True, True]])
causal = torch.triu(torch.ones(3, 3, dtype=torch.bool), 1)
out, weights = m(x, x, x, kpm, attn_mask=causal, average_attn_weights=False)
out2, _ = m(x, x, x, key_padding_mask=kpm, need_weights=False)
(out.sum() + out2.sum() + weights.sum()).backward()
""",
)

_add(
    "mha_float_masks_and_mismatch_warning",
    _MHA
    + """
bias = torch.tensor([[0.0, -1.0, -2.0], [0.5, 0.0, -0.5], [-1.0, 0.0, 0.0]])
out, weights = m(x, x, x, attn_mask=bias)
bool_mask = torch.zeros(3, 3, dtype=torch.bool)
mixed, _ = m(x, x, x, key_padding_mask=torch.zeros(2, 3), attn_mask=bool_mask)
heads = torch.zeros(4, 3, 3)
out3, w3 = m(x, x, x, attn_mask=heads)
(out.sum() + mixed.sum() + out3.sum()).backward()
""",
)

_add(
    "mha_is_causal_hint",
    _MHA
    + """
mask = torch.nn.Transformer.generate_square_subsequent_mask(3)
fast, none = m(x, x, x, attn_mask=mask, is_causal=True, need_weights=False)
full, weights = m(x, x, x, attn_mask=mask, is_causal=True)
(fast.sum() + full.sum()).backward()
""",
)

_add(
    "mha_separate_dims_bias_kv_zero_attn_dropout",
    """
torch.manual_seed(1)
m = torch.nn.MultiheadAttention(
    4, 2, dropout=0.5, bias=False, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5,
    batch_first=True,
)
q = torch.randn(2, 3, 4, requires_grad=True)
k = torch.randn(2, 4, 3)
v = torch.randn(2, 4, 5)
out, weights = m(q, k, v)
out2, _ = m(q, k, v, need_weights=False)
(out.sum() + out2.sum()).backward()
wq, wk, wv = m.q_proj_weight, m.k_proj_weight, m.v_proj_weight
bk, bv = m.bias_k, m.bias_v
m.eval()
evaluated, ew = m(q, k, v)
""",
)

_add(
    "mha_encoder_decoder_and_unbatched",
    _MHA
    + """
memory = torch.randn(5, 2, 4)
cross, cw = m(x, memory, memory)
single, sw = m(x[:, 0], x[:, 0], x[:, 0])
separate_kv, _ = m(x, memory, memory.clone(), need_weights=False)
(cross.sum() + single.sum() + separate_kv.sum()).backward()
""",
)

_add(
    "mha_fast_path_eval_no_grad",
    """
torch.manual_seed(2)
m = torch.nn.MultiheadAttention(4, 2, batch_first=True).eval()
x = torch.randn(2, 3, 4)
with torch.no_grad():
    out, weights = m(x, x, x)
    contiguous = [out.is_contiguous(), list(out.stride())]
still_graph, _ = m(x, x, x)
""",
)

_add(
    "mha_errors",
    _MHA
    + _ERR
    + """
attempt(lambda: torch.nn.MultiheadAttention(5, 2))
attempt(lambda: torch.nn.MultiheadAttention(0, 2))
attempt(lambda: m(x, x, x, is_causal=True))
attempt(lambda: m(x, x, x, attn_mask=torch.zeros(2, 2)))
attempt(lambda: m(x, x, x, attn_mask=torch.zeros(2, 3, 3)))
attempt(lambda: m(x, x, x, key_padding_mask=torch.zeros(2, 3, dtype=torch.long)))
attempt(lambda: m(x, x, x, key_padding_mask=torch.zeros(3, 3, dtype=torch.bool)))
attempt(lambda: m(torch.randn(3, 2, 5), torch.randn(3, 2, 5), torch.randn(3, 2, 5)))
attempt(lambda: m(x[0, 0], x[0, 0], x[0, 0]))
attempt(lambda: m(x, torch.randn(4, 2, 4), torch.randn(5, 2, 4)))
""",
)

_add(
    "mha_gradcheck_float64",
    """
torch.manual_seed(3)
m = torch.nn.MultiheadAttention(4, 2, add_bias_kv=True, dtype=torch.float64)
x = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
mask = torch.tensor([[False, True, False], [False, False, True]])
check = torch.autograd.gradcheck
checks = [
    check(lambda t: m(t, t, t)[0], (x,)),
    check(lambda t: m(t, t, t, key_padding_mask=mask, need_weights=False)[0], (x,)),
]
""",
)

# -- transformer layers -------------------------------------------------------------------

_add(
    "transformer_encoder_layer_post_norm_dropout",
    """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1)
text = [repr(layer)]
x = torch.randn(5, 2, 8, requires_grad=True)
out = layer(x)
(out * torch.arange(8.0)).sum().backward()
w1 = layer.linear1.weight
w_in = layer.self_attn.in_proj_weight
n1 = layer.norm1.weight
""",
)

_add(
    "transformer_encoder_layer_norm_first_gelu",
    """
torch.manual_seed(1)
layer = torch.nn.TransformerEncoderLayer(
    4, 2, 8, dropout=0.0, activation="gelu", batch_first=True, norm_first=True,
    layer_norm_eps=1e-6,
)
x = torch.randn(2, 3, 4, requires_grad=True)
mask = torch.nn.Transformer.generate_square_subsequent_mask(3)
kpm = torch.tensor([[False, False, True], [False, False, False]])
out = layer(x, src_mask=mask, src_key_padding_mask=kpm)
causal = layer(x, src_mask=mask, is_causal=True)
(out.sum() + causal.pow(2).sum()).backward()
flags = [layer.activation_relu_or_gelu]
w2 = layer.linear2.weight
""",
)

_add(
    "transformer_encoder_layer_callable_activation_no_bias",
    """
torch.manual_seed(2)
layer = torch.nn.TransformerEncoderLayer(4, 2, 8, 0.0, activation=torch.tanh, bias=False)
x = torch.randn(3, 2, 4, requires_grad=True)
out = layer(x)
out.sum().backward()
flags = [layer.activation_relu_or_gelu, layer.linear1.bias is None, layer.norm1.bias is None]
try:
    torch.nn.TransformerEncoderLayer(4, 2, activation="tanh")
except RuntimeError as exc:
    message = [str(exc)]
""",
)

_add(
    "transformer_encoder_nested_tensor_warnings",
    """
Layer, Encoder = torch.nn.TransformerEncoderLayer, torch.nn.TransformerEncoder
torch.manual_seed(0)
a = Encoder(Layer(8, 2, 16), 2)
b = Encoder(Layer(8, 3, 15, batch_first=True), 1)
c = Encoder(Layer(8, 2, 16, batch_first=True, norm_first=True), 1)
d = Encoder(Layer(8, 2, 16, batch_first=True, activation=torch.tanh), 1)
e = Encoder(Layer(8, 2, 16, batch_first=True, bias=False), 1)
f = Encoder(Layer(8, 2, 16, batch_first=True, activation=torch.nn.ReLU()), 1)
g = Encoder(Layer(8, 2, 16), 1, enable_nested_tensor=False)
flags = [a.use_nested_tensor, b.use_nested_tensor, f.use_nested_tensor, g.use_nested_tensor]
flags += [len(a.layers)]
""",
)

_add(
    "transformer_encoder_stack_masks",
    """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1)
norm = torch.nn.LayerNorm(8)
enc = torch.nn.TransformerEncoder(layer, 2, norm=norm, enable_nested_tensor=False)
x = torch.randn(5, 2, 8, requires_grad=True)
out = enc(x)
mask = torch.nn.Transformer.generate_square_subsequent_mask(5)
kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
masked = enc(x, mask=mask, src_key_padding_mask=kpm)
hinted = enc(x, mask=mask, is_causal=True)
(out.sum() + masked.sum() + hinted.sum()).backward()
enc.eval()
evaluated = enc(x, mask=mask)
w1 = enc.layers[0].linear1.weight
w1b = enc.layers[1].linear1.weight
""",
)

_add(
    "transformer_encoder_nested_fast_path",
    """
torch.manual_seed(0)
layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
enc = torch.nn.TransformerEncoder(layer, 2)
enc.eval()
x = torch.randn(2, 5, 8)
kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
with torch.no_grad():
    padded = enc(x, src_key_padding_mask=kpm)
    plain = enc(x)
unaligned = torch.tensor([[False] * 5, [True, False, False, False, True]])
with torch.no_grad():
    not_left_aligned = enc(x, src_key_padding_mask=unaligned)
""",
)

_add(
    "transformer_decoder_stack",
    """
torch.manual_seed(3)
layer = torch.nn.TransformerDecoderLayer(
    8, 2, 16, dropout=0.0, activation="gelu", norm_first=True, batch_first=True
)
dec = torch.nn.TransformerDecoder(layer, 2, norm=torch.nn.LayerNorm(8))
tgt = torch.randn(2, 4, 8, requires_grad=True)
memory = torch.randn(2, 5, 8, requires_grad=True)
kpm = torch.tensor([[False] * 5, [False, False, False, True, True]])
tgt_mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
out = dec(tgt, memory, tgt_mask=tgt_mask, memory_key_padding_mask=kpm)
post = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.2)
t_first, m_first = tgt.transpose(0, 1), memory.transpose(0, 1)
single = post(t_first, m_first, tgt_mask=tgt_mask, tgt_is_causal=True)
(out.sum() + single.sum()).backward()
text = [repr(post)]
w_cross = dec.layers[0].multihead_attn.in_proj_weight
""",
)

_add(
    "transformer_full_model",
    """
torch.manual_seed(4)
model = torch.nn.Transformer(
    d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=12,
    dropout=0.0,
)
text = [repr(model)]
src = torch.randn(5, 2, 8)
tgt = torch.randn(3, 2, 8)
out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(3))
out.sum().backward()
w_enc = model.encoder.layers[0].linear1.weight
w_dec = model.decoder.layers[0].multihead_attn.in_proj_weight
g_norm = model.decoder.layers[0].norm1.weight
mask64 = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
errors = []
for args in ((src, torch.randn(3, 3, 8)), (src, torch.randn(3, 2, 6))):
    try:
        model(*args)
    except RuntimeError as exc:
        errors.append(str(exc))
""",
)

_add(
    "transformer_gradcheck_float64",
    """
torch.manual_seed(5)
layer = torch.nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=torch.float64)
x = torch.randn(3, 2, 4, dtype=torch.float64, requires_grad=True)
mask = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
checks = [torch.autograd.gradcheck(lambda t: layer(t, src_mask=mask, is_causal=True), (x,))]
""",
)

_add(
    "attention_fast_paths_fully_masked_rows",
    """
torch.manual_seed(0)
m = torch.nn.MultiheadAttention(4, 2, batch_first=True).eval()
x = torch.randn(2, 3, 4)
kpm = torch.tensor([[True, True, True], [False, True, False]])
with torch.no_grad():
    kernel, kernel_w = m(x, x, x, key_padding_mask=kpm)
    kernel_nw, none = m(x, x, x, key_padding_mask=kpm, need_weights=False)
explicit, explicit_w = m(x, x, x, key_padding_mask=kpm)
through_sdpa, _ = m(x, x, x, key_padding_mask=kpm, need_weights=False)
layer = torch.nn.TransformerEncoderLayer(4, 2, 8, batch_first=True).eval()
with torch.no_grad():
    fused_layer = layer(x, src_key_padding_mask=kpm)
composite_layer = layer(x, src_key_padding_mask=kpm)
""",
)

_add(
    "sdpa_math_half_upcast",
    """
torch.manual_seed(6)
q = torch.randn(2, 3, 4).half().requires_grad_()
k = torch.randn(2, 5, 4).half().requires_grad_()
out = F.scaled_dot_product_attention(q, k, k, is_causal=True)
out.float().sum().backward()
""",
)
