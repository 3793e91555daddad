"""The attention layers against PyTorch itself, over combinations of their arguments:
the whole ``grad_fn`` tree (names and edges), output values, the weights' gradients and
the errors, for ``MultiheadAttention`` and the transformer encoder/decoder layers, in
training, evaluation and inference. The conformance scenarios pin single cases to
goldens; this sweeps the combinations where PyTorch is installed."""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pytest

import engine


def _tree(fn: Any) -> str:
    if fn is None:
        return "-"
    return fn.name() + "(" + ",".join(_tree(n) for n, _ in fn.next_functions) + ")"


def _values(t: Any) -> np.ndarray:
    return np.asarray(t.detach().tolist(), dtype=np.float64)


def _mha_case(lib: Any, case: tuple) -> tuple:
    batch_first, need_weights, padding, mask, dropout, bias_kv, zero_attn, kdim = case
    lib.manual_seed(0)
    m = lib.nn.MultiheadAttention(
        4,
        2,
        dropout,
        add_bias_kv=bias_kv,
        add_zero_attn=zero_attn,
        kdim=kdim,
        vdim=kdim,
        batch_first=batch_first,
    )
    q = lib.randn(2, 3, 4) if batch_first else lib.randn(3, 2, 4)
    q.requires_grad_()
    kv = q if kdim is None else (lib.randn(2, 5, 3) if batch_first else lib.randn(5, 2, 3))
    s = kv.shape[1] if batch_first else kv.shape[0]
    pad = {
        "none": None,
        "bool": lib.tensor([[False] * s, [False] + [True] * (s - 1)]),
        "float": lib.tensor([[0.0] * s, [0.0] + [-1e9] * (s - 1)]),
    }[padding]
    attn_mask = {
        "none": None,
        "bool": lib.triu(lib.ones(3, s, dtype=lib.bool), 1),
        "heads": lib.randn(4, 3, s),
        "causal": lib.triu(lib.full((3, s), float("-inf")), 1),
    }[mask]
    try:
        out, weights = m(
            q,
            kv,
            kv,
            key_padding_mask=pad,
            need_weights=need_weights,
            attn_mask=attn_mask,
            is_causal=mask == "causal",
        )
        loss = out.sum() if weights is None else out.sum() + weights.sum()
        loss.backward()
    except Exception as exc:  # the same error is a match
        return (f"{type(exc).__name__}: {exc}",)
    w = m.in_proj_weight if m.in_proj_weight is not None else m.q_proj_weight
    return (_tree(out.grad_fn), _values(out), _values(w.grad), weights is None)


_MHA_CASES = list(
    itertools.product(
        [False, True],
        [True, False],
        ["none", "bool", "float"],
        ["none", "bool", "heads", "causal"],
        [0.0, 0.3],
        [False, True],
        [False, True],
        [None, 3],
    )
)[::10]


def _agree(ours: tuple, theirs: tuple) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        if isinstance(a, np.ndarray):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        else:
            assert a == b


@pytest.mark.torch
@pytest.mark.parametrize("case", _MHA_CASES, ids=str)
def test_multihead_attention_agrees_with_torch(case: tuple) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _agree(_mha_case(engine, case), _mha_case(torch, case))


def _layers_case(lib: Any, case: tuple) -> tuple:
    batch_first, norm_first, activation, dropout, masks, mode = case
    act = {"relu": "relu", "gelu": "gelu", "callable": lib.tanh}[activation]
    lib.manual_seed(0)
    kw = {"dropout": dropout, "activation": act, "batch_first": batch_first}
    enc = lib.nn.TransformerEncoderLayer(4, 2, 6, norm_first=norm_first, **kw)
    dec = lib.nn.TransformerDecoderLayer(4, 2, 6, norm_first=norm_first, **kw)
    x = lib.randn(2, 3, 4) if batch_first else lib.randn(3, 2, 4)
    memory = lib.randn(2, 4, 4) if batch_first else lib.randn(4, 2, 4)
    square = lib.nn.Transformer.generate_square_subsequent_mask(3)
    pad = lib.tensor([[False, False, True], [False, False, False]])
    enc_kw = {
        "none": {},
        "both": {"src_mask": square, "src_key_padding_mask": pad},
        "causal": {"src_mask": square, "is_causal": True},
    }[masks]
    dec_kw = {
        "none": {},
        "both": {"tgt_mask": square, "tgt_key_padding_mask": pad, "memory_mask": lib.zeros(3, 4)},
        "causal": {"tgt_mask": square, "tgt_is_causal": True},
    }[masks]
    if mode != "train":
        enc.eval()
        dec.eval()
    if mode == "no_grad":
        with lib.no_grad():
            y, z = enc(x, **enc_kw), dec(x, memory, **dec_kw)
        return (_values(y), _values(z), y.grad_fn is None and z.grad_fn is None)
    y, z = enc(x, **enc_kw), dec(x, memory, **dec_kw)
    (y * lib.arange(4.0)).sum().backward()
    (z * lib.arange(4.0)).sum().backward()
    grads = (_values(enc.linear1.weight.grad), _values(dec.multihead_attn.in_proj_weight.grad))
    return (_tree(y.grad_fn), _tree(z.grad_fn), _values(y), _values(z), *grads)


_LAYER_CASES = list(
    itertools.product(
        [False, True],
        [False, True],
        ["relu", "gelu", "callable"],
        [0.0, 0.2],
        ["none", "both", "causal"],
        ["train", "eval", "no_grad"],
    )
)[::6]


@pytest.mark.torch
@pytest.mark.parametrize("case", _LAYER_CASES, ids=str)
def test_transformer_layers_agree_with_torch(case: tuple) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed (the live oracle)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _agree(_layers_case(engine, case), _layers_case(torch, case))
